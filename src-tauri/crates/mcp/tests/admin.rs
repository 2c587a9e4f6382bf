//! The MCP page's service (`skald_mcp::admin`): what the app's commands do,
//! on a real store and the test server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{script, wait_status};
use skald_mcp::{McpManager, ServerStatus, admin};
use skald_protocol::{McpServerInput, McpStatusView, McpTransportView};
use skald_store::Store;

fn input(name: &str, mode: &str) -> McpServerInput {
    McpServerInput {
        name: name.into(),
        transport: McpTransportView::Stdio {
            command: "node".into(),
            args: vec![script("misbehave.mjs"), mode.into()],
            env: Default::default(),
            cwd: None,
        },
        enabled: true,
        timeout_ms: Some(10_000),
        description: "a test server".into(),
        client_secret: None,
    }
}

#[tokio::test]
async fn save_list_toggle_log_import_and_remove_change_the_store_and_the_running_servers() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data")).await.unwrap();
    let m = McpManager::new(Some(dir.path().join("logs")), Some(store.clone()));
    let mut changes = m.subscribe();

    let v = admin::save(&m, &store, input("good", "ok"), None)
        .await
        .unwrap();
    assert_eq!(v.description, "a test server");
    assert_eq!(v.timeout_ms, 10_000);
    assert_eq!(changes.recv().await.unwrap(), "good");
    wait_status(&m, "good", Duration::from_secs(10), |s| {
        matches!(s, ServerStatus::Ready { .. })
    })
    .await;
    let list = admin::list(&m, &store).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].status, McpStatusView::Ready { tools: 7 });
    assert!(
        list[0]
            .tools
            .iter()
            .any(|t| t.name == "mcp__good__echo" && t.tool == "echo")
    );
    assert!(store.mcp_servers().get("good").await.unwrap().is_some());

    // Rename by saving under a new name with the previous one given.
    admin::save(&m, &store, input("better", "ok"), Some("good"))
        .await
        .unwrap();
    assert!(store.mcp_servers().get("good").await.unwrap().is_none());
    assert_eq!(m.names(), ["better"]);

    let off = admin::set_enabled(&m, &store, "better", false)
        .await
        .unwrap();
    assert_eq!(off.status, McpStatusView::Disabled);
    assert!(
        !store
            .mcp_servers()
            .get("better")
            .await
            .unwrap()
            .unwrap()
            .enabled
    );

    // A server that dies at start: failed with its stderr, which the log keeps.
    admin::save(&m, &store, input("broken", "crash-start"), None)
        .await
        .unwrap();
    // (Its stderr is read alongside the handshake, so a first failure
    // may come before the line does.)
    let s = wait_status(
        &m,
        "broken",
        Duration::from_secs(10),
        |s| matches!(s, ServerStatus::Failed { stderr, .. } if !stderr.is_empty()),
    )
    .await;
    assert!(format!("{s:?}").contains("frobnicator"), "{s:?}");
    let log = admin::log_tail(&m, "broken", admin::LOG_TAIL_BYTES).unwrap();
    assert!(log.contains("cannot open the frobnicator"), "{log}");
    assert!(admin::log_tail(&m, "nobody", 100).is_err());

    let report = admin::import(
        &m,
        &store,
        r#"{"mcpServers": {"imp": {"command": "node", "args": ["x.js"], "alwaysAllow": []}}}"#,
    )
    .await
    .unwrap();
    assert_eq!(report.imported, ["imp"]);
    assert!(
        report.warnings.iter().any(|w| w.contains("alwaysAllow")),
        "{report:?}"
    );
    assert!(m.config("imp").is_some());

    assert!(admin::remove(&m, &store, "imp").await.unwrap());
    assert!(m.config("imp").is_none());
    assert!(store.mcp_servers().get("imp").await.unwrap().is_none());
    assert!(!admin::remove(&m, &store, "imp").await.unwrap());

    // Bad input is refused before anything is stored.
    let mut bad = input("a__b", "ok");
    bad.timeout_ms = None;
    assert!(admin::save(&m, &store, bad, None).await.is_err());
    m.shutdown();
}

#[tokio::test]
async fn test_connection_reports_tools_or_why_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data")).await.unwrap();
    let ok = admin::test(&store, input("probe", "ok")).await;
    assert!(ok.ok, "{ok:?}");
    assert_eq!(ok.tools.len(), 7);
    let bad = admin::test(&store, input("probe", "crash-start")).await;
    assert!(!bad.ok);
    assert!(
        bad.error
            .as_deref()
            .unwrap_or_default()
            .contains("frobnicator"),
        "{bad:?}"
    );
    assert!(store.mcp_servers().list().await.unwrap().is_empty());
}
