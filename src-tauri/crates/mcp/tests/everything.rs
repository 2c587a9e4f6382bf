//! Against the real reference servers from npm (installed by .ci/setup.sh):
//! `@modelcontextprotocol/server-everything` over stdio and streamable HTTP,
//! and `@modelcontextprotocol/server-filesystem`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{free_port, node, npm_server, script, wait_file_contains};
use serde_json::json;
use skald_core_api::{
    CancellationToken, ContentBlock, ExecutionOutcome, drive_execution, drive_with_progress,
};
use skald_mcp::{McpManager, McpSource, ServerConfig, Transport};
use skald_tools::{ToolSet, ToolSource};

const TIMEOUT: Duration = Duration::from_secs(30);

fn everything_stdio(log: Option<&std::path::Path>) -> ServerConfig {
    let js = npm_server("server-everything").display().to_string();
    let args = match log {
        // Wrapped so what the server received can be asserted on.
        Some(log) => vec![
            script("tee-stdin.mjs"),
            log.display().to_string(),
            "node".into(),
            js,
            "stdio".into(),
        ],
        None => vec![js, "stdio".into()],
    };
    ServerConfig::new("everything", node(args)).with_timeout(TIMEOUT)
}

#[tokio::test]
async fn everything_over_stdio_echo_image_structured_content() {
    let m = McpManager::new(None, None);
    m.put(everything_stdio(None));
    m.wait_ready("everything").await.unwrap();
    let names: Vec<String> = m.tools("everything").into_iter().map(|t| t.0).collect();
    for t in [
        "echo",
        "get-tiny-image",
        "get-structured-content",
        "trigger-long-running-operation",
    ] {
        assert!(names.iter().any(|n| n == t), "{t} not in {names:?}");
    }
    let out = m
        .call("everything", "echo", json!({"message": "hi"}))
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: hi");
    let img = m
        .call("everything", "get-tiny-image", json!({}))
        .await
        .unwrap();
    assert!(
        img.blocks.iter().any(|b| matches!(b, ContentBlock::Image { mime, data_base64 } if mime == "image/png" && !data_base64.is_empty())),
        "{img:?}"
    );
    assert!(
        img.text_for_model(false).contains("[image: image/png"),
        "{img:?}"
    );
    let sc = m
        .call(
            "everything",
            "get-structured-content",
            json!({"location": "Chicago"}),
        )
        .await
        .unwrap();
    assert!(sc.text.contains("temperature"), "{sc:?}");
    // Invalid arguments come back as a failed call the model can read.
    let e = m
        .call(
            "everything",
            "get-structured-content",
            json!({"location": 5}),
        )
        .await
        .unwrap_err();
    assert!(!e.to_string().is_empty());
    m.shutdown();
}

#[tokio::test]
async fn stop_during_the_long_running_operation_sends_notifications_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let m = McpManager::new(None, None);
    m.put(everything_stdio(Some(&log)));
    m.wait_ready("everything").await.unwrap();
    let set = ToolSet::from_sources(&[&McpSource::new(m.clone()) as &dyn ToolSource]);
    let exec = set
        .run(
            "mcp__everything__trigger-long-running-operation",
            json!({"duration": 30, "steps": 30}),
        )
        .unwrap();
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let _ = tx.send(Instant::now());
        stop.cancel();
    });
    let outcome = drive_execution(exec.as_ref(), cancel).await;
    let since_stop = rx.await.unwrap().elapsed();
    assert_eq!(outcome, ExecutionOutcome::Cancelled);
    assert!(since_stop < Duration::from_millis(100), "{since_stop:?}");
    let received =
        wait_file_contains(&log, "notifications/cancelled", Duration::from_secs(3)).await;
    let call_line = received
        .lines()
        .find(|l| l.contains("trigger-long-running-operation") && l.contains("tools/call"))
        .unwrap();
    let call: serde_json::Value = serde_json::from_str(call_line).unwrap();
    let cancel_line = received
        .lines()
        .find(|l| l.contains("notifications/cancelled"))
        .unwrap();
    let cancelled: serde_json::Value = serde_json::from_str(cancel_line).unwrap();
    assert_eq!(cancelled["params"]["requestId"], call["id"]);
    m.shutdown();
}

