//! The MCP page's service: list, save, remove, enable, import, test, read
//! the log, sign in and out. Every change goes to the store and the running
//! [`McpManager`] together, so the page shows what the sessions use.

use std::time::{Duration, Instant};

use skald_core_api::ToolName;
use skald_protocol::{
    ErrorCode, IpcError, McpImportView, McpServerInput, McpServerView, McpStatusView, McpTestView,
    McpToolView, McpTransportView,
};
use skald_store::Store;

use crate::config::{DEFAULT_TIMEOUT, ServerConfig, Transport};
use crate::import::parse_import;
use crate::manager::{McpManager, ServerStatus};
use crate::{McpError, oauth};

/// Most of a log the page reads at once.
pub const LOG_TAIL_BYTES: u64 = 64 * 1024;

impl From<McpError> for IpcError {
    fn from(e: McpError) -> Self {
        let code = match &e {
            McpError::InvalidConfig(_) => ErrorCode::InvalidInput,
            McpError::UnknownServer(_) => ErrorCode::NotFound,
            McpError::Store(_) => ErrorCode::Storage,
            _ => ErrorCode::Internal,
        };
        IpcError::new(code, e.to_string())
    }
}

pub fn status_view(s: &ServerStatus) -> McpStatusView {
    match s {
        ServerStatus::Connecting => McpStatusView::Connecting,
        ServerStatus::Ready { tools } => McpStatusView::Ready {
            tools: u32::try_from(*tools).unwrap_or(u32::MAX),
        },
        ServerStatus::Failed { reason, stderr } => McpStatusView::Failed {
            reason: reason.clone(),
            stderr: stderr.clone(),
        },
        ServerStatus::NeedsSignIn { reason } => McpStatusView::NeedsSignIn {
            reason: reason.clone(),
        },
        ServerStatus::Disabled => McpStatusView::Disabled,
    }
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
        Transport::Http {
            url,
            headers,
            client_id,
        } => McpTransportView::Http {
            url,
            headers,
            client_id,
        },
    }
}

fn transport_of(t: McpTransportView) -> Transport {
    match t {
        McpTransportView::Stdio {
            command,
            args,
            env,
            cwd,
        } => Transport::Stdio {
            command,
            args,
            env,
            cwd: cwd.filter(|c| !c.trim().is_empty()),
        },
        McpTransportView::Http {
            url,
            headers,
            client_id,
        } => Transport::Http {
            url,
            headers,
            client_id: client_id
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty()),
        },
    }
}

/// The form's input as a configuration (validated).
pub fn config_of(input: McpServerInput) -> Result<ServerConfig, McpError> {
    let mut c = ServerConfig::new(input.name.trim(), transport_of(input.transport))
        .with_description(input.description.trim());
    c.enabled = input.enabled;
    c.timeout = input
        .timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_TIMEOUT);
    c.validate()?;
    Ok(c)
}

fn tool_views(manager: &McpManager, name: &str) -> Vec<McpToolView> {
    manager
        .tools(name)
        .into_iter()
        .map(|(tool, description, _)| McpToolView {
            name: ToolName::mcp(name, &tool).to_string(),
            tool,
            description,
        })
        .collect()
}

/// One server as the page shows it.
pub async fn server_view(manager: &McpManager, store: &Store, name: &str) -> Option<McpServerView> {
    let c = manager.config(name)?;
    let status = manager.status(name).unwrap_or(ServerStatus::Disabled);
    let signed_in =
        matches!(c.transport, Transport::Http { .. }) && oauth::signed_in(store, name).await;
    Some(McpServerView {
        name: c.name.clone(),
        transport: transport_view(&c.transport),
        enabled: c.enabled,
        timeout_ms: u64::try_from(c.timeout.as_millis()).unwrap_or(u64::MAX),
        description: c.description.clone(),
        status: status_view(&status),
        tools: tool_views(manager, name),
        log_path: manager.log_path(name).map(|p| p.display().to_string()),
        signed_in,
    })
}

/// Every configured server, by name. Servers the CLI (or another process)
/// added, changed or removed in the store meanwhile are started or stopped
/// first, so the page shows what the next turn will use.
pub async fn list(manager: &McpManager, store: &Store) -> Vec<McpServerView> {
    if let Err(e) = sync(manager, store).await {
        tracing::warn!(error = %e, "cannot read the MCP servers from the store");
    }
    let mut out = Vec::new();
    for name in manager.names() {
        if let Some(v) = server_view(manager, store, &name).await {
            out.push(v);
        }
    }
    out
}

/// Brings the running manager in line with the store: starts what is new,
/// restarts what changed, stops what is gone; leaves the rest connected.
pub async fn sync(manager: &McpManager, store: &Store) -> Result<(), McpError> {
    let mut stored = Vec::new();
    for row in store.mcp_servers().list().await? {
        match ServerConfig::from_row(&row) {
            Ok(c) => stored.push(c),
            Err(e) => tracing::warn!(server = %row.name, error = %e, "MCP server skipped"),
        }
    }
    for c in &stored {
        if manager.config(&c.name).as_ref() != Some(c) {
            manager.put(c.clone());
        }
    }
    for name in manager.names() {
        if !stored.iter().any(|c| c.name == name) {
            manager.remove(&name);
        }
    }
    Ok(())
}

