//! The misbehaving server (tests/servers/misbehave.mjs): every way a server
//! goes wrong gives a clear error within its timeout, other servers stay
//! responsive, a crashed server is restarted, and Stop reaches the server as
//! `notifications/cancelled`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{misbehave, wait_file_contains, wait_status};
use serde_json::json;
use skald_core_api::{CancellationToken, ExecutionOutcome, drive_execution};
use skald_mcp::{McpError, McpManager, McpSource, ServerStatus};
use skald_tools::{ToolSet, ToolSource};

const SHORT: Duration = Duration::from_secs(2);

fn manager() -> (tempfile::TempDir, McpManager) {
    let dir = tempfile::tempdir().unwrap();
    let m = McpManager::new(Some(dir.path().join("logs")), None);
    (dir, m)
}

#[tokio::test]
async fn a_good_server_calls_and_reports_tool_errors() {
    let (dir, m) = manager();
    m.put(misbehave("good", "ok", &dir.path().join("log"), SHORT));
    m.wait_ready("good").await.unwrap();
    assert_eq!(m.status("good"), Some(ServerStatus::Ready { tools: 7 }));
    let out = m.call("good", "echo", json!({"text": "hi"})).await.unwrap();
    assert_eq!(out.text, "echo: hi");
    let e = m.call("good", "fail", json!({})).await.unwrap_err();
    assert!(
        matches!(&e, McpError::ToolFailed(m) if m == "the frobnicator is out of order"),
        "{e}"
    );
    let e = m.call("good", "nope", json!({})).await.unwrap_err();
    assert!(e.to_string().contains("unknown tool nope"), "{e}");
    let e = m.call("missing", "echo", json!({})).await.unwrap_err();
    assert!(matches!(e, McpError::UnknownServer(_)));
}

#[tokio::test]
async fn a_server_that_crashes_on_start_fails_with_its_stderr() {
    let (dir, m) = manager();
    m.put(misbehave(
        "crashy",
        "crash-start",
        &dir.path().join("log"),
        Duration::from_secs(10),
    ));
    let start = Instant::now();
    let e = m.wait_ready("crashy").await.unwrap_err().to_string();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(e.contains("not ready"), "{e}");
    wait_status(&m, "crashy", SHORT, |s| matches!(s, ServerStatus::Failed { stderr, .. } if stderr.iter().any(|l| l.contains("frobnicator")))).await;
    // The per-server log has it too.
    let log = std::fs::read_to_string(m.log_path("crashy").unwrap()).unwrap();
    assert!(log.contains("cannot open the frobnicator"), "{log}");
}

#[tokio::test]
async fn a_server_that_never_answers_the_handshake_fails_within_its_timeout() {
    let (dir, m) = manager();
    let timeout = Duration::from_millis(800);
    m.put(
        misbehave("mute", "hang-init", &dir.path().join("log"), timeout)
            .with_connect_timeout(timeout),
    );
    let start = Instant::now();
    let e = m.wait_ready("mute").await.unwrap_err().to_string();
    let took = start.elapsed();
    assert!(took >= timeout && took < timeout + SHORT, "{took:?}");
    assert!(e.contains("mute") && e.contains("800 ms"), "{e}");
}

#[tokio::test]
async fn garbage_on_stdout_fails_within_the_timeout() {
    let (dir, m) = manager();
    let timeout = Duration::from_millis(800);
    m.put(
        misbehave("noise", "garbage", &dir.path().join("log"), timeout)
            .with_connect_timeout(timeout),
    );
    let start = Instant::now();
    let e = m.wait_ready("noise").await.unwrap_err().to_string();
    assert!(start.elapsed() < timeout + SHORT, "{:?}", start.elapsed());
    assert!(e.contains("noise"), "{e}");
}

