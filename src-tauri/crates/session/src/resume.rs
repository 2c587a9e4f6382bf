//! `resume_pending_tools`: after a crash (or before any turn), make the
//! session consistent again from what is on disk.
//!
//! For every tool call of every assistant message, in order, that has no
//! `tool` message yet:
//! - a finished row gets its result appended (failed → `Error: …`,
//!   cancelled/rejected → their note);
//! - a row left `running`/`pending` is re-run from intent when its tool's
//!   restart hint is `Rerun`; otherwise (`Reask`, or a tool no longer
//!   registered) it is recorded `cancelled` as interrupted — never run twice;
//! - a call with no row at all (the crash came before it started) is
//!   recorded `cancelled` as not started.
//!
//! A row waiting for a person's approval (`pending`, decision `require`) is
//! left untouched: it is the Agent Inbox's truth, answered with
//! `ChatSessionHandler::approve` / `reject`, even after a restart.
//!
//! Rows still unfinished that no assistant message mentions are closed as
//! interrupted. Nothing here calls the LLM; the caller decides whether the
//! cut-short turn is answered ([`ResumeReport::needs_answer`]).

use std::collections::{HashMap, HashSet};

use skald_core_api::{CallRoute, CancellationToken, RestartHint};
use skald_store::{Role, ToolCallRow, ToolCallStatus};

use crate::approval::awaits_approval;
use crate::assemble::{arguments_value, tool_calls_of};
use crate::calls::{Outcome, append_result, emit_start, execute, history_text, record, skip};
use crate::error::SessionError;
use crate::notes;
use crate::subagent::run_sync;
use crate::turn::Turn;

/// What resuming a session did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumeReport {
    /// Calls re-run from intent (restart hint `Rerun`).
    pub rerun: Vec<String>,
    /// Calls recorded as interrupted, not re-run (`Reask` or unknown tools).
    pub interrupted: Vec<String>,
    /// Calls that never started, recorded as not run.
    pub not_started: Vec<String>,
    /// Finished calls whose missing `tool` message was appended.
    pub repaired: Vec<String>,
    /// Sync sub-agent calls whose frame was continued (or started).
    pub sub_agents: Vec<String>,
    /// Sync sub-agent calls left for a turn with a model to continue.
    pub deferred: Vec<String>,
    /// The conversation ends with a user message or tool results: the turn
    /// that was cut short has not been answered.
    pub needs_answer: bool,
}

impl ResumeReport {
    /// Whether anything had to be done.
    pub fn is_empty(&self) -> bool {
        self.rerun.is_empty()
            && self.interrupted.is_empty()
            && self.not_started.is_empty()
            && self.repaired.is_empty()
            && self.sub_agents.is_empty()
            && self.deferred.is_empty()
    }
}

pub(crate) async fn resume_session(
    t: &Turn<'_>,
    cancel: CancellationToken,
) -> Result<ResumeReport, SessionError> {
    let store = &t.inner.store;
    let sid = t.session_id();
    // Only this frame's conversation: a sub-agent's frame is resumed by the
    // call that started it. The root frame also owns messages stored
    // without a frame.
    let root = t.scope.is_none();
    let history: Vec<_> = store
        .history()
        .list_for_session(sid)
        .await?
        .into_iter()
        .filter(|m| m.stack_id == Some(t.frame_id) || (root && m.stack_id.is_none()))
        .collect();
    let own: HashSet<i64> = history.iter().map(|m| m.id).collect();
    let mut rows: HashMap<String, ToolCallRow> = store
        .tool_calls()
        .list_for_session(sid)
        .await?
        .into_iter()
        .filter(|r| match r.message_id {
            Some(m) => own.contains(&m),
            None => root,
        })
        .map(|r| (r.id.clone(), r))
        .collect();
    let answered: HashMap<&str, &str> = history
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| Some((m.tool_call_id.as_deref()?, m.content.as_str())))
        .collect();
    let mut report = ResumeReport::default();
    let mut appended = false;
    let mut mentioned = HashSet::new();

    for msg in history.iter().filter(|m| m.role == Role::Assistant) {
        for call in tool_calls_of(msg) {
            mentioned.insert(call.id.clone());
            let row = rows.remove(&call.id);
            if let Some(content) = answered.get(call.id.as_str()) {
                // Answered, but the row was never closed: close it as told.
                if let Some(row) = row.filter(|r| !r.status.is_terminal()) {
                    let status = if content.starts_with("Error:") {
                        ToolCallStatus::Failed
                    } else {
                        ToolCallStatus::Done
                    };
                    store
                        .tool_calls()
                        .finish(&row.id, status, Some(content), None)
                        .await?;
                }
                continue;
            }
            // Waiting for a person (the Inbox): left as it is.
            if row.as_ref().is_some_and(awaits_approval) {
                continue;
            }
            // A sync sub-agent: its frame continues from its own history
            // (or starts, if the crash came before it did) — but only in a
            // turn with a model; otherwise it waits for one.
            if let Some(row) = row.as_ref().filter(|r| !r.status.is_terminal())
                && t.tools
                    .route_of(&row.name, &arguments_value(&row.arguments))
                    == CallRoute::SyncSubAgent
            {
                // No model to run it with, or its sub-agent waits for a
                // person (the Inbox continues it): it waits too.
                if t.model.is_none() || sub_agent_awaits_approval(t, &row.id).await? {
                    report.deferred.push(row.id.clone());
                    continue;
                }
                appended = true;
                emit_start(t, &row.id, &row.name, arguments_value(&row.arguments));
                report.sub_agents.push(row.id.clone());
                let outcome =
                    run_sync(t, &row.id, arguments_value(&row.arguments), cancel.clone()).await?;
                record(t, &row.id, outcome).await?;
                continue;
            }
            appended = true;
            match row {
                Some(row) if row.status.is_terminal() => {
                    let content = match (&row.result, row.status) {
                        (Some(text), ToolCallStatus::Done) => {
                            history_text(text, &crate::assemble::blocks_of(&row))
                        }
                        (Some(text), _) => text.clone(),
                        (None, status) => note_for(status),
                    };
                    append_result(t, &row.id, content).await?;
                    report.repaired.push(row.id);
                }
                Some(row) => {
                    let outcome = resume_row(t, &row, cancel.clone(), &mut report).await?;
                    record(t, &row.id, outcome).await?;
                }
                None => {
                    skip(t, msg.id, &call, notes::NOT_STARTED).await?;
                    report.not_started.push(call.id.clone());
                }
            }
        }
    }

    // Unfinished rows no assistant message mentions: close them, no message.
    for row in rows.into_values() {
        if !row.status.is_terminal() && !mentioned.contains(&row.id) && !awaits_approval(&row) {
            store
                .tool_calls()
                .finish(
                    &row.id,
                    ToolCallStatus::Cancelled,
                    Some(notes::INTERRUPTED),
                    None,
                )
                .await?;
            report.interrupted.push(row.id);
        }
    }

    report.needs_answer = appended
        || matches!(
            history.last().map(|m| m.role),
            Some(Role::User | Role::Tool)
        );
    if !report.is_empty() {
        tracing::info!(session = %sid, ?report, "resumed pending tool calls");
    }
    Ok(report)
}

