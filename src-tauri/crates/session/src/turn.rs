//! The LLM loop of one turn: assemble the request from the DB, stream the
//! answer raced against the turn's token, store the assistant message, run
//! its tool calls in order, and go round again until the model answers
//! without tools or the round limit is reached.
//!
//! The turn's [`CancellationToken`] is taken by value and handed down by
//! value; `/stop` cancels it and every await point here races it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use futures_util::StreamExt;
use skald_core_api::{CancellationToken, ContentBlock};
use skald_core_api::{ToolDef, ToolName};
use skald_llm::{
    AssistantResponse, ChatRequest, LlmError, Message, ResponseAccumulator, StreamEvent, ToolCall,
};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_store::{
    AssistantExtras, Incomplete, MessageRow, ModelRef, NewMessage, Role, SessionRow,
};
use skald_tools::tool_names as tn;
use skald_tools::{Audience, ToolSet};

use crate::ahead::run_message_calls;
use crate::approval::awaits_approval;
use crate::assemble::{extras_of, to_messages_awaiting, tool_calls_json};
use crate::companion::scratchpad_block;
use crate::error::SessionError;
use crate::events::EventSink;
use crate::handler::Inner;
use crate::ids::new_tool_call_id;
use crate::images::ImagePolicy;
use crate::interface::FrameEvents;
use crate::provider::ResolvedModel;

/// Where a sub-agent's turn sits: its events are wrapped in
/// [`SessionEvent::SubAgent`] so observers nest them under `parent_call_id`.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub parent_call_id: String,
}

/// One turn's context, borrowed for its duration.
pub(crate) struct Turn<'a> {
    pub inner: &'a Inner,
    pub session: &'a SessionRow,
    pub frame_id: i64,
    /// The frame's agent (the session's for the root frame).
    pub agent_id: &'a str,
    /// 0 for the root agent.
    pub depth: u32,
    /// `Some` for a sub-agent's turn.
    pub scope: Option<Scope>,
    pub workdir: &'a Path,
    /// The tools of this turn's frame: what is offered and what runs.
    pub tools: ToolSet,
    /// What those tools raised, sent before the turn's next event.
    pub events: FrameEvents,
    pub system: &'a str,
    /// `None` when only resuming tools (no LLM round).
    pub model: Option<&'a ResolvedModel>,
    pub sink: &'a dyn EventSink,
}

impl Turn<'_> {
    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// To the starter's sink and the session-wide bus; a sub-agent's
    /// wrapped with its frame and the call that started it.
    pub fn emit(&self, event: SessionEvent) {
        // What the frame's tools raised (a file to show) goes first, as is.
        for raised in self.events.take() {
            self.inner.bus.publish(&raised);
            self.sink.emit(raised);
        }
        let event = match &self.scope {
            None => event,
            Some(scope) => SessionEvent::SubAgent {
                session_id: self.session.id.clone(),
                frame_id: self.frame_id,
                agent_id: self.agent_id.to_string(),
                depth: self.depth,
                parent_call_id: scope.parent_call_id.clone(),
                event: Box::new(event),
            },
        };
        self.inner.bus.publish(&event);
        self.sink.emit(event);
    }
}

/// How streaming one response ended.
enum Streamed {
    Complete(AssistantResponse),
    Cancelled(AssistantResponse),
    Failed(LlmError, AssistantResponse),
}

