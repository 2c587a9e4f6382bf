//! The MCP page: thin calls into `skald_mcp::admin` (store and running
//! servers together) and the views the page shows.

use std::time::Duration;

use skald_core_api::ToolName;
use skald_mcp::{McpError, McpManager, ServerConfig, ServerStatus, Transport, admin};
use skald_protocol::{
    ErrorCode, IpcError, McpImportView, McpServerInput, McpServerView, McpStatusView, McpTestView,
    McpToolView, McpTransportView,
};

use crate::AppState;

/// How much of a server's log the page shows.
const LOG_TAIL_BYTES: u64 = 64 * 1024;

fn ipc(e: McpError) -> IpcError {
    let code = match &e {
        McpError::InvalidConfig(_) => ErrorCode::InvalidInput,
        McpError::UnknownServer(_) => ErrorCode::NotFound,
        McpError::Store(_) => ErrorCode::Storage,
        _ => ErrorCode::Internal,
    };
    IpcError::new(code, e.to_string())
}

fn transport_view(t: &Transport) -> McpTransportView {
    match t.clone() {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => McpTransportView::Stdio {
            command,
            args,
            env,
            cwd,
        },
        Transport::Http { url, headers } => McpTransportView::Http { url, headers },
    }
}

fn config_from_input(i: McpServerInput) -> ServerConfig {
    let transport = match i.transport {
        McpTransportView::Stdio {
            command,
            args,
            env,
            cwd,
        } => Transport::Stdio {
            command: command.trim().to_string(),
            args,
            env,
            cwd: cwd.filter(|c| !c.trim().is_empty()),
        },
        McpTransportView::Http { url, headers } => Transport::Http {
            url: url.trim().to_string(),
            headers,
        },
    };
    let mut c = ServerConfig::new(i.name.trim(), transport)
        .with_timeout(Duration::from_secs(i.timeout_secs))
        .with_description(i.description.trim());
    c.enabled = i.enabled;
    c
}

fn status_view(s: Option<ServerStatus>, enabled: bool) -> McpStatusView {
    match s {
        Some(ServerStatus::Connecting) => McpStatusView::Connecting,
        Some(ServerStatus::Ready { tools }) => McpStatusView::Ready { tools },
        Some(ServerStatus::Failed { reason, stderr }) => McpStatusView::Failed { reason, stderr },
        Some(ServerStatus::Disabled) => McpStatusView::Disabled,
        None if enabled => McpStatusView::Connecting,
        None => McpStatusView::Disabled,
    }
}

fn tool_views(server: &str, tools: impl IntoIterator<Item = (String, String)>) -> Vec<McpToolView> {
    tools
        .into_iter()
        .map(|(name, description)| McpToolView {
            full_name: ToolName::mcp(server, &name).to_string(),
            name,
            description,
        })
        .collect()
}

fn server_view(m: &McpManager, c: &ServerConfig) -> McpServerView {
    McpServerView {
        name: c.name.clone(),
        transport: c.transport.kind().to_string(),
        target: c.transport.summary(),
        enabled: c.enabled,
        timeout_secs: c.timeout.as_secs(),
        description: c.description.clone(),
        status: status_view(m.status(&c.name), c.enabled),
        tools: tool_views(
            &c.name,
            m.tools(&c.name).into_iter().map(|(n, d, _)| (n, d)),
        ),
    }
}

/// Every configured server with its status and tools. Servers the CLI
/// added, changed or removed meanwhile are started or stopped first.
#[tauri::command]
pub async fn mcp_list_servers(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<McpServerView>, IpcError> {
    let configs = admin::sync(&state.store, &state.mcp).await.map_err(ipc)?;
    Ok(configs.iter().map(|c| server_view(&state.mcp, c)).collect())
}

/// One server's whole configuration, for the edit form.
#[tauri::command]
pub async fn mcp_get_server(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<McpServerInput, IpcError> {
    let row = state
        .store
        .mcp_servers()
        .get(&name)
        .await
        .map_err(|e| ipc(e.into()))?
        .ok_or_else(|| ipc(McpError::UnknownServer(name.clone())))?;
    let c = ServerConfig::from_row(&row).map_err(ipc)?;
    Ok(McpServerInput {
        transport: transport_view(&c.transport),
        name: c.name,
        enabled: c.enabled,
        timeout_secs: c.timeout.as_secs().max(1),
        description: c.description,
    })
}

/// Adds a server, or replaces the one saved as `previous` (an edit, maybe
/// a rename). It starts connecting at once.
#[tauri::command]
pub async fn mcp_save_server(
    state: tauri::State<'_, AppState>,
    input: McpServerInput,
    previous: Option<String>,
) -> Result<McpServerView, IpcError> {
    let c = config_from_input(input);
    admin::save(&state.store, &state.mcp, c.clone(), previous.as_deref())
        .await
        .map_err(ipc)?;
    Ok(server_view(&state.mcp, &c))
}

#[tauri::command]
pub async fn mcp_remove_server(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<bool, IpcError> {
    admin::remove(&state.store, &state.mcp, &name)
        .await
        .map_err(ipc)
}

#[tauri::command]
pub async fn mcp_set_enabled(
    state: tauri::State<'_, AppState>,
    name: String,
    enabled: bool,
) -> Result<McpServerView, IpcError> {
    let c = admin::set_enabled(&state.store, &state.mcp, &name, enabled)
        .await
        .map_err(ipc)?;
    Ok(server_view(&state.mcp, &c))
}

/// Imports `mcpServers` JSON (the text of the file the person picked or
/// pasted).
#[tauri::command]
pub async fn mcp_import(
    state: tauri::State<'_, AppState>,
    text: String,
) -> Result<McpImportView, IpcError> {
    let report = admin::import(&state.store, &state.mcp, &text)
        .await
        .map_err(ipc)?;
    Ok(McpImportView {
        imported: report.servers.into_iter().map(|c| c.name).collect(),
        warnings: report.warnings,
    })
}

/// The end of a server's log (its stderr).
#[tauri::command]
pub async fn mcp_server_log(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<String, IpcError> {
    let Some(path) = state.mcp.log_path(&name) else {
        return Ok(String::new());
    };
    admin::log_tail(&path, LOG_TAIL_BYTES)
        .map_err(|e| IpcError::new(ErrorCode::Internal, format!("{}: {e}", path.display())))
}

/// Connects to the configuration in the form (saved or not) on a
/// connection of its own and lists its tools.
#[tauri::command]
pub async fn mcp_test_server(
    state: tauri::State<'_, AppState>,
    input: McpServerInput,
) -> Result<McpTestView, IpcError> {
    let c = config_from_input(input);
    let name = c.name.clone();
    match admin::test(Some(&state.store), c).await {
        Ok(tools) => Ok(McpTestView {
            ok: true,
            error: String::new(),
            tools: tool_views(&name, tools),
        }),
        Err(e @ McpError::InvalidConfig(_)) => Err(ipc(e)),
        Err(e) => Ok(McpTestView {
            ok: false,
            error: e.to_string(),
            tools: Vec::new(),
        }),
    }
}

/// Retries a failed server now instead of after its backoff.
#[tauri::command]
pub async fn mcp_reconnect(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<bool, IpcError> {
    Ok(state.mcp.retry(&name))
}
