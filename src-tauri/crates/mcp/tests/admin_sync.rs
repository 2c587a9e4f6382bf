//! The MCP page's operations (`skald_mcp::admin`): every change reaches the
//! store and the running manager together; listing picks up what the CLI
//! wrote; a test connection reports tools or a failure with stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{misbehave, npm_server, script, wait_status};
use skald_mcp::{McpManager, ServerStatus, admin};
use skald_protocol::{McpServerInput, McpStatusView, McpTransportView};
use skald_store::Store;

const WITHIN: Duration = Duration::from_secs(30);

fn node_input(name: &str, args: Vec<String>) -> McpServerInput {
    McpServerInput {
        name: name.into(),
        transport: McpTransportView::Stdio {
            command: "node".into(),
            args,
            env: Default::default(),
            cwd: None,
        },
        enabled: true,
        timeout_ms: Some(30_000),
        description: String::new(),
        client_secret: None,
    }
}

fn everything(name: &str) -> McpServerInput {
    let js = npm_server("server-everything").display().to_string();
    node_input(name, vec![js, "stdio".into()])
}

#[tokio::test]
async fn save_toggle_rename_and_remove_reach_store_and_manager() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let m = McpManager::new(Some(dir.path().join("logs")), Some(store.clone()));

    admin::save(&m, &store, everything("ev"), None)
        .await
        .unwrap();
    wait_status(&m, "ev", WITHIN, |s| {
        matches!(s, ServerStatus::Ready { .. })
    })
    .await;
    let listed = admin::list(&m, &store).await;
    assert_eq!(listed.len(), 1);
    assert!(matches!(listed[0].status, McpStatusView::Ready { .. }));
    assert!(
        listed[0]
            .tools
            .iter()
            .any(|t| t.tool == "echo" && t.name == "mcp__ev__echo" && !t.description.is_empty())
    );

    let off = admin::set_enabled(&m, &store, "ev", false).await.unwrap();
    assert_eq!(off.status, McpStatusView::Disabled);
    assert!(
        !store
            .mcp_servers()
            .get("ev")
            .await
            .unwrap()
            .unwrap()
            .enabled
    );
    assert!(admin::set_enabled(&m, &store, "nope", true).await.is_err());

    // An edit that renames: the old name is gone from both.
    let mut renamed = everything("ev2");
    renamed.description = "renamed".into();
    admin::save(&m, &store, renamed, Some("ev")).await.unwrap();
    assert_eq!(m.status("ev"), None);
    assert!(store.mcp_servers().get("ev").await.unwrap().is_none());
    assert_eq!(m.config("ev2").unwrap().description, "renamed");
    // A rename onto another server's name is refused, nothing lost.
    admin::save(&m, &store, everything("other"), None)
        .await
        .unwrap();
    let err = admin::save(&m, &store, everything("other"), Some("ev2"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    assert!(store.mcp_servers().get("ev2").await.unwrap().is_some());

    assert!(admin::remove(&m, &store, "ev2").await.unwrap());
    assert_eq!(m.status("ev2"), None);
    assert!(!admin::remove(&m, &store, "ev2").await.unwrap());
    m.shutdown();
}

#[tokio::test]
async fn listing_follows_what_another_process_wrote_to_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let m = McpManager::new(None, Some(store.clone()));
    let log = dir.path().join("misbehave.log");
    // As `skald mcp add --disabled` leaves it.
    let mut cli_added = misbehave("cli", "ok", &log, WITHIN);
    cli_added.enabled = false;
    store
        .mcp_servers()
        .upsert(&cli_added.to_row().unwrap())
        .await
        .unwrap();
    m.put(misbehave("stale", "ok", &log, WITHIN));

    let listed = admin::list(&m, &store).await;
    let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["cli"]);
    assert_eq!(listed[0].status, McpStatusView::Disabled);
    assert_eq!(m.names(), ["cli"]);

    // Enabled by the CLI (`skald mcp enable`): the next listing starts it.
    store.mcp_servers().set_enabled("cli", true).await.unwrap();
    admin::list(&m, &store).await;
    wait_status(&m, "cli", WITHIN, |s| {
        matches!(s, ServerStatus::Ready { .. })
    })
    .await;
    m.shutdown();
}

#[tokio::test]
async fn a_test_connection_lists_tools_or_says_why_with_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let ok = admin::test(&store, everything("probe")).await;
    assert!(ok.ok, "{:?}", ok.error);
    assert!(ok.tools.iter().any(|t| t.tool == "echo"));
    // Nothing was stored.
    assert!(store.mcp_servers().list().await.unwrap().is_empty());

    let broken = admin::test(
        &store,
        node_input(
            "broken",
            vec![script("misbehave.mjs"), "crash-start".into()],
        ),
    )
    .await;
    assert!(!broken.ok);
    let err = broken.error.unwrap_or_default();
    assert!(err.contains("cannot open the frobnicator"), "{err}");
}