/// Runs LLM rounds until the model stops calling tools.
pub(crate) async fn run_rounds(
    t: &Turn<'_>,
    cancel: CancellationToken,
) -> Result<TurnOutcome, SessionError> {
    let Some(model) = t.model else {
        return Ok(TurnOutcome::Completed);
    };
    let max = t.inner.config.max_rounds;
    let first = t;
    let mut fresh;
    for round in 0..max {
        if cancel.is_cancelled() {
            return Ok(TurnOutcome::Cancelled);
        }
        // A server granted by the last round (activate_tools) may have had
        // no tools in the set this turn started with.
        let t = if round > 0 && !first.inner.sources.is_empty() {
            fresh = refreshed(first).await?;
            &fresh
        } else {
            first
        };
        let request = crate::context::fitted(t, model, cancel.clone()).await?;
        // Recorded off the critical path, each under its own source; only
        // new names reach the DB.
        observe_offered(t, &request.tools);

        let response = match stream_response(t, model, &request, cancel.clone()).await {
            Streamed::Complete(r) => r,
            // What streamed is kept for the person, flagged incomplete: the
            // next request says it was cut (by Stop or by the connection),
            // never passes it off as a finished answer.
            Streamed::Cancelled(partial) => {
                keep_incomplete(t, &partial, Incomplete::Stopped).await?;
                return Ok(TurnOutcome::Cancelled);
            }
            Streamed::Failed(e, partial) => {
                keep_incomplete(t, &partial, Incomplete::Cut(e.to_string())).await?;
                return Ok(TurnOutcome::Failed {
                    message: e.to_string(),
                });
            }
        };
        if let Some(u) = response.usage {
            t.emit(SessionEvent::Usage {
                session_id: t.session_id().to_string(),
                input_tokens: u32::try_from(u.input_tokens).unwrap_or(u32::MAX),
                output_tokens: u32::try_from(u.output_tokens).unwrap_or(u32::MAX),
                cost_usd: u.cost_usd,
                cache_read_tokens: u32::try_from(u.cache_read_tokens).unwrap_or(u32::MAX),
                reasoning_tokens: u32::try_from(u.reasoning_tokens).unwrap_or(u32::MAX),
            });
        }
        // Kept with the message: the next round sends back what the provider requires.
        let extras = extras_of(&response.reasoning_to_keep(), response.usage);
        let calls = unique_ids(t, response.tool_calls).await?;
        let message_id = store_assistant(t, &response.text, &calls, &extras).await?;
        if calls.is_empty() {
            return Ok(TurnOutcome::Completed);
        }
        // In the model's order, the approvals they need asked all at once.
        run_message_calls(t, message_id, &calls, cancel.clone()).await?;
        if cancel.is_cancelled() {
            return Ok(TurnOutcome::Cancelled);
        }
    }
    Ok(TurnOutcome::RoundLimit { rounds: max })
}

/// The turn with its tool set built again, after the sources had their
/// chance to bring up the servers now granted.
async fn refreshed<'a>(t: &Turn<'a>) -> Result<Turn<'a>, SessionError> {
    let store = &t.inner.store;
    let depth = t.depth;
    let grants: Vec<String> = crate::activate::granted(store, t.session_id(), t.frame_id, depth)
        .await?
        .into_iter()
        .collect();
    for s in &t.inner.sources {
        s.prepare(&grants).await;
    }
    let (tools, events) = t
        .inner
        .frame_tools(t.session, t.frame_id, depth, t.agent_id, t.workdir);
    Ok(Turn {
        inner: t.inner,
        session: t.session,
        frame_id: t.frame_id,
        agent_id: t.agent_id,
        depth,
        scope: t.scope.clone(),
        workdir: t.workdir,
        tools,
        events,
        system: t.system,
        model: t.model,
        sink: t.sink,
    })
}

/// What a round's request is built from: everything but the conversation
/// (system prompt, tools, the scratchpad block), and the frame's rows.
pub(crate) struct Draft<'a> {
    /// The request with only the scratchpad block as messages.
    pub base: ChatRequest,
    /// The frame's messages, oldest first.
    pub rows: Vec<MessageRow>,
    awaiting: HashSet<String>,
    blocks: HashMap<String, Vec<ContentBlock>>,
    policy: ImagePolicy,
    /// Shrunk images, kept across rounds (the session's).
    images: &'a crate::images::FitCache,
}