/// Whether the sub-agent that call `call_id` started (at any depth below)
/// has a call waiting for a person.
async fn sub_agent_awaits_approval(t: &Turn<'_>, call_id: &str) -> Result<bool, SessionError> {
    let store = &t.inner.store;
    let Some(frame) = store.stack().for_call(call_id).await? else {
        return Ok(false);
    };
    let frames = store.stack().list_for_session(t.session_id()).await?;
    // The frame and every frame below it.
    let mut below = vec![frame.id];
    let mut i = 0;
    while i < below.len() {
        let parent = below[i];
        below.extend(
            frames
                .iter()
                .filter(|f| f.parent_id == Some(parent))
                .map(|f| f.id),
        );
        i += 1;
    }
    let messages: HashSet<i64> = store
        .history()
        .list_for_session(t.session_id())
        .await?
        .into_iter()
        .filter(|m| m.stack_id.is_some_and(|s| below.contains(&s)))
        .map(|m| m.id)
        .collect();
    Ok(store
        .tool_calls()
        .list_for_session(t.session_id())
        .await?
        .iter()
        .any(|r| awaits_approval(r) && r.message_id.is_some_and(|m| messages.contains(&m))))
}

/// An unfinished row: re-run from intent, or interrupted.
async fn resume_row(
    t: &Turn<'_>,
    row: &ToolCallRow,
    cancel: CancellationToken,
    report: &mut ResumeReport,
) -> Result<Outcome, SessionError> {
    let args = arguments_value(&row.arguments);
    emit_start(t, &row.id, &row.name, args.clone());
    match t.tools.restart_hint(&row.name) {
        Some(RestartHint::Rerun) => {
            report.rerun.push(row.id.clone());
            if row.status == ToolCallStatus::Pending {
                t.inner
                    .store
                    .tool_calls()
                    .set_status(&row.id, ToolCallStatus::Running)
                    .await?;
            }
            if args.is_string() {
                return Ok(Outcome::Failed(notes::malformed_arguments(
                    &row.name,
                    "stored arguments are not JSON",
                )));
            }
            execute(t, &row.id, &row.name, args, cancel).await
        }
        Some(RestartHint::Reask) | None => {
            report.interrupted.push(row.id.clone());
            Ok(Outcome::Cancelled(notes::INTERRUPTED))
        }
    }
}

/// The result of a finished row that stored none.
fn note_for(status: ToolCallStatus) -> String {
    match status {
        ToolCallStatus::Done => String::new(),
        ToolCallStatus::Failed => notes::NO_RESULT.to_string(),
        ToolCallStatus::Cancelled => notes::CANCELLED.to_string(),
        ToolCallStatus::Rejected => notes::rejected("rejected"),
        ToolCallStatus::Running | ToolCallStatus::Pending => notes::INTERRUPTED.to_string(),
    }
}
