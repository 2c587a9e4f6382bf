//! One tool call, from the model's intent to its recorded result:
//! `chat_llm_tools` row (effective arguments) → `ToolStart` → approval gate
//! (row `pending` while a person decides) → `drive_execution` → row
//! finished → `tool` history message → `ToolDone`/`ToolError`/
//! `ToolCancelled`/`ToolRejected`. Every state change is written when it
//! happens, before the event that announces it.
//!
//! The live loop and crash resume share [`execute`] and [`record`].

use futures_util::StreamExt;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, CallRoute, CancellationToken, ContentBlock, ExecutionOutcome, ToolDescriptionLength,
    ToolOutput, ToolProgress, drive_with_progress,
};
use skald_llm::ToolCall;
use skald_protocol::{SessionEvent, WritePreview};
use skald_store::{NewMessage, NewToolCall, Role, ToolCallStatus};

use crate::assemble::view;
use crate::error::SessionError;
use crate::gate::{CallTool, GateCall, GateDecision, PendingApproval, Verdict};
use crate::ids::new_tool_call_id;
use crate::notes;
use crate::turn::Turn;
use skald_tools::Audience;
use skald_tools::fs::with_display_base;

/// How a call ended, as the model will be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The text and content blocks of the result.
    Done(ToolOutput),
    /// The error, without the `Error: ` prefix.
    Failed(String),
    /// The note the model reads.
    Cancelled(&'static str),
    /// The reason.
    Rejected(String),
    /// Rejected by the person, with their note.
    UserRejected(Option<String>),
}

/// A call's arguments, read for running.
pub(crate) enum Args {
    Ok(Value),
    Malformed(String),
}

fn parse_args(raw: &str) -> Args {
    if raw.trim().is_empty() {
        return Args::Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => Args::Ok(v),
        Err(e) => Args::Malformed(e.to_string()),
    }
}

/// The names the model may call, for the unknown-tool message.
fn available(t: &Turn<'_>) -> Vec<String> {
    t.tools
        .definitions(Audience::default())
        .into_iter()
        .map(|d| d.name)
        .collect()
}

/// Runs one call of an assistant message and records everything about it.
pub(crate) async fn run_call(
    t: &Turn<'_>,
    message_id: i64,
    call: &ToolCall,
    cancel: CancellationToken,
) -> Result<(), SessionError> {
    let started = start_call(t, message_id, call).await?;
    let outcome = settle(t, &started, cancel).await?;
    record(t, &started.id, outcome).await
}

/// Calls that may run side by side (sync sub-agents): every row and card
/// first, in order; then at most `max_parallel_tasks` at once; then every
/// result recorded in call order, whichever finished first.
pub(crate) fn run_calls_together<'a>(
    t: &'a Turn<'a>,
    message_id: i64,
    calls: &'a [ToolCall],
    cancel: CancellationToken,
) -> BoxFuture<'a, Result<(), SessionError>> {
    // Boxed: a call may start a background task whose turn runs calls
    // again (a recursive future).
    Box::pin(run_calls_together_inner(t, message_id, calls, cancel))
}