impl Draft<'_> {
    /// The request with `rows` as the conversation, after `summary` (the
    /// stand-in for what came before them) when there is one.
    pub fn build(&self, rows: &[MessageRow], summary: Option<&str>) -> ChatRequest {
        let mut request = self.base.clone();
        if let Some(text) = summary {
            request
                .messages
                .push(crate::context::summary::stand_in(text));
        }
        request.messages.extend(to_messages_awaiting(
            rows,
            &self.awaiting,
            &self.blocks,
            self.policy,
            self.images,
        ));
        request
    }
}

/// The request of this round, from the DB, every row of the frame included
/// (no context management: [`crate::context::fitted`] does that).
#[cfg(test)]
async fn assemble(t: &Turn<'_>, model: &ResolvedModel) -> Result<ChatRequest, SessionError> {
    let d = draft(t, model).await?;
    Ok(d.build(&d.rows, None))
}

/// What this round's request is made of, from the DB: system prompt, visible
/// tools, the conversation of the turn's frame.
pub(crate) async fn draft<'t>(
    t: &'t Turn<'_>,
    model: &ResolvedModel,
) -> Result<Draft<'t>, SessionError> {
    let store = &t.inner.store;
    let rows = store.history().list_for_frame(t.frame_id).await?;
    let calls = store.tool_calls().list_for_session(t.session_id()).await?;
    let awaiting: HashSet<String> = calls
        .iter()
        .filter(|r| awaits_approval(r))
        .map(|r| r.id.clone())
        .collect();
    let blocks: HashMap<String, Vec<ContentBlock>> = calls
        .iter()
        .filter(|r| r.blocks.is_some())
        .map(|r| (r.id.clone(), crate::assemble::blocks_of(r)))
        .collect();
    let config_granted = store
        .grants()
        .list_session(t.session_id())
        .await?
        .iter()
        .any(|g| g == tn::CONFIG_GROUP);
    let depth = t.depth;
    // Lazy groups: an MCP server's tools are offered only once activated
    // (`activate_tools`), for the root by the session, for a sub-agent by
    // its frame.
    let mcp_granted = crate::activate::granted(store, t.session_id(), t.frame_id, depth).await?;
    let tools: Vec<ToolDef> = t
        .tools
        .definitions(Audience {
            depth,
            config_granted: config_granted || (depth > 0 && mcp_granted.contains(tn::CONFIG_GROUP)),
        })
        .into_iter()
        .filter(|d| {
            ToolName::parse(d.name.as_str())
                .mcp_server()
                .is_none_or(|server| mcp_granted.contains(server))
        })
        .collect();
    // A tool the session's group denies by name is not offered (the lazy
    // config group included); MCP tools always are.
    let tools = t
        .inner
        .gate
        .visible_tools(t.session_id(), tools, &t.tools)
        .await;
    // The scratchpad is its own block after the static prompt (which stays
    // byte-identical, cacheable), read fresh each round so a person's edit
    // or another agent's update reaches the very next request.
    let scratchpad = store.scratchpad().entries(t.session_id()).await?;
    let mut messages = Vec::with_capacity(rows.len() + 2);
    if let Some(block) = scratchpad_block(&scratchpad) {
        messages.push(Message::system(block));
    }
    // The person may have turned images off for this model (a text-only
    // model behind a server that takes images).
    let wanted =
        crate::services::providers::send_images(store, model.provider.name(), &model.model)
            .await
            .unwrap_or(None)
            .unwrap_or(true);
    let policy = ImagePolicy {
        send: wanted && model.provider.accepts_tool_images(),
        max_bytes: model.provider.max_tool_image_bytes(),
    };
    Ok(Draft {
        base: ChatRequest {
            model: model.model.clone(),
            system: (!t.system.is_empty()).then(|| t.system.to_string()),
            messages,
            tools,
            max_tokens: None,
            temperature: None,
            reasoning: model.reasoning,
        },
        rows,
        awaiting,
        blocks,
        policy,
        images: &t.inner.images,
    })
}

