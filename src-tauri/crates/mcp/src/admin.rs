//! Managing servers from a face (the app's MCP page): each change goes to the
//! store and to the running [`McpManager`] together, so what the page shows
//! is what the next turn uses. The CLI and other processes write the store
//! only; [`sync`] brings the running manager in line with it.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use skald_store::Store;

use crate::McpError;
use crate::config::ServerConfig;
use crate::import::{ImportReport, parse_import};
use crate::manager::McpManager;

/// Stores `config` and (re)starts it. `previous` is the name it was saved
/// under when it is being edited: a rename removes the old one. Returns
/// whether the name is new.
pub async fn save(
    store: &Store,
    manager: &McpManager,
    config: ServerConfig,
    previous: Option<&str>,
) -> Result<bool, McpError> {
    let row = config.to_row()?;
    let repo = store.mcp_servers();
    if let Some(old) = previous.filter(|old| *old != config.name) {
        if repo.get(&config.name).await?.is_some() {
            return Err(McpError::InvalidConfig(format!(
                "a server named `{}` already exists",
                config.name
            )));
        }
        repo.delete(old).await?;
        manager.remove(old);
    }
    let new = repo.upsert(&row).await?;
    manager.put(config);
    Ok(new)
}

/// Turns a server on or off, in the store and the manager.
pub async fn set_enabled(
    store: &Store,
    manager: &McpManager,
    name: &str,
    enabled: bool,
) -> Result<ServerConfig, McpError> {
    let repo = store.mcp_servers();
    let row = repo
        .get(name)
        .await?
        .ok_or_else(|| McpError::UnknownServer(name.to_string()))?;
    repo.set_enabled(name, enabled).await?;
    let mut config = ServerConfig::from_row(&row)?;
    config.enabled = enabled;
    manager.put(config.clone());
    Ok(config)
}

/// Removes a server from the store and stops it. Returns whether it existed.
pub async fn remove(store: &Store, manager: &McpManager, name: &str) -> Result<bool, McpError> {
    let existed = store.mcp_servers().delete(name).await?;
    let running = manager.remove(name);
    Ok(existed || running)
}

/// Imports `mcpServers` JSON: every usable entry is stored and started;
/// the report says what was skipped or ignored.
pub async fn import(
    store: &Store,
    manager: &McpManager,
    text: &str,
) -> Result<ImportReport, McpError> {
    let report = parse_import(text)?;
    if report.servers.is_empty() {
        return Err(McpError::InvalidConfig(format!(
            "no server could be imported{}",
            if report.warnings.is_empty() {
                String::new()
            } else {
                format!(": {}", report.warnings.join("; "))
            }
        )));
    }
    for c in &report.servers {
        save(store, manager, c.clone(), None).await?;
    }
    Ok(report)
}

/// Brings the running manager in line with the store (servers added,
/// changed or removed by the CLI or another process) and returns the
/// stored configurations, sorted by name. Unchanged servers are left alone.
pub async fn sync(store: &Store, manager: &McpManager) -> Result<Vec<ServerConfig>, McpError> {
    let mut configs = Vec::new();
    for row in store.mcp_servers().list().await? {
        match ServerConfig::from_row(&row) {
            Ok(c) => configs.push(c),
            Err(e) => tracing::warn!(server = %row.name, error = %e, "MCP server skipped"),
        }
    }
    for c in &configs {
        if manager.config(&c.name).as_ref() != Some(c) {
            manager.put(c.clone());
        }
    }
    for name in manager.names() {
        if !configs.iter().any(|c| c.name == name) {
            manager.remove(&name);
        }
    }
    configs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(configs)
}

/// Connects to `config` on a connection of its own (nothing stored, the
/// running server untouched) and lists its tools: `(name, description)`.
/// A failure carries the reason and the server's last stderr lines.
pub async fn test(
    store: Option<&Store>,
    mut config: ServerConfig,
) -> Result<Vec<(String, String)>, McpError> {
    config.validate()?;
    config.enabled = true;
    let name = config.name.clone();
    let probe = McpManager::new(None, store.cloned());
    probe.put(config);
    let ready = probe.wait_ready(&name).await;
    let tools = probe
        .tools(&name)
        .into_iter()
        .map(|(n, d, _)| (n, d))
        .collect();
    probe.shutdown();
    ready.map(|()| tools)
}

/// The last `max_bytes` of a log file, from the start of a line; empty when
/// the server has not written anything yet.
pub fn log_tail(path: &Path, max_bytes: u64) -> std::io::Result<String> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let start = len.saturating_sub(max_bytes);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if start == 0 {
        return Ok(text);
    }
    // A cut line would start mid-word (or mid-character): drop it.
    Ok(match text.split_once('\n') {
        Some((_, rest)) => rest.to_string(),
        None => text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_tail_starts_at_a_line_and_a_missing_log_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.log");
        assert_eq!(log_tail(&path, 100).unwrap(), "");
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        assert_eq!(log_tail(&path, 10_000).unwrap(), text);
        let tail = log_tail(&path, 20).unwrap();
        assert!(tail.starts_with("line 9"), "{tail:?}");
        assert!(tail.ends_with("line 99\n"), "{tail:?}");
        assert!(tail.len() <= 20);
    }
}
