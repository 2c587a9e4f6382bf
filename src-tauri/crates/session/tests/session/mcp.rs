//! An MCP server's progress reaches the session's event stream: the real
//! `@modelcontextprotocol/server-everything` (installed by .ci/setup.sh into
//! `$SKALD_MCP_SERVERS`) runs its long-running operation as a model's call.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use skald_llm::ScriptedTurn;
use skald_mcp::{McpManager, McpSource, ServerConfig, Transport};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::RecordingSink;

use crate::common::*;

fn everything() -> ServerConfig {
    let root = std::env::var_os("SKALD_MCP_SERVERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/skald-mcp-servers")
        });
    let js = root.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        js.is_file(),
        "{} is missing: run .ci/setup.sh",
        js.display()
    );
    ServerConfig::new(
        "everything",
        Transport::Stdio {
            command: "node".into(),
            args: vec![js.display().to_string(), "stdio".into()],
            env: Default::default(),
            cwd: None,
        },
    )
    .with_timeout(Duration::from_secs(30))
}

#[tokio::test]
async fn mcp_progress_notifications_reach_the_event_stream_before_the_result() {
    let name = "mcp__everything__trigger-long-running-operation";
    let e = env([
        ScriptedTurn::tool_reply("m1", name, json!({"duration": 1.2, "steps": 4}).to_string()),
        ScriptedTurn::text_reply("Done."),
    ])
    .await;
    let m = McpManager::new(None, None);
    m.put(everything());
    m.wait_ready("everything").await.unwrap();
    let handler = e
        .handler
        .clone()
        .with_tool_source(Arc::new(McpSource::new(m.clone())));
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = handler.send_message(&sid, "go", &sink).await.unwrap();
    m.shutdown();
    assert_eq!(outcome, TurnOutcome::Completed);
    let events = sink.events();
    let done = events
        .iter()
        .position(
            |ev| matches!(ev, SessionEvent::ToolDone { tool_call_id, .. } if tool_call_id == "m1"),
        )
        .unwrap_or_else(|| panic!("{events:?}"));
    let progress: Vec<(Option<f64>, Option<f64>)> = events[..done]
        .iter()
        .filter_map(|ev| match ev {
            SessionEvent::ToolProgress {
                tool_call_id,
                progress,
                total,
                ..
            } if tool_call_id == "m1" => Some((*progress, *total)),
            _ => None,
        })
        .collect();
    assert!(progress.len() >= 2, "{progress:?}");
    assert!(
        progress.iter().all(|(_, t)| *t == Some(4.0)),
        "{progress:?}"
    );
}
