//! Answering approvals: approve, reject with a note, "always allow" (which
//! shows the rule before saving it), and the Inbox across sessions.

use std::path::Path;

use serde_json::Value;
use skald_protocol::{ApprovalResolution, ErrorCode, IpcError, PendingApprovalView, SessionEvent};
use skald_store::{NewApprovalRule, RuleAction, StoreError};
use skald_tools::tool_names as tn;
use tauri::ipc::Channel;

use crate::AppState;
use crate::commands::chat::ChannelSink;

fn storage(e: StoreError) -> IpcError {
    IpcError::new(ErrorCode::Storage, e.to_string())
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

/// The rule "always allow" saves for a call: this tool in the session's
/// group; for file tools, limited to the file's directory and below.
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
    let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    let file_tool = [
        tn::WRITE_FILE,
        tn::EDIT_FILE,
        tn::INSERT_AT_LINE,
        tn::REPLACE_LINES,
    ]
    .contains(&call.name.as_str());
    let path_pattern = match args.get("path").and_then(Value::as_str) {
        Some(p) if file_tool => Path::new(p).parent().map(|dir| {
            let dir = match session.working_dir.as_deref() {
                Some(wd) => dir
                    .strip_prefix(wd)
                    .map(Path::to_path_buf)
                    .unwrap_or(dir.to_path_buf()),
                None => dir.to_path_buf(),
            };
            let shown = dir.display().to_string();
            if shown.is_empty() {
                "*".to_string()
            } else {
                format!("{shown}/*")
            }
        }),
        _ => None,
    };
    Ok(NewApprovalRule {
        group_name: session.permission_group,
        agent_id: None,
        source: None,
        tool_pattern: call.name,
        path_pattern,
        action: RuleAction::Allow,
        note: Some("always allow, from an approval".to_string()),
        priority: 100,
    })
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
    state
        .approvals
        .add_rule(&rule)
        .await
        .map_err(|e| IpcError::new(ErrorCode::InvalidInput, e.to_string()))?;
    let resolution = state
        .sessions
        .approve(&tool_call_id, ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc());
    // A stored call (from before a restart) settles outside any live wait.
    state.approvals.notify_changed();
    resolution
}
