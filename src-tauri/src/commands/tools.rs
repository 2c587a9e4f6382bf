use skald_protocol::{AllTools, IpcError};

use crate::AppState;

/// The whole tool catalogue for the Tools page and the permissions matrix:
/// registry, synthetic and MCP tools plus every tool ever offered to a model
/// (`known_tools`), so any of them can be given a rule — the same list as
/// `skald tools`.
#[tauri::command]
pub async fn list_tools(state: tauri::State<'_, AppState>) -> Result<AllTools, IpcError> {
    Ok(skald_session::catalog_with_known(&state.catalog, &state.store).await)
}