/// Taps the assembled definitions for `known_tools`, grouped by source.
fn observe_offered(t: &Turn<'_>, defs: &[ToolDef]) {
    let mut by_source: std::collections::BTreeMap<String, Vec<ToolDef>> = Default::default();
    for d in defs {
        let source = t
            .tools
            .source_of(&d.name)
            .unwrap_or_else(|| skald_tools::source::BUILTIN.to_string());
        by_source.entry(source).or_default().push(d.clone());
    }
    for (source, defs) in by_source {
        drop(t.inner.discovery.observe(&defs, &source));
    }
}

/// Streams one response, emitting deltas; `/stop` drops the stream (which
/// aborts the HTTP request).
async fn stream_response(
    t: &Turn<'_>,
    model: &ResolvedModel,
    request: &ChatRequest,
    cancel: CancellationToken,
) -> Streamed {
    let mut acc = ResponseAccumulator::new();
    let mut stream = model.provider.stream(request);
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Streamed::Cancelled(acc.finish()),
            next = stream.next() => next,
        };
        match next {
            None => return Streamed::Complete(acc.finish()),
            Some(Err(e)) => return Streamed::Failed(e, acc.finish()),
            Some(Ok(event)) => {
                match &event {
                    StreamEvent::TextDelta(text) => t.emit(SessionEvent::TokenDelta {
                        session_id: t.session_id().to_string(),
                        text: text.clone(),
                    }),
                    StreamEvent::ReasoningDelta(text) => t.emit(SessionEvent::ReasoningDelta {
                        session_id: t.session_id().to_string(),
                        text: text.clone(),
                    }),
                    StreamEvent::Retrying {
                        attempt,
                        max_attempts,
                        delay_ms,
                        reason,
                        detail,
                    } => t.emit(SessionEvent::Retrying {
                        session_id: t.session_id().to_string(),
                        attempt: *attempt,
                        max_attempts: *max_attempts,
                        delay_ms: *delay_ms,
                        reason: reason.clone(),
                        detail: detail.clone(),
                    }),
                    StreamEvent::ToolCallDelta { .. }
                    | StreamEvent::Reasoning(_)
                    | StreamEvent::Usage(_)
                    | StreamEvent::Done { .. } => {}
                }
                acc.push(&event);
            }
        }
    }
}

/// Why a stopped answer is incomplete (the `MessageIncomplete` reason).
const STOPPED: &str = "stopped by the user";

/// Stores the text a response got to before it ended early, flagged
/// incomplete, and says so (`MessageIncomplete`). Nothing streamed: nothing kept.
/// Why (stopped or cut) is stored with it, apart from the turn's error,
/// which a later retry clears.
async fn keep_incomplete(
    t: &Turn<'_>,
    partial: &AssistantResponse,
    why: Incomplete,
) -> Result<(), SessionError> {
    if partial.text.is_empty() {
        return Ok(());
    }
    let reason = match &why {
        Incomplete::Stopped => STOPPED.to_string(),
        Incomplete::Cut(error) => error.clone(),
    };
    let cause = crate::assemble::cause_view(&why);
    let mut extras = extras_of(&partial.reasoning_to_keep(), partial.usage);
    extras.incomplete = Some(why);
    let id = store_assistant(t, &partial.text, &[], &extras).await?;
    t.emit(SessionEvent::MessageIncomplete {
        session_id: t.session_id().to_string(),
        message_id: id,
        reason,
        cause,
    });
    Ok(())
}

/// Gives every call an id unique in the DB: the model's when it is free,
/// a generated one when it is missing, repeated or already taken.
async fn unique_ids(t: &Turn<'_>, calls: Vec<ToolCall>) -> Result<Vec<ToolCall>, SessionError> {
    let repo = t.inner.store.tool_calls();
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(calls.len());
    for mut c in calls {
        let taken =
            c.id.trim().is_empty() || seen.contains(&c.id) || repo.get(&c.id).await?.is_some();
        if taken {
            c.id = new_tool_call_id();
        }
        seen.insert(c.id.clone());
        out.push(c);
    }
    Ok(out)
}

