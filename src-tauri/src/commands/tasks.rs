//! The Tasks view: async tasks and cron jobs — list, one with its runs,
//! stop, run now, enable/disable, delete. Thin calls into the session.

use skald_protocol::{IpcError, TaskDetailView, TaskView};

use crate::AppState;

#[tauri::command]
pub async fn list_tasks(state: tauri::State<'_, AppState>) -> Result<Vec<TaskView>, IpcError> {
    Ok(state.sessions.list_tasks().await?)
}

#[tauri::command]
pub async fn get_task(
    state: tauri::State<'_, AppState>,
    id: i64,
) -> Result<TaskDetailView, IpcError> {
    Ok(state.sessions.task(id).await?)
}

/// Stops the task's running run (from any process); `false`: not running.
#[tauri::command]
pub async fn stop_task(state: tauri::State<'_, AppState>, id: i64) -> Result<bool, IpcError> {
    Ok(state.sessions.stop_task(id).await?)
}

/// Runs a cron job now; its run id, or `None` when it is already running.
#[tauri::command]
pub async fn run_task_now(
    state: tauri::State<'_, AppState>,
    id: i64,
) -> Result<Option<i64>, IpcError> {
    Ok(state.sessions.run_task_now(id).await?)
}

#[tauri::command]
pub async fn set_task_enabled(
    state: tauri::State<'_, AppState>,
    id: i64,
    enabled: bool,
) -> Result<TaskView, IpcError> {
    Ok(state.sessions.set_task_enabled(id, enabled).await?)
}

#[tauri::command]
pub async fn delete_task(state: tauri::State<'_, AppState>, id: i64) -> Result<bool, IpcError> {
    Ok(state.sessions.delete_task(id).await?)
}