#[tokio::test]
async fn a_crash_mid_call_is_an_error_and_the_server_comes_back() {
    let (dir, m) = manager();
    m.put(misbehave(
        "fragile",
        "ok",
        &dir.path().join("log"),
        Duration::from_secs(5),
    ));
    m.wait_ready("fragile").await.unwrap();
    let start = Instant::now();
    let e = m
        .call("fragile", "crash", json!({}))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(!e.is_empty());
    // Restarted with backoff, then usable again.
    wait_status(&m, "fragile", Duration::from_secs(10), |s| {
        matches!(s, ServerStatus::Ready { .. })
    })
    .await;
    let out = m
        .call("fragile", "echo", json!({"text": "back"}))
        .await
        .unwrap();
    assert_eq!(out.text, "echo: back");
}

#[tokio::test]
async fn a_hanging_call_times_out_with_cancelled_and_others_stay_responsive() {
    let (dir, m) = manager();
    let log = dir.path().join("log");
    // The call timeout is short; the start may take longer (see `misbehave`):
    // node's start-up alone passed 700 ms on a loaded machine.
    m.put(misbehave("stuck", "ok", &log, Duration::from_millis(1000)));
    m.put(misbehave("fine", "ok", &dir.path().join("log2"), SHORT));
    m.wait_ready("stuck").await.unwrap();
    m.wait_ready("fine").await.unwrap();
    let hang = {
        let m = m.clone();
        tokio::spawn(async move { m.call("stuck", "sleep", json!({"ms": 60000})).await })
    };
    // While one server hangs, the other answers at once.
    let out = m
        .call("fine", "echo", json!({"text": "still here"}))
        .await
        .unwrap();
    assert_eq!(out.text, "echo: still here");
    let e = hang.await.unwrap().unwrap_err();
    assert!(
        matches!(e, McpError::Timeout { ref server, ms: 1000 } if server == "stuck"),
        "{e}"
    );
    wait_file_contains(&log, "cancelled", SHORT).await;
    // A slow answer inside the timeout is fine.
    let out = m.call("stuck", "sleep", json!({"ms": 200})).await.unwrap();
    assert_eq!(out.text, "slept 200 ms");
}

#[tokio::test]
async fn stop_drops_the_call_and_the_server_gets_notifications_cancelled() {
    let (dir, m) = manager();
    let log = dir.path().join("log");
    m.put(misbehave("long", "ok", &log, Duration::from_secs(30)));
    m.wait_ready("long").await.unwrap();
    let set = ToolSet::from_sources(&[&McpSource::new(m.clone()) as &dyn ToolSource]);
    let exec = set.run("mcp__long__sleep", json!({"ms": 60000})).unwrap();
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    let stopped_at = Arc::new(std::sync::Mutex::new(None));
    let at = stopped_at.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        *at.lock().unwrap() = Some(Instant::now());
        stopper.cancel();
    });
    let outcome = drive_execution(exec.as_ref(), cancel).await;
    let since_stop = stopped_at.lock().unwrap().unwrap().elapsed();
    assert_eq!(outcome, ExecutionOutcome::Cancelled);
    assert!(since_stop < Duration::from_millis(100), "{since_stop:?}");
    let text = wait_file_contains(&log, "cancelled", SHORT).await;
    assert!(text.contains("sleep started"), "{text}");
}

#[tokio::test]
async fn tools_are_named_labelled_and_refreshed_on_list_changed() {
    let (dir, m) = manager();
    m.put(misbehave("lab", "ok", &dir.path().join("log"), SHORT));
    m.wait_ready("lab").await.unwrap();
    let source = McpSource::new(m.clone());
    let set = ToolSet::from_sources(&[&source as &dyn ToolSource]);
    assert!(set.contains("mcp__lab__echo"));
    assert_eq!(set.source_of("mcp__lab__echo").as_deref(), Some("mcp"));
    assert_eq!(set.category_of("mcp__lab__echo"), None);
    let label = set.describe_call(
        "mcp__lab__echo",
        &json!({}),
        skald_core_api::ToolDescriptionLength::Short,
    );
    assert_eq!(label, "lab · echo");
    let def = set.get("mcp__lab__echo").unwrap().definition();
    assert_eq!(def.description, "[lab] Echoes text back");
    m.call("lab", "add_tool", json!({})).await.unwrap();
    wait_status(&m, "lab", SHORT, |s| s == &ServerStatus::Ready { tools: 8 }).await;
    assert!(source.tools().iter().any(|t| t.name() == "mcp__lab__added"));
}

