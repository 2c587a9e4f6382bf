//! The MCP page's operations (`skald_mcp::admin`): every change reaches the
//! store and the running manager together; `sync` picks up what the CLI
//! wrote; a test connection reports tools or a failure with stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{misbehave, node, npm_server, wait_status};
use skald_mcp::{McpManager, ServerConfig, ServerStatus, admin};
use skald_store::Store;

const WITHIN: Duration = Duration::from_secs(30);

fn everything(name: &str) -> ServerConfig {
    let js = npm_server("server-everything").display().to_string();
    ServerConfig::new(name, node(vec![js, "stdio".into()])).with_timeout(WITHIN)
}

#[tokio::test]
async fn save_toggle_rename_and_remove_reach_store_and_manager() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let m = McpManager::new(Some(dir.path().join("logs")), Some(store.clone()));

    assert!(
        admin::save(&store, &m, everything("ev"), None)
            .await
            .unwrap()
    );
    wait_status(&m, "ev", WITHIN, |s| matches!(s, ServerStatus::Ready { .. })).await;
    assert!(m.tools("ev").iter().any(|t| t.0 == "echo"));
    assert!(store.mcp_servers().get("ev").await.unwrap().is_some());

    let off = admin::set_enabled(&store, &m, "ev", false).await.unwrap();
    assert!(!off.enabled);
    assert_eq!(m.status("ev"), Some(ServerStatus::Disabled));
    assert!(!store.mcp_servers().get("ev").await.unwrap().unwrap().enabled);
    assert!(admin::set_enabled(&store, &m, "nope", true).await.is_err());

    // An edit that renames: the old name is gone from both.
    let renamed = everything("ev2").with_description("renamed");
    assert!(
        admin::save(&store, &m, renamed, Some("ev"))
            .await
            .unwrap()
    );
    assert_eq!(m.status("ev"), None);
    assert!(store.mcp_servers().get("ev").await.unwrap().is_none());
    assert_eq!(m.config("ev2").unwrap().description, "renamed");
    // A rename onto another server's name is refused, nothing lost.
    admin::save(&store, &m, everything("other"), None)
        .await
        .unwrap();
    let err = admin::save(&store, &m, everything("other"), Some("ev2"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    assert!(store.mcp_servers().get("ev2").await.unwrap().is_some());

    assert!(admin::remove(&store, &m, "ev2").await.unwrap());
    assert_eq!(m.status("ev2"), None);
    assert!(!admin::remove(&store, &m, "ev2").await.unwrap());
    m.shutdown();
}

#[tokio::test]
async fn sync_follows_what_another_process_wrote_to_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let m = McpManager::new(None, Some(store.clone()));
    let log = dir.path().join("misbehave.log");
    let mut cli_added = misbehave("cli", "ok", &log, WITHIN);
    cli_added.enabled = false;
    store
        .mcp_servers()
        .upsert(&cli_added.to_row().unwrap())
        .await
        .unwrap();
    m.put(misbehave("stale", "ok", &log, WITHIN));

    let configs = admin::sync(&store, &m).await.unwrap();
    assert_eq!(
        configs.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["cli"]
    );
    assert_eq!(m.names(), ["cli"]);
    assert_eq!(m.status("cli"), Some(ServerStatus::Disabled));

    // Enabled by the CLI: the next sync starts it.
    store.mcp_servers().set_enabled("cli", true).await.unwrap();
    admin::sync(&store, &m).await.unwrap();
    wait_status(&m, "cli", WITHIN, |s| matches!(s, ServerStatus::Ready { .. })).await;
    m.shutdown();
}

#[tokio::test]
async fn import_stores_usable_entries_and_reports_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let m = McpManager::new(None, Some(store.clone()));
    let text = r#"{"mcpServers": {
        "off": {"command": "node", "args": ["x.js"], "disabled": true, "alwaysAllow": []},
        "bad__name": {"command": "x"}
    }}"#;
    let report = admin::import(&store, &m, text).await.unwrap();
    assert_eq!(report.servers.len(), 1);
    assert!(
        report.warnings.iter().any(|w| w.contains("alwaysAllow")),
        "{:?}",
        report.warnings
    );
    assert!(store.mcp_servers().get("off").await.unwrap().is_some());
    assert_eq!(m.status("off"), Some(ServerStatus::Disabled));
    let err = admin::import(&store, &m, r#"{"mcpServers": {"a__b": {"command": "x"}}}"#)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no server could be imported"), "{err}");
    m.shutdown();
}

#[tokio::test]
async fn a_test_connection_lists_tools_or_says_why_with_stderr() {
    let tools = admin::test(None, everything("probe")).await.unwrap();
    assert!(tools.iter().any(|(n, d)| n == "echo" && !d.is_empty()));

    let dir = tempfile::tempdir().unwrap();
    let err = admin::test(
        None,
        misbehave("broken", "crash-start", &dir.path().join("l"), WITHIN),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(err.contains("cannot open the frobnicator"), "{err}");
}
