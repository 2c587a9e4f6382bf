//! Answering approvals: approve, reject with a note, "always allow" (which
//! shows the rule before saving it), and the Inbox across sessions.

use serde_json::Value;
use skald_approval::{ApprovalError, CallContext};
use skald_protocol::{ApprovalResolution, ErrorCode, IpcError, PendingApprovalView, SessionEvent};
use skald_store::{NewApprovalRule, StoreError};
use tauri::ipc::Channel;

use crate::AppState;
use crate::commands::chat::ChannelSink;

fn storage(e: StoreError) -> IpcError {
    IpcError::new(ErrorCode::Storage, e.to_string())
}

fn approval(e: ApprovalError) -> IpcError {
    match e {
        ApprovalError::Store(e) => storage(e),
        other => IpcError::new(ErrorCode::InvalidInput, other.to_string()),
    }
}

#[tauri::command]
pub async fn list_pending(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<PendingApprovalView>, IpcError> {
    state.sessions.list_pending().await.map_err(|e| e.to_ipc())
}

/// Runs the waiting call. A live turn streams on its own channel; a call
/// settled here (e.g. after a restart) streams on `on_event`.
#[tauri::command]
pub async fn approve_call(
    state: tauri::State<'_, AppState>,
    tool_call_id: String,
    on_event: Channel<SessionEvent>,
) -> Result<ApprovalResolution, IpcError> {
    let resolution = state
        .sessions
        .approve(&tool_call_id, ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc());
    // A stored call (from before a restart) settles outside any live wait.
    state.approvals.notify_changed();
    resolution
}

#[tauri::command]
pub async fn reject_call(
    state: tauri::State<'_, AppState>,
    tool_call_id: String,
    note: Option<String>,
    on_event: Channel<SessionEvent>,
) -> Result<ApprovalResolution, IpcError> {
    let note = note.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    let resolution = state
        .sessions
        .reject(&tool_call_id, note.as_deref(), ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc());
    state.approvals.notify_changed();
    resolution
}

/// The rule "always allow" saves for a call (see
/// `skald_approval::always_allow_rule`), over the rules and RunContext the
/// gate decides with.
async fn always_allow_rule(
    state: &AppState,
    tool_call_id: &str,
) -> Result<NewApprovalRule, IpcError> {
    let call = state
        .store
        .tool_calls()
        .get(tool_call_id)
        .await
        .map_err(storage)?
        .ok_or_else(|| {
            IpcError::new(ErrorCode::NotFound, format!("no tool call {tool_call_id}"))
        })?;
    let session = state
        .store
        .sessions()
        .get(&call.session_id)
        .await
        .map_err(storage)?
        .ok_or_else(|| {
            IpcError::new(
                ErrorCode::NotFound,
                format!("no session {}", call.session_id),
            )
        })?;
    let rules = state.approvals.rules().await.map_err(approval)?;
    let ctx = state
        .approvals
        .run_context(&call.session_id, None)
        .await
        .map_err(approval)?
        .canonicalized();
    let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    let mut cc = CallContext::for_run(&call.name, &args, &ctx).with_agent(session.agent_id);
    // The source the session driver records for registry tools, so rules
    // filtered by source are checked as the gate checks them.
    if state.catalog.registry().contains(&call.name) {
        cc = cc.with_source("builtin");
    }
    skald_approval::always_allow_rule(&rules, &cc, &ctx).map_err(approval)
}

fn describe(rule: &NewApprovalRule) -> String {
    format!(
        "{}: {}{} → allow (priority {})",
        rule.group_name,
        rule.tool_pattern,
        rule.path_pattern
            .as_deref()
            .map(|p| format!(" {p}"))
            .unwrap_or_default(),
        rule.priority
    )
}

#[tauri::command]
pub async fn preview_always_allow(
    state: tauri::State<'_, AppState>,
    tool_call_id: String,
) -> Result<String, IpcError> {
    Ok(describe(&always_allow_rule(&state, &tool_call_id).await?))
}

/// Saves exactly the previewed rule, then approves the call.
#[tauri::command]
pub async fn always_allow(
    state: tauri::State<'_, AppState>,
    tool_call_id: String,
    on_event: Channel<SessionEvent>,
) -> Result<ApprovalResolution, IpcError> {
    let rule = always_allow_rule(&state, &tool_call_id).await?;
    state.approvals.add_rule(&rule).await.map_err(approval)?;
    let resolution = state
        .sessions
        .approve(&tool_call_id, ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc());
    // A stored call (from before a restart) settles outside any live wait.
    state.approvals.notify_changed();
    resolution
}