/// A free loopback port (the server binds it right after).
#[tokio::test]
async fn everything_over_streamable_http() {
    let port = free_port();
    let js = npm_server("server-everything");
    let mut server = tokio::process::Command::new("node")
        .arg(js)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "HTTP server never listened"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let m = McpManager::new(None, None);
    m.put(
        ServerConfig::new(
            "remote",
            Transport::Http {
                url: format!("http://127.0.0.1:{port}/mcp"),
                headers: [("X-Test".to_string(), "1".to_string())].into(),
                client_id: None,
            },
        )
        .with_timeout(TIMEOUT),
    );
    m.wait_ready("remote").await.unwrap();
    let out = m
        .call("remote", "echo", json!({"message": "over http"}))
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: over http");
    let img = m.call("remote", "get-tiny-image", json!({})).await.unwrap();
    assert!(
        img.blocks
            .iter()
            .any(|b| matches!(b, ContentBlock::Image { .. }))
    );
    m.shutdown();
    let _ = server.kill().await;
}

#[tokio::test]
async fn filesystem_server_reads_inside_its_root_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello from disk").unwrap();
    let js = npm_server("server-filesystem").display().to_string();
    let root = dir.path().canonicalize().unwrap();
    let m = McpManager::new(None, None);
    m.put(
        ServerConfig::new("fs", node(vec![js, root.display().to_string()])).with_timeout(TIMEOUT),
    );
    m.wait_ready("fs").await.unwrap();
    let path = root.join("hello.txt").display().to_string();
    let out = m
        .call("fs", "read_text_file", json!({"path": path}))
        .await
        .unwrap();
    assert!(out.text.contains("hello from disk"), "{out:?}");
    let e = m
        .call("fs", "read_text_file", json!({"path": "/etc/hostname"}))
        .await
        .unwrap_err();
    assert!(
        e.to_string().to_lowercase().contains("denied") || e.to_string().contains("outside"),
        "{e}"
    );
    m.shutdown();
}

/// Through the tool path the session uses (`ToolSet::run`): an image tool's
/// result keeps its image block, and the long-running operation's
/// `notifications/progress` arrive while it runs.
#[tokio::test]
async fn the_tool_path_keeps_images_and_reports_progress() {
    let m = McpManager::new(None, None);
    m.put(everything_stdio(None));
    m.wait_ready("everything").await.unwrap();
    let set = ToolSet::from_sources(&[&McpSource::new(m.clone()) as &dyn ToolSource]);
    let exec = set
        .run("mcp__everything__get-tiny-image", json!({}))
        .unwrap();
    let ExecutionOutcome::Completed(out) =
        drive_execution(exec.as_ref(), CancellationToken::new()).await
    else {
        panic!("the image tool failed");
    };
    assert!(
        out.blocks
            .iter()
            .any(|b| matches!(b, ContentBlock::Image { mime, data_base64 } if mime == "image/png" && !data_base64.is_empty())),
        "{out:?}"
    );

    let exec = set
        .run(
            "mcp__everything__trigger-long-running-operation",
            json!({"duration": 1.2, "steps": 4}),
        )
        .unwrap();
    let mut seen = Vec::new();
    let outcome = drive_with_progress(exec.as_ref(), CancellationToken::new(), |p| {
        seen.push((p.progress, p.total));
    })
    .await;
    let ExecutionOutcome::Completed(out) = outcome else {
        panic!("{outcome:?}");
    };
    assert!(
        out.text.contains("Long running operation completed"),
        "{out:?}"
    );
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(
        seen.iter().all(|(_, total)| *total == Some(4.0)),
        "{seen:?}"
    );
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
    m.shutdown();
}
