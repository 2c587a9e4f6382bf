use skald_protocol::{AllTools, IpcError};

use crate::AppState;

/// The whole tool catalogue for the Tools page.
#[tauri::command]
pub fn list_tools(state: tauri::State<'_, AppState>) -> Result<AllTools, IpcError> {
    Ok(state.catalog.list_all())
}
