//! Answering approvals: approve, reject with a note, "always allow" (which
//! shows the rule before saving it), and the Inbox across sessions.

use skald_approval::ApprovalError;
use skald_protocol::{ApprovalResolution, ErrorCode, IpcError, PendingApprovalView, SessionEvent};
use skald_store::NewApprovalRule;
use tauri::ipc::Channel;

use crate::AppState;
use crate::commands::chat::ChannelSink;

fn approval(e: ApprovalError) -> IpcError {
    match e {
        ApprovalError::Store(e) => IpcError::new(ErrorCode::Storage, e.to_string()),
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

/// The rule "always allow" saves for a call, judged by the tools of the
/// frame it was made in (`services::rules::always_allow_rule`).
async fn always_allow_rule(
    state: &AppState,
    tool_call_id: &str,
) -> Result<NewApprovalRule, IpcError> {
    Ok(skald_session::services::rules::always_allow_rule(
        &state.sessions,
        &state.approvals,
        tool_call_id,
    )
    .await?)
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