#[tokio::test]
async fn a_disabled_server_does_not_start_and_says_so() {
    let (dir, m) = manager();
    let mut c = misbehave("off", "ok", &dir.path().join("log"), SHORT);
    c.enabled = false;
    m.put(c);
    assert_eq!(m.status("off"), Some(ServerStatus::Disabled));
    let e = m.wait_ready("off").await.unwrap_err();
    assert!(matches!(e, McpError::Disabled(_)));
    assert!(m.remove("off"));
    assert_eq!(m.status("off"), None);
}

#[tokio::test]
async fn a_turn_waits_for_a_granted_server_still_connecting() {
    let (dir, m) = manager();
    m.put(misbehave("late", "ok", &dir.path().join("log"), SHORT));
    let source = McpSource::new(m.clone());
    // Just put: still connecting, nothing to offer yet.
    source
        .prepare(&["late".to_string(), "unknown".to_string()])
        .await;
    assert!(source.tools().iter().any(|t| t.name() == "mcp__late__echo"));
    let groups = m.groups();
    assert_eq!(groups, [("late".to_string(), "7 tools".to_string())]);
}

#[tokio::test]
async fn the_config_tools_register_toggle_list_and_delete_a_server() {
    let (dir, m) = manager();
    let store = skald_store::Store::open(&dir.path().join("data"))
        .await
        .unwrap();
    let mut tools = skald_mcp::config_tools(m.clone(), store.clone());
    let items = skald_mcp::items(m.clone(), store.clone());
    tools.push(std::sync::Arc::new(skald_tools::ListItems::new(vec![
        items.clone(),
    ])));
    tools.push(std::sync::Arc::new(skald_tools::ToggleItem::new(vec![
        items,
    ])));
    let tool = |n: &str| tools.iter().find(|t| t.name() == n).unwrap().clone();
    let script = common::script("misbehave.mjs");
    let out = tool("register_mcp")
        .execute_async(json!({"name": "agentmade", "command": "node", "args": [script, "ok"], "description": "made by the agent"}))
        .await
        .unwrap();
    assert!(
        out.starts_with("Registered MCP server `agentmade`"),
        "{out}"
    );
    assert!(
        store
            .mcp_servers()
            .get("agentmade")
            .await
            .unwrap()
            .is_some()
    );
    m.wait_ready("agentmade").await.unwrap();
    let listed = tool("list_items")
        .execute_async(json!({"type": "mcp"}))
        .await
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(v["mcp"][0]["status"], "ready");
    assert_eq!(v["mcp"][0]["description"], "made by the agent");
    assert!(
        v["mcp"][0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "echo")
    );
    assert!(tool("delete_mcp").traits().destructive);
    assert_eq!(
        tool("toggle_item").category(),
        skald_core_api::ToolCategory::Config
    );
    tool("toggle_item")
        .execute_async(json!({"kind": "mcp", "name": "agentmade", "enabled": false}))
        .await
        .unwrap();
    assert_eq!(m.status("agentmade"), Some(ServerStatus::Disabled));
    assert!(
        !store
            .mcp_servers()
            .get("agentmade")
            .await
            .unwrap()
            .unwrap()
            .enabled
    );
    assert!(
        tool("register_mcp")
            .execute_async(json!({"name": "x"}))
            .await
            .is_err()
    );
    tool("delete_mcp")
        .execute_async(json!({"name": "agentmade"}))
        .await
        .unwrap();
    assert!(m.status("agentmade").is_none());
    assert!(
        tool("delete_mcp")
            .execute_async(json!({"name": "agentmade"}))
            .await
            .is_err()
    );
    store.close().await;
}
