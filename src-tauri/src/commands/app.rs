use skald_protocol::{AppInfo, ErrorCode, IpcError};
use tauri::Manager;

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
/// The first time ever, a notification says Skald keeps running there.
#[tauri::command]
pub fn hide_window(
    window: tauri::WebviewWindow,
    state: tauri::State<'_, AppState>,
) -> Result<(), IpcError> {
    // A detached viewer closes instead: its file goes back to the panel.
    if window.label() != "main" {
        return window
            .close()
            .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()));
    }
    window
        .hide()
        .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))?;
    crate::attention::hidden_to_tray(window.app_handle(), state.store.clone());
    Ok(())
}

/// A link the person clicked: opened in the system browser (or mail
/// program), never in the app's window. Only web and mail links; the
/// webview itself has no opener permission.
#[tauri::command]
pub fn open_external(app: tauri::AppHandle, url: String) -> Result<(), IpcError> {
    use tauri_plugin_opener::OpenerExt;
    let parsed = tauri::Url::parse(&url)
        .map_err(|e| IpcError::new(ErrorCode::InvalidInput, format!("not a link: {url}: {e}")))?;
    if !crate::navigation::is_external_link(&parsed) {
        return Err(IpcError::new(
            ErrorCode::InvalidInput,
            format!(
                "only web and mail links open outside Skald, not {}:",
                parsed.scheme()
            ),
        ));
    }
    app.opener()
        .open_url(parsed.as_str(), None::<&str>)
        .map_err(|e| IpcError::new(ErrorCode::Internal, format!("could not open {url}: {e}")))
}