async fn run_calls_together_inner(
    t: &Turn<'_>,
    message_id: i64,
    calls: &[ToolCall],
    cancel: CancellationToken,
) -> Result<(), SessionError> {
    let mut started = Vec::with_capacity(calls.len());
    for call in calls {
        started.push(start_call(t, message_id, call).await?);
    }
    let at_once = t.inner.config.max_parallel_tasks.max(1);
    // Boxed one by one: a closure over `started` in the stream would make
    // the turn's future lose `Send` for higher-ranked lifetimes.
    let mut settles: Vec<BoxFuture<'_, Result<Outcome, SessionError>>> = Vec::new();
    for s in &started {
        settles.push(Box::pin(settle(t, s, cancel.clone())));
    }
    let outcomes: Vec<Result<Outcome, SessionError>> = futures_util::stream::iter(settles)
        .buffered(at_once)
        .collect()
        .await;
    let mut first_error = None;
    for (s, outcome) in started.iter().zip(outcomes) {
        match outcome {
            Ok(o) => record(t, &s.id, o).await?,
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A call whose row and card exist, about to be settled.
pub(crate) struct Started {
    pub id: String,
    pub name: String,
    known: bool,
    args: Args,
}

impl Started {
    /// The arguments the call runs with, when it can run at all (a known
    /// tool, well-formed arguments).
    pub fn runnable_args(&self) -> Option<&Value> {
        match &self.args {
            Args::Ok(v) if self.known => Some(v),
            _ => None,
        }
    }
}

/// Inserts the call's row (effective arguments) and emits its card.
pub(crate) async fn start_call(
    t: &Turn<'_>,
    message_id: i64,
    call: &ToolCall,
) -> Result<Started, SessionError> {
    let tools = &t.tools;
    let known = tools.contains(&call.name);
    let (args, arguments_text) = match parse_args(&call.arguments) {
        Args::Ok(v) => {
            let v = tools.effective_args(&call.name, v, t.workdir);
            let text = v.to_string();
            (Args::Ok(v), text)
        }
        m @ Args::Malformed(_) => (m, call.arguments.clone()),
    };
    let id = insert_row(t, message_id, &call.id, &call.name, &arguments_text).await?;
    let shown = match &args {
        Args::Ok(v) => v.clone(),
        Args::Malformed(_) => Value::String(call.arguments.clone()),
    };
    emit_start(t, &id, &call.name, shown);
    Ok(Started {
        id,
        name: call.name.clone(),
        known,
        args,
    })
}

/// How a started call ends (nothing recorded yet).
pub(crate) async fn settle(
    t: &Turn<'_>,
    s: &Started,
    cancel: CancellationToken,
) -> Result<Outcome, SessionError> {
    Ok(match &s.args {
        _ if !s.known => Outcome::Failed(notes::unknown_tool(&s.name, &available(t))),
        Args::Malformed(e) => Outcome::Failed(notes::malformed_arguments(&s.name, e)),
        Args::Ok(v) => execute(t, &s.id, &s.name, v.clone(), cancel).await?,
    })
}

/// A later call of a response the user stopped: recorded as cancelled
/// without running, so history stays valid.
pub(crate) async fn skip_cancelled(
    t: &Turn<'_>,
    message_id: i64,
    call: &ToolCall,
) -> Result<(), SessionError> {
    skip(t, message_id, call, notes::CANCELLED_BEFORE_START).await
}

/// Records a call that will not run, with `note` as its result.
pub(crate) async fn skip(
    t: &Turn<'_>,
    message_id: i64,
    call: &ToolCall,
    note: &'static str,
) -> Result<(), SessionError> {
    let id = insert_row(t, message_id, &call.id, &call.name, &call.arguments).await?;
    let shown = match parse_args(&call.arguments) {
        Args::Ok(v) => v,
        Args::Malformed(_) => Value::String(call.arguments.clone()),
    };
    emit_start(t, &id, &call.name, shown);
    record(t, &id, Outcome::Cancelled(note)).await
}

/// Inserts the call's row and returns its id. The id was checked free when
/// the message was stored, but another process sharing the database may
/// have taken it since (ids are unique across sessions): then the call gets
/// a fresh id, renamed in its assistant message too, so the call, its row
/// and its result always agree and the session stays usable.
async fn insert_row(
    t: &Turn<'_>,
    message_id: i64,
    id: &str,
    name: &str,
    arguments: &str,
) -> Result<String, SessionError> {
    let store = &t.inner.store;
    let mut id = id.to_string();
    for _ in 0..8 {
        let inserted = store
            .tool_calls()
            .insert(&NewToolCall {
                id: id.clone(),
                session_id: t.session_id().to_string(),
                message_id: Some(message_id),
                name: name.to_string(),
                arguments: arguments.to_string(),
                status: ToolCallStatus::Running,
            })
            .await;
        match inserted {
            Ok(()) => return Ok(id),
            Err(e) if e.is_unique_violation() => {
                let fresh = new_tool_call_id();
                store
                    .history()
                    .rename_tool_call(message_id, &id, &fresh)
                    .await?;
                id = fresh;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(SessionError::Store(skald_store::StoreError::Invalid(
        format!("no free id for the call to {name}"),
    )))
}

/// `ToolStart` with the card of a call about to run.
pub(crate) fn emit_start(t: &Turn<'_>, id: &str, name: &str, arguments: Value) {
    t.emit(SessionEvent::ToolStart {
        session_id: t.session_id().to_string(),
        call: with_display_base(Some(t.workdir), || {
            view(&t.tools, id, name, arguments, ToolCallStatus::Running, None)
        }),
    });
}

/// The argument check, the gate, then the execution, raced against `cancel`
/// throughout.
pub(crate) async fn execute(
    t: &Turn<'_>,
    id: &str,
    name: &str,
    args: Value,
    cancel: CancellationToken,
) -> Result<Outcome, SessionError> {
    let tools = &t.tools;
    // Badly formed arguments fail at once: nobody is asked to approve a call
    // that cannot run.
    if tools.contains(name)
        && let Err(e) = tools.check_args(name, &args)
    {
        return Ok(Outcome::Failed(e.to_string()));
    }
    let gate_call = gate_call_of(t, id, name, args);
    let decision = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Ok(Outcome::Cancelled(notes::CANCELLED)),
        d = t.inner.gate.check(&gate_call) => d,
    };
    match decision {
        GateDecision::Allow { reason } => {
            let preview = keep_preview(t, &gate_call).await;
            if let Some(reason) = reason {
                emit_allowed(t, id, reason, preview);
            }
        }
        GateDecision::Reject { reason } => {
            t.inner
                .store
                .tool_calls()
                .set_decision(id, Some(DECISION_REJECTED), Some(&reason))
                .await?;
            return Ok(Outcome::Rejected(reason));
        }
        GateDecision::Ask(pending) => {
            let answer = ask(t, id, pending).await?;
            let verdict = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Ok(Outcome::Cancelled(notes::CANCELLED)),
                v = answer => v,
            };
            if let Some(outcome) = apply_verdict(t, id, verdict).await? {
                return Ok(outcome);
            }
        }
    }
    execute_allowed(t, id, name, gate_call.arguments, cancel).await
}

/// What the gate is asked about a call, labelled by the round's tool.
pub(crate) fn gate_call_of(t: &Turn<'_>, id: &str, name: &str, args: Value) -> GateCall {
    let tools = &t.tools;
    let (label_short, label_full) = with_display_base(Some(t.workdir), || {
        (
            tools.describe_call(name, &args, ToolDescriptionLength::Short),
            tools.describe_call(name, &args, ToolDescriptionLength::Full),
        )
    });
    GateCall {
        session_id: t.session_id().to_string(),
        agent_id: t.agent_id.to_string(),
        tool_call_id: id.to_string(),
        name: name.to_string(),
        category: tools.category_of(name),
        source: tools.source_of(name),
        path: tools.target_path(name, &args),
        traits: tools.traits_of(name),
        presentation: tools.presentation_of(name),
        label_short,
        label_full,
        arguments: args,
        working_dir: t.workdir.to_path_buf(),
        tool: tools.get(name).cloned().map(CallTool),
    }
}

/// Puts a call the gate asks about before the person: the row `pending`,
/// the watchers told, `ApprovalRequired` emitted. Returns the answer to wait for.
pub(crate) async fn ask(
    t: &Turn<'_>,
    id: &str,
    pending: PendingApproval,
) -> Result<BoxFuture<'static, Verdict>, SessionError> {
    let (answer, request) = pending.into_parts();
    t.inner
        .store
        .tool_calls()
        .set_status(id, ToolCallStatus::Pending)
        .await?;
    t.inner.gate.waiting_changed();
    if let Some(request) = request {
        t.emit(SessionEvent::ApprovalRequired {
            session_id: t.session_id().to_string(),
            request,
        });
    }
    Ok(answer)
}

/// A write the gate let through without asking keeps the diff it makes on
/// its card (bounded: a large file's is cut to the changed lines); a write
/// that asked stored its whole preview for the person already. Returns
/// what was kept, for the card.
pub(crate) async fn keep_preview(t: &Turn<'_>, call: &GateCall) -> Option<WritePreview> {
    let tool = call.tool.as_ref().filter(|_| call.traits.writes_files)?;
    let p = skald_approval::predict_write(tool.0.as_ref(), &call.arguments)?;
    if p.old.is_none() && p.new.is_none() {
        return None;
    }
    let kept = skald_approval::kept_preview(p.old, p.new);
    let repo = t.inner.store.tool_calls();
    let id = &call.tool_call_id;
    let stored = match repo
        .set_previews(id, kept.old.as_deref(), kept.new.as_deref())
        .await
    {
        Ok(()) if kept.note.is_some() => repo.set_preview_note(id, kept.note.as_deref()).await,
        other => other,
    };
    if let Err(e) = stored {
        tracing::warn!(error = %e, "cannot store the write previews");
    }
    Some(WritePreview {
        old_content: kept.old,
        new_content: kept.new,
        note: kept.note,
    })
}

/// Runs a call the gate let through, the way its tool declares.
pub(crate) async fn execute_allowed(
    t: &Turn<'_>,
    id: &str,
    name: &str,
    args: Value,
    cancel: CancellationToken,
) -> Result<Outcome, SessionError> {
    // The tool declares how it runs: a sync sub-agent in a child frame of
    // this turn (its events, its Stop, its crash resume belong to the
    // session), a background task or cron job started with its id as the
    // result at once, or a bare execution.
    match t.tools.route_of(name, &args) {
        CallRoute::SyncSubAgent => {
            return crate::subagent::run_sync(t, id, args, cancel).await;
        }
        CallRoute::BackgroundTask => {
            return crate::tasks::start_from_call(t, id, name, args).await;
        }
        CallRoute::Execute => {}
    }
    Ok(run_tool(t, id, name, args, cancel).await)
}

/// The stored (and shown) reason of a call a person approved.
const APPROVED_BY_USER: &str = "approved by the user";

/// `ToolAllowed`: why the card's call may run.
pub(crate) fn emit_allowed(
    t: &Turn<'_>,
    id: &str,
    reason: String,
    write_preview: Option<WritePreview>,
) {
    t.emit(SessionEvent::ToolAllowed {
        session_id: t.session_id().to_string(),
        tool_call_id: id.to_string(),
        reason,
        write_preview,
    });
}

/// `chat_llm_tools.decision` once a person approved.
pub(crate) const DECISION_APPROVED: &str = "approved";
/// `chat_llm_tools.decision` once rejected (by policy or a person).
pub(crate) const DECISION_REJECTED: &str = "rejected";

/// Records a person's (or a late rule's) answer. `None`: approved, run it.
pub(crate) async fn apply_verdict(
    t: &Turn<'_>,
    id: &str,
    verdict: Verdict,
) -> Result<Option<Outcome>, SessionError> {
    let repo = t.inner.store.tool_calls();
    Ok(match verdict {
        Verdict::Allow => {
            repo.set_decision(id, Some(DECISION_APPROVED), Some(APPROVED_BY_USER))
                .await?;
            repo.set_status(id, ToolCallStatus::Running).await?;
            t.inner.gate.waiting_changed();
            emit_allowed(t, id, APPROVED_BY_USER.to_string(), None);
            None
        }
        Verdict::Allowed { reason } => {
            repo.set_decision(id, Some(crate::approval::DECISION_ALLOW), Some(&reason))
                .await?;
            repo.set_status(id, ToolCallStatus::Running).await?;
            t.inner.gate.waiting_changed();
            emit_allowed(t, id, reason, None);
            None
        }
        Verdict::Reject { reason } => {
            repo.set_decision(id, Some(DECISION_REJECTED), Some(&reason))
                .await?;
            Some(Outcome::Rejected(reason))
        }
        Verdict::UserReject { note } => {
            let note = note.filter(|n| !n.trim().is_empty());
            let reason = note.as_deref().unwrap_or("rejected by the user");
            repo.set_decision(id, Some(DECISION_REJECTED), Some(reason))
                .await?;
            Some(Outcome::UserRejected(note))
        }
    })
}

/// Runs an allowed call through the round's tool set, stoppable by `cancel`.
pub(crate) async fn run_tool(
    t: &Turn<'_>,
    id: &str,
    name: &str,
    args: Value,
    cancel: CancellationToken,
) -> Outcome {
    let Some(exec) = t.tools.run(name, args) else {
        return Outcome::Failed(notes::unknown_tool(name, &available(t)));
    };
    // A tool that keys state by its call (a question) reads the id here.
    let driven = skald_core_api::scope_call(
        id.to_string(),
        drive_with_progress(exec.as_ref(), cancel, |p| emit_progress(t, id, p)),
    );
    match driven.await {
        ExecutionOutcome::Completed(out) => Outcome::Done(out),
        ExecutionOutcome::Failed(e) => Outcome::Failed(e.to_string()),
        ExecutionOutcome::Cancelled => Outcome::Cancelled(notes::CANCELLED),
    }
}

/// `ToolProgress`: what a running call produced so far.
fn emit_progress(t: &Turn<'_>, id: &str, p: &ToolProgress) {
    t.emit(SessionEvent::ToolProgress {
        session_id: t.session_id().to_string(),
        tool_call_id: id.to_string(),
        output: p.output.clone(),
        output_bytes: p.output_bytes,
        message: p.message.clone(),
        progress: p.progress,
        total: p.total,
    });
}

/// The `tool` history message of a result: its text and a note for each
/// block but images (images go to the model from the call's row, as its
/// provider accepts them: see `assemble::to_messages_awaiting`).
pub(crate) fn history_text(text: &str, blocks: &[ContentBlock]) -> String {
    ToolOutput {
        text: text.to_string(),
        blocks: blocks.to_vec(),
    }
    .text_for_model(true)
}

/// Finishes the row, appends the `tool` message, emits the event.
pub(crate) async fn record(t: &Turn<'_>, id: &str, outcome: Outcome) -> Result<(), SessionError> {
    let store = &t.inner.store;
    let (status, content) = match &outcome {
        Outcome::Done(out) => {
            if !out.blocks.is_empty() {
                let json = serde_json::to_string(&out.blocks).ok();
                store.tool_calls().set_blocks(id, json.as_deref()).await?;
            }
            (ToolCallStatus::Done, out.text.clone())
        }
        Outcome::Failed(e) => (ToolCallStatus::Failed, notes::error(e)),
        Outcome::Cancelled(note) => (ToolCallStatus::Cancelled, (*note).to_string()),
        Outcome::Rejected(reason) => (ToolCallStatus::Rejected, notes::rejected(reason)),
        Outcome::UserRejected(note) => (
            ToolCallStatus::Rejected,
            notes::user_rejected(note.as_deref()),
        ),
    };
    let history = match &outcome {
        Outcome::Done(out) => history_text(&out.text, &out.blocks),
        _ => content.clone(),
    };
    // The row's end and the model's copy of the result in one request.
    store
        .tool_calls()
        .finish_with_message(
            id,
            status,
            Some(&content),
            None,
            &result_message(t, id, history),
        )
        .await?;
    if matches!(status, ToolCallStatus::Cancelled | ToolCallStatus::Rejected) {
        // It may have been waiting for a person; now it is not.
        t.inner.gate.waiting_changed();
    }
    let content_for_event = content;
    let session_id = t.session_id().to_string();
    let tool_call_id = id.to_string();
    t.emit(match outcome {
        Outcome::Done(out) => SessionEvent::ToolDone {
            session_id,
            tool_call_id,
            result: out.text,
            blocks: out.blocks,
        },
        Outcome::Failed(error) => SessionEvent::ToolError {
            session_id,
            tool_call_id,
            error,
        },
        Outcome::Cancelled(note) => SessionEvent::ToolCancelled {
            session_id,
            tool_call_id,
            reason: note.to_string(),
        },
        Outcome::Rejected(reason) => SessionEvent::ToolRejected {
            session_id,
            tool_call_id,
            reason,
        },
        Outcome::UserRejected(_) => SessionEvent::ToolRejected {
            session_id,
            tool_call_id,
            reason: content_for_event,
        },
    });
    Ok(())
}

/// Appends the `tool` message answering call `id`.
pub(crate) async fn append_result(
    t: &Turn<'_>,
    id: &str,
    content: String,
) -> Result<(), SessionError> {
    t.inner
        .store
        .history()
        .append(&result_message(t, id, content))
        .await?;
    Ok(())
}

/// The tool message carrying call `id`'s result in `t`'s frame.
fn result_message(t: &Turn<'_>, id: &str, content: String) -> NewMessage {
    NewMessage {
        session_id: t.session_id().to_string(),
        stack_id: Some(t.frame_id),
        role: Role::Tool,
        content,
        tool_calls: None,
        tool_call_id: Some(id.to_string()),
    }
}
