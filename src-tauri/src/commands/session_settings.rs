//! A session's RunContext, its human bypasses, its own model and its
//! working directory's folder dialog: thin calls into
//! `skald_session::services::{run_context, chat_models}` and the dialog plugin.

use std::path::Path;

use skald_protocol::{
    BypassScopeView, BypassView, ChatModelsView, ErrorCode, IpcError, ModelChoiceView,
    RunContextView,
};
use skald_session::services::{chat_models, run_context};
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::DialogExt;

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

/// The models this chat may switch to, its own pick and the default.
#[tauri::command]
pub async fn chat_models(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<ChatModelsView, IpcError> {
    let env = skald_llm::ProviderConfig::from_env();
    Ok(chat_models::list(&state.store, &env, &session_id).await?)
}

/// Gives this chat its own model (both `None`: back to the default); the
/// chat's next turn asks it, other chats are left alone.
#[tauri::command]
pub async fn set_chat_model(
    state: tauri::State<'_, AppState>,
    session_id: String,
    provider: Option<String>,
    model: Option<String>,
) -> Result<Option<ModelChoiceView>, IpcError> {
    let pick = match (provider, model) {
        (Some(p), Some(m)) => Some((p, m)),
        (None, None) => None,
        _ => {
            return Err(IpcError::new(
                ErrorCode::InvalidInput,
                "name both the provider and the model, or neither",
            ));
        }
    };
    Ok(chat_models::set(&state.store, &session_id, pick).await?)
}

/// The native folder dialog for a chat's working directory (the webview has
/// no dialog permission of its own). `None` when the person cancels.
#[tauri::command]
pub async fn pick_folder(
    app: AppHandle,
    start: Option<String>,
) -> Result<Option<String>, IpcError> {
    let mut dialog = app
        .dialog()
        .file()
        .set_title("Choose the chat's working directory");
    if let Some(dir) = start.filter(|d| Path::new(d).is_dir()) {
        dialog = dialog.set_directory(dir);
    }
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.set_parent(&window);
    }
    let picked = tokio::task::spawn_blocking(move || dialog.blocking_pick_folder())
        .await
        .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(picked
        .and_then(|p| p.into_path().ok())
        .map(|p| p.display().to_string()))
}
