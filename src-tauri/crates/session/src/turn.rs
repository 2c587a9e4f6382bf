//! The LLM loop of one turn: assemble the request from the DB, stream the
//! answer raced against the turn's token, store the assistant message, run
//! its tool calls in order, and go round again until the model answers
//! without tools or the round limit is reached.
//!
//! The turn's [`CancellationToken`] is taken by value and handed down by
//! value; `/stop` cancels it and every await point here races it.

use std::collections::HashSet;
use std::path::Path;

use futures_util::StreamExt;
use serde_json::Value;
use skald_core_api::CancellationToken;
use skald_core_api::{ToolDef, ToolName};
use skald_llm::{
    AssistantResponse, ChatRequest, LlmError, ResponseAccumulator, StreamEvent, ToolCall,
};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_store::{NewMessage, Role, SessionRow};
use skald_tools::tool_names as tn;
use skald_tools::{Audience, ToolSet};

use crate::approval::awaits_approval;
use crate::assemble::{to_messages_awaiting, tool_calls_json};
use crate::calls::{run_call, skip_cancelled};
use crate::error::SessionError;
use crate::events::EventSink;
use crate::handler::Inner;
use crate::ids::new_tool_call_id;
use crate::provider::ResolvedModel;

/// One turn's context, borrowed for its duration.
pub(crate) struct Turn<'a> {
    pub inner: &'a Inner,
    pub session: &'a SessionRow,
    pub frame_id: i64,
    pub workdir: &'a Path,
    /// The tools of this turn's frame: what is offered and what runs.
    pub tools: ToolSet,
    pub system: &'a str,
    /// `None` when only resuming tools (no LLM round).
    pub model: Option<&'a ResolvedModel>,
    pub sink: &'a dyn EventSink,
}

impl Turn<'_> {
    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// To the starter's sink and the session-wide bus.
    pub fn emit(&self, event: SessionEvent) {
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
        let request = assemble(t, model).await?;
        // Recorded off the critical path, each under its own source; only
        // new names reach the DB.
        observe_offered(t, &request.tools);

        let response = match stream_response(t, model, &request, cancel.clone()).await {
            Streamed::Complete(r) => r,
            Streamed::Cancelled(partial) => {
                if !partial.text.is_empty() {
                    store_assistant(t, &partial.text, &[]).await?;
                }
                return Ok(TurnOutcome::Cancelled);
            }
            Streamed::Failed(e, partial) => {
                if !partial.text.is_empty() {
                    store_assistant(t, &partial.text, &[]).await?;
                }
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
            });
        }
        let calls = unique_ids(t, response.tool_calls).await?;
        let message_id = store_assistant(t, &response.text, &calls).await?;
        if calls.is_empty() {
            return Ok(TurnOutcome::Completed);
        }
        // In order; once stopped, the rest are recorded cancelled, unrun.
        for call in &calls {
            if cancel.is_cancelled() {
                skip_cancelled(t, message_id, call).await?;
                continue;
            }
            run_call(t, message_id, call, cancel.clone()).await?;
        }
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
    let depth = store
        .stack()
        .get(t.frame_id)
        .await?
        .map_or(0, |f| crate::handler::frame_depth(&f));
    let grants: Vec<String> = crate::activate::granted(store, t.session_id(), t.frame_id, depth)
        .await?
        .into_iter()
        .collect();
    for s in &t.inner.sources {
        s.prepare(&grants).await;
    }
    Ok(Turn {
        inner: t.inner,
        session: t.session,
        frame_id: t.frame_id,
        workdir: t.workdir,
        tools: t.inner.toolset(t.session, t.frame_id, depth, t.workdir),
        system: t.system,
        model: t.model,
        sink: t.sink,
    })
}

/// The request of this round, from the DB: system prompt, visible tools,
/// the conversation of the root frame.
async fn assemble(t: &Turn<'_>, model: &ResolvedModel) -> Result<ChatRequest, SessionError> {
    let store = &t.inner.store;
    let rows = store.history().list_for_frame(t.frame_id).await?;
    let awaiting: HashSet<String> = store
        .tool_calls()
        .list_for_session(t.session_id())
        .await?
        .into_iter()
        .filter(awaits_approval)
        .map(|r| r.id)
        .collect();
    let config_granted = store
        .grants()
        .list_session(t.session_id())
        .await?
        .iter()
        .any(|g| g == tn::CONFIG_GROUP);
    let depth = store
        .stack()
        .get(t.frame_id)
        .await?
        .map_or(0, |f| crate::handler::frame_depth(&f));
    // Lazy groups: an MCP server's tools are offered only once activated
    // (`activate_tools`), for the root by the session, for a sub-agent by
    // its frame.
    let mcp_granted = crate::activate::granted(store, t.session_id(), t.frame_id, depth).await?;
    let tools: Vec<Value> = t
        .tools
        .definitions(Audience {
            depth,
            config_granted: config_granted || (depth > 0 && mcp_granted.contains(tn::CONFIG_GROUP)),
        })
        .iter()
        .filter(|d| {
            ToolName::parse(d.name.as_str())
                .mcp_server()
                .is_none_or(|server| mcp_granted.contains(server))
        })
        .map(ToolDef::to_openai)
        .collect();
    // A tool the session's group denies by name is not offered (the lazy
    // config group included); MCP tools always are.
    let tools = t.inner.gate.visible_tools(t.session_id(), tools).await;
    Ok(ChatRequest {
        model: model.model.clone(),
        system: (!t.system.is_empty()).then(|| t.system.to_string()),
        messages: to_messages_awaiting(&rows, &awaiting),
        tools,
        max_tokens: None,
        temperature: None,
    })
}

/// Taps the assembled definitions for `known_tools`, grouped by source.
fn observe_offered(t: &Turn<'_>, defs: &[Value]) {
    let mut by_source: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for d in defs {
        let source = ToolDef::from_openai(d)
            .and_then(|def| t.tools.source_of(&def.name))
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
                    StreamEvent::ToolCallDelta { .. }
                    | StreamEvent::Usage(_)
                    | StreamEvent::Done { .. } => {}
                }
                acc.push(&event);
            }
        }
    }
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

/// Appends the assistant message and announces it.
async fn store_assistant(
    t: &Turn<'_>,
    text: &str,
    calls: &[ToolCall],
) -> Result<i64, SessionError> {
    let row = t
        .inner
        .store
        .history()
        .append(&NewMessage {
            session_id: t.session_id().to_string(),
            stack_id: Some(t.frame_id),
            role: Role::Assistant,
            content: text.to_string(),
            tool_calls: tool_calls_json(calls),
            tool_call_id: None,
        })
        .await?;
    t.emit(SessionEvent::AssistantMessage {
        session_id: t.session_id().to_string(),
        message_id: row.id,
        text: text.to_string(),
    });
    Ok(row.id)
}
