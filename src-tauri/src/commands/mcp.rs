//! The MCP page: thin calls into `skald_mcp::admin` on the app's running
//! [`McpManager`](skald_mcp::McpManager) and store; elicitation answers go
//! to the session handler. Status changes reach the page as the
//! `mcp-status` event ([`watch_status`]).

use skald_mcp::admin;
use skald_protocol::{
    ElicitationAction, IpcError, McpImportView, McpServerInput, McpServerView, McpStatusChanged,
    McpTestView,
};
use tauri::Emitter;

use crate::AppState;

/// The event a server's status change raises (payload `McpStatusChanged`).
pub const MCP_STATUS: &str = "mcp-status";

#[tauri::command]
pub async fn mcp_list_servers(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<McpServerView>, IpcError> {
    Ok(admin::list(&state.mcp, &state.store).await)
}

/// Adds or replaces a server; `previousName` renames an edited one.
#[tauri::command]
pub async fn mcp_save_server(
    state: tauri::State<'_, AppState>,
    input: McpServerInput,
    previous_name: Option<String>,
) -> Result<McpServerView, IpcError> {
    Ok(admin::save(&state.mcp, &state.store, input, previous_name.as_deref()).await?)
}

#[tauri::command]
pub async fn mcp_remove_server(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<bool, IpcError> {
    Ok(admin::remove(&state.mcp, &state.store, &name).await?)
}

#[tauri::command]
pub async fn mcp_set_enabled(
    state: tauri::State<'_, AppState>,
    name: String,
    enabled: bool,
) -> Result<McpServerView, IpcError> {
    Ok(admin::set_enabled(&state.mcp, &state.store, &name, enabled).await?)
}

/// Imports `mcpServers` JSON (the text of the file the person picked).
#[tauri::command]
pub async fn mcp_import(
    state: tauri::State<'_, AppState>,
    text: String,
) -> Result<McpImportView, IpcError> {
    Ok(admin::import(&state.mcp, &state.store, &text).await?)
}

/// Connects once with the form's settings; nothing is stored.
#[tauri::command]
pub async fn mcp_test_server(
    state: tauri::State<'_, AppState>,
    input: McpServerInput,
) -> Result<McpTestView, IpcError> {
    Ok(admin::test(&state.store, input).await)
}

/// The end of the server's stderr log (at most 64 KiB).
#[tauri::command]
pub async fn mcp_server_log(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<String, IpcError> {
    Ok(admin::log_tail(&state.mcp, &name, admin::LOG_TAIL_BYTES)?)
}

/// Retries a failed server now instead of after its backoff.
#[tauri::command]
pub async fn mcp_retry(state: tauri::State<'_, AppState>, name: String) -> Result<bool, IpcError> {
    Ok(state.mcp.retry(&name))
}

/// OAuth sign-in: opens the browser at the authorization server and
/// resolves once the redirect came back (or after 5 minutes).
#[tauri::command]
pub async fn mcp_sign_in(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<McpServerView, IpcError> {
    use tauri_plugin_opener::OpenerExt;
    let open = |url: &str| {
        if let Err(e) = app.opener().open_url(url, None::<&str>) {
            tracing::warn!(error = %e, "cannot open the browser for the MCP sign-in");
        }
    };
    Ok(admin::sign_in(&state.mcp, &state.store, &name, open).await?)
}

#[tauri::command]
pub async fn mcp_sign_out(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<McpServerView, IpcError> {
    Ok(admin::sign_out(&state.mcp, &state.store, &name).await?)
}

/// Answers an MCP server's elicitation (a question with a `schema`).
#[tauri::command]
pub async fn answer_elicitation(
    state: tauri::State<'_, AppState>,
    tool_call_id: String,
    action: ElicitationAction,
    content: Option<serde_json::Value>,
) -> Result<(), IpcError> {
    Ok(state
        .sessions
        .answer_elicitation(&tool_call_id, action, content)
        .await?)
}

/// Servers whose tools a session (or, without `sessionId`, every
/// session) is offered without `activate_tools`.
#[tauri::command]
pub async fn mcp_get_always_on(
    state: tauri::State<'_, AppState>,
    session_id: Option<String>,
) -> Result<Vec<String>, IpcError> {
    Ok(state.sessions.mcp_always_on(session_id.as_deref()).await?)
}

/// Replaces the always-on list of a session (or of every session).
#[tauri::command]
pub async fn mcp_set_always_on(
    state: tauri::State<'_, AppState>,
    session_id: Option<String>,
    servers: Vec<String>,
) -> Result<Vec<String>, IpcError> {
    state
        .sessions
        .set_mcp_always_on(session_id.as_deref(), &servers)
        .await?;
    Ok(state.sessions.mcp_always_on(session_id.as_deref()).await?)
}

/// Whether MCP servers may ask the session's model for completions
/// (sampling); off unless the person turns it on.
#[tauri::command]
pub async fn mcp_get_allow_sampling(state: tauri::State<'_, AppState>) -> Result<bool, IpcError> {
    Ok(state.sessions.mcp_allow_sampling().await?)
}

/// Turns sampling by MCP servers on or off; returns the stored value.
#[tauri::command]
pub async fn mcp_set_allow_sampling(
    state: tauri::State<'_, AppState>,
    allow: bool,
) -> Result<bool, IpcError> {
    state.sessions.set_mcp_allow_sampling(allow).await?;
    Ok(state.sessions.mcp_allow_sampling().await?)
}

/// Emits `mcp-status` for every server whose status changes, for the app's life.
pub fn watch_status(app: tauri::AppHandle, mcp: skald_mcp::McpManager) {
    let mut rx = mcp.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            let name = match rx.recv().await {
                Ok(n) => n,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            let status = mcp
                .status(&name)
                .map(|s| admin::status_view(&s))
                .unwrap_or(skald_protocol::McpStatusView::Disabled);
            let _ = app.emit(MCP_STATUS, McpStatusChanged { name, status });
        }
    });
}