/// Adds or replaces a server (renaming `previous` when given and different);
/// an enabled one starts connecting at once.
pub async fn save(
    manager: &McpManager,
    store: &Store,
    input: McpServerInput,
    previous: Option<&str>,
) -> Result<McpServerView, McpError> {
    let secret = input.client_secret.clone();
    let c = config_of(input)?;
    let renamed = previous.filter(|p| *p != c.name);
    // A rename onto another server's name would silently replace it.
    if renamed.is_some() && store.mcp_servers().get(&c.name).await?.is_some() {
        return Err(McpError::InvalidConfig(format!(
            "a server named `{}` already exists",
            c.name
        )));
    }
    store.mcp_servers().upsert(&c.to_row()?).await?;
    if let Some(old) = renamed {
        store.mcp_servers().delete(old).await?;
        manager.remove(old);
        // The client's secret follows the server to its new name.
        if let Some(s) = store.secrets().get(&oauth::client_secret_key(old)).await? {
            oauth::set_client_secret(store, &c.name, Some(&s)).await?;
        }
        oauth::set_client_secret(store, old, None).await?;
    }
    if let Some(s) = secret {
        let s = s.trim();
        oauth::set_client_secret(store, &c.name, (!s.is_empty()).then_some(s)).await?;
    }
    let name = c.name.clone();
    manager.put(c);
    server_view(manager, store, &name)
        .await
        .ok_or(McpError::UnknownServer(name))
}

/// Stops a server and forgets it (and its sign-in).
pub async fn remove(manager: &McpManager, store: &Store, name: &str) -> Result<bool, McpError> {
    let stored = store.mcp_servers().delete(name).await?;
    let running = manager.remove(name);
    let _ = oauth::sign_out(store, name).await;
    let _ = oauth::set_client_secret(store, name, None).await;
    Ok(stored || running)
}

/// Turns a server on (it connects) or off (it stops).
pub async fn set_enabled(
    manager: &McpManager,
    store: &Store,
    name: &str,
    enabled: bool,
) -> Result<McpServerView, McpError> {
    let row = store
        .mcp_servers()
        .get(name)
        .await?
        .ok_or_else(|| McpError::UnknownServer(name.to_string()))?;
    store.mcp_servers().set_enabled(name, enabled).await?;
    let mut c = ServerConfig::from_row(&row)?;
    c.enabled = enabled;
    manager.put(c);
    server_view(manager, store, name)
        .await
        .ok_or_else(|| McpError::UnknownServer(name.to_string()))
}

/// Imports `mcpServers` JSON text; what was ignored or skipped is reported.
pub async fn import(
    manager: &McpManager,
    store: &Store,
    text: &str,
) -> Result<McpImportView, McpError> {
    let report = parse_import(text)?;
    let mut imported = Vec::new();
    for c in report.servers {
        store.mcp_servers().upsert(&c.to_row()?).await?;
        imported.push(c.name.clone());
        manager.put(c);
    }
    Ok(McpImportView {
        imported,
        warnings: report.warnings,
    })
}

/// Connects once with the form's settings (nothing stored) and lists the
/// tools, within the form's timeout.
pub async fn test(store: &Store, input: McpServerInput) -> McpTestView {
    let started = Instant::now();
    let elapsed = |s: Instant| u64::try_from(s.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut c = match config_of(input) {
        Ok(c) => c,
        Err(e) => {
            return McpTestView {
                ok: false,
                tools: Vec::new(),
                error: Some(e.to_string()),
                elapsed_ms: 0,
            };
        }
    };
    c.enabled = true;
    let name = c.name.clone();
    let probe = McpManager::new(None, Some(store.clone()));
    probe.put(c);
    let result = probe.wait_ready(&name).await;
    let view = McpTestView {
        ok: result.is_ok(),
        tools: tool_views(&probe, &name),
        error: result.err().map(|e| e.to_string()),
        elapsed_ms: elapsed(started),
    };
    probe.shutdown();
    view
}

/// The end of a server's log (its stderr), at most `max_bytes`.
pub fn log_tail(manager: &McpManager, name: &str, max_bytes: u64) -> Result<String, McpError> {
    use std::io::{Read, Seek, SeekFrom};
    if manager.config(name).is_none() {
        return Err(McpError::UnknownServer(name.to_string()));
    }
    let Some(path) = manager.log_path(name) else {
        return Ok(String::new());
    };
    let mut f = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(McpError::Call(format!("{}: {e}", path.display()))),
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(max_bytes.min(LOG_TAIL_BYTES));
    f.seek(SeekFrom::Start(from))
        .map_err(|e| McpError::Call(e.to_string()))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .map_err(|e| McpError::Call(e.to_string()))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // Start at a whole line when the tail was cut.
    Ok(match (from > 0, text.find('\n')) {
        (true, Some(i)) => text[i + 1..].to_string(),
        _ => text,
    })
}

/// Signs in to an HTTP server (see [`oauth::sign_in`]) and reconnects it.
pub async fn sign_in(
    manager: &McpManager,
    store: &Store,
    name: &str,
    open: impl FnOnce(&str),
) -> Result<McpServerView, McpError> {
    let c = manager
        .config(name)
        .ok_or_else(|| McpError::UnknownServer(name.to_string()))?;
    let Transport::Http { url, client_id, .. } = &c.transport else {
        return Err(McpError::InvalidConfig(format!(
            "{name} is a stdio server: signing in is for HTTP servers"
        )));
    };
    oauth::sign_in(
        store,
        name,
        url,
        client_id.as_deref(),
        open,
        oauth::SIGN_IN_TIMEOUT,
    )
    .await?;
    manager.put(c);
    server_view(manager, store, name)
        .await
        .ok_or_else(|| McpError::UnknownServer(name.to_string()))
}

/// Forgets a server's tokens and reconnects it without them.
pub async fn sign_out(
    manager: &McpManager,
    store: &Store,
    name: &str,
) -> Result<McpServerView, McpError> {
    oauth::sign_out(store, name).await?;
    if let Some(c) = manager.config(name) {
        manager.put(c);
    }
    server_view(manager, store, name)
        .await
        .ok_or_else(|| McpError::UnknownServer(name.to_string()))
}