/// Appends the assistant message (with its reasoning and usage) and announces it.
async fn store_assistant(
    t: &Turn<'_>,
    text: &str,
    calls: &[ToolCall],
    extras: &AssistantExtras,
) -> Result<i64, SessionError> {
    // Which model wrote it, so the chat names it on the answer.
    let mut extras = extras.clone();
    if let Some(m) = t.model {
        extras.model = Some(ModelRef {
            provider: m.provider_id.clone(),
            model: m.model.clone(),
        });
    }
    let row = t
        .inner
        .store
        .history()
        .append_with(
            &NewMessage {
                session_id: t.session_id().to_string(),
                stack_id: Some(t.frame_id),
                role: Role::Assistant,
                content: text.to_string(),
                tool_calls: tool_calls_json(calls),
                tool_call_id: None,
            },
            &extras,
        )
        .await?;
    t.emit(SessionEvent::AssistantMessage {
        session_id: t.session_id().to_string(),
        message_id: row.id,
        text: text.to_string(),
    });
    Ok(row.id)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use skald_llm::{FakeProvider, LlmProvider, Message};
    use skald_store::{FrameStatus, NewStackFrame, Store};
    use skald_tools::{BuiltinDeps, builtin_registry};

    use super::assemble;
    use crate::{ChatSessionHandler, FixedProvider, NullSink, SessionParams};

    /// A sub-agent's frame (depth 1, as issue 13 will run them) assembles
    /// its request with the same scratchpad block, and the person's edit
    /// reaches its next request as it reaches the root's.
    #[tokio::test]
    async fn a_sub_agent_frame_gets_the_scratchpad_block_and_the_persons_edit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("agents/main")).unwrap();
        std::fs::write(root.join("agents/main/AGENT.md"), "Static prompt.").unwrap();
        let store = Store::open(&root.join("data")).await.unwrap();
        let provider: Arc<dyn LlmProvider> = Arc::new(FakeProvider::new([]));
        let h = ChatSessionHandler::new(
            store.clone(),
            Arc::new(builtin_registry(&BuiltinDeps::default())),
            Arc::new(FixedProvider::new(provider, "m")),
            root.join("agents"),
        );
        let sid = h
            .create_session(SessionParams {
                working_dir: Some(root.clone()),
                ..SessionParams::default()
            })
            .await
            .unwrap()
            .id;
        h.set_scratchpad_entry(&sid, "plan", "root wrote this")
            .await
            .unwrap();
        let mut p = h.prepare(&sid, None).await.unwrap();
        let sub = store
            .stack()
            .push(&NewStackFrame {
                session_id: sid.clone(),
                parent_id: Some(p.frame.id),
                agent_id: "helper".into(),
                task: Some("help".into()),
                status: FrameStatus::Active,
            })
            .await
            .unwrap();
        assert_eq!(sub.depth, 1);
        p.frame = sub;
        let block = |req: &skald_llm::ChatRequest| match req.messages.first() {
            Some(Message::System { content }) => content.clone(),
            other => panic!("no scratchpad block: {other:?}"),
        };
        let sink = NullSink;
        let t = h.turn(&p, &sink);
        let req = assemble(&t, &p.model).await.unwrap();
        // The agent's prompt, then where it runs; the scratchpad stays apart.
        let system = req.system.as_deref().unwrap();
        assert!(
            system.starts_with("Static prompt.\n\n<environment>\n"),
            "{system}"
        );
        assert!(!system.contains("root wrote this"), "{system}");
        assert!(block(&req).contains("## plan\nroot wrote this"));
        // The sub-agent is offered the companion tools, not the root-only one.
        let names: Vec<String> = req.tools.iter().map(|d| d.name.clone()).collect();
        assert!(names.contains(&"update_scratchpad".to_string()));
        assert!(!names.contains(&"read_notification".to_string()));

        h.set_scratchpad_entry(&sid, "plan", "the person edited it")
            .await
            .unwrap();
        let req = assemble(&t, &p.model).await.unwrap();
        assert!(block(&req).contains("## plan\nthe person edited it"));
    }
}
