//! A session's RunContext and its human bypasses: thin calls into
//! `skald_session::services::run_context`.

use skald_protocol::{BypassScopeView, BypassView, IpcError, RunContextView};
use skald_session::services::run_context;

use crate::AppState;

#[tauri::command]
pub async fn get_run_context(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<RunContextView, IpcError> {
    Ok(run_context::get(&state.approvals, &session_id).await?)
}

#[tauri::command]
pub async fn set_run_context(
    state: tauri::State<'_, AppState>,
    session_id: String,
    ctx: RunContextView,
) -> Result<(), IpcError> {
    Ok(run_context::set(&state.approvals, &session_id, ctx).await?)
}

/// Lets `scope` through without asking in this session (never over a deny)
/// for `minutes`, or until the session's turn is stopped.
#[tauri::command]
pub fn add_bypass(
    state: tauri::State<'_, AppState>,
    session_id: String,
    scope: BypassScopeView,
    minutes: Option<u32>,
) -> Result<(), IpcError> {
    run_context::add_bypass(&state.approvals, &session_id, scope, minutes);
    Ok(())
}

#[tauri::command]
pub fn clear_bypasses(state: tauri::State<'_, AppState>, session_id: String) {
    state.approvals.clear_bypasses(&session_id);
}

/// The session's live bypasses and the time each has left (the chat shows them).
#[tauri::command]
pub fn list_bypasses(state: tauri::State<'_, AppState>, session_id: String) -> Vec<BypassView> {
    run_context::list_bypasses(&state.approvals, &session_id)
}
