//! Permission groups and approval rules: thin calls into
//! `skald_session::services::rules`.

use skald_protocol::{GroupView, IpcError, RuleInput, RuleView};
use skald_session::services::rules;

use crate::AppState;

#[tauri::command]
pub async fn list_groups(state: tauri::State<'_, AppState>) -> Result<Vec<GroupView>, IpcError> {
    Ok(rules::list_groups(&state.approvals).await?)
}

/// Creates a group, optionally copying every rule of `copy_from`.
#[tauri::command]
pub async fn create_group(
    state: tauri::State<'_, AppState>,
    name: String,
    description: String,
    copy_from: Option<String>,
) -> Result<GroupView, IpcError> {
    Ok(rules::create_group(&state.approvals, &name, &description, copy_from.as_deref()).await?)
}

#[tauri::command]
pub async fn delete_group(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<bool, IpcError> {
    Ok(rules::delete_group(&state.approvals, &name).await?)
}

#[tauri::command]
pub async fn list_rules(
    state: tauri::State<'_, AppState>,
    group: String,
) -> Result<Vec<RuleView>, IpcError> {
    Ok(rules::list_rules(&state.approvals, &group).await?)
}

#[tauri::command]
pub async fn add_rule(
    state: tauri::State<'_, AppState>,
    input: RuleInput,
) -> Result<RuleView, IpcError> {
    Ok(rules::add_rule(&state.approvals, input).await?)
}

#[tauri::command]
pub async fn update_rule(
    state: tauri::State<'_, AppState>,
    id: i64,
    input: RuleInput,
) -> Result<RuleView, IpcError> {
    Ok(rules::update_rule(&state.approvals, id, input).await?)
}

#[tauri::command]
pub async fn delete_rule(state: tauri::State<'_, AppState>, id: i64) -> Result<bool, IpcError> {
    Ok(rules::delete_rule(&state.approvals, id).await?)
}
