use skald_protocol::{AppInfo, ErrorCode, IpcError};

use crate::AppState;

/// Version, data directory and schema version, for the About line.
#[tauri::command]
pub async fn app_info(state: tauri::State<'_, AppState>) -> Result<AppInfo, IpcError> {
    let schema_version = state
        .store
        .schema_version()
        .await
        .map_err(|e| IpcError::new(ErrorCode::Storage, e.to_string()))?;
    Ok(AppInfo {
        version: env!("CARGO_PKG_VERSION").to_string(),
        data_dir: state.data_dir.display().to_string(),
        schema_version,
    })
}

/// Ctrl+W: the same as closing the window — it hides to the tray and the
/// agent keeps working; a waiting approval then raises a notification.
#[tauri::command]
pub fn hide_window(window: tauri::WebviewWindow) -> Result<(), IpcError> {
    window
        .hide()
        .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))
}
