//! The Tasks view: async tasks and cron jobs — list, one with its runs,
//! stop, run now, enable/disable, delete. Thin calls into the session.

use skald_protocol::{IpcError, TaskDetailView, TaskView, TimeZoneView};

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

/// The person's time zone for cron jobs.
#[tauri::command]
pub async fn get_time_zone(state: tauri::State<'_, AppState>) -> Result<TimeZoneView, IpcError> {
    Ok(state.sessions.time_zone_view().await?)
}

/// Sets the person's time zone for new cron jobs; `null` goes back to the
/// system's. Answers the zone now in use.
#[tauri::command]
pub async fn set_time_zone(
    state: tauri::State<'_, AppState>,
    time_zone: Option<String>,
) -> Result<TimeZoneView, IpcError> {
    match time_zone.as_deref().map(str::trim) {
        Some(tz) if !tz.is_empty() => state.sessions.set_time_zone(tz).await?,
        _ => state.sessions.use_system_time_zone().await?,
    }
    Ok(state.sessions.time_zone_view().await?)
}
