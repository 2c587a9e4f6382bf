//! Lazy tool groups: an MCP server's tools are absent until
//! `activate_tools` grants the server, present from the next round on, and
//! the grant is kept for the session; unknown names get a diagnostic that
//! lists what can be activated.

use std::sync::Arc;

use serde_json::Value;
use skald_core_api::{Tool, ToolCategory, ToolResult};
use skald_llm::{ScriptedTurn, StopReason};
use skald_protocol::TurnOutcome;
use skald_session::{ActivateTools, GroupLister, InterfaceTools, RecordingSink, ToolGroup};
use skald_tools::{ToolSource, source};

use crate::common::*;

/// Stands in for an MCP server's tool.
struct Ping;

impl Tool for Ping {
    fn name(&self) -> &str {
        "mcp__demo__ping"
    }
    fn description(&self) -> &str {
        "[demo] Ping"
    }
    fn parameters_schema(&self) -> Value {
        serde_json::json!({"type": "object", "properties": {}})
    }
    fn execute(&self, _args: Value) -> ToolResult {
        Ok("pong".into())
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
}

struct DemoSource;

impl ToolSource for DemoSource {
    fn source(&self) -> &str {
        source::MCP
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(Ping)]
    }
}

fn offered(req: &skald_llm::ChatRequest) -> Vec<String> {
    req.tools.iter().map(|t| t.name.clone()).collect()
}

fn lister() -> Arc<dyn GroupLister> {
    Arc::new(|| {
        vec![ToolGroup {
            name: "demo".into(),
            description: "a demo server".into(),
        }]
    })
}

#[tokio::test]
async fn activated_servers_tools_reach_the_model_from_the_next_round() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "c1", "activate_tools", r#"{"groups": ["nope"]}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::new()
            .tool_call(0, "c2", "activate_tools", r#"{"groups": ["demo"]}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::new()
            .tool_call(0, "c3", "mcp__demo__ping", "{}")
            .done(StopReason::ToolUse),
        ScriptedTurn::new().text("Done.").done(StopReason::EndTurn),
        ScriptedTurn::new().text("Again.").done(StopReason::EndTurn),
    ])
    .await;
    let handler = e
        .handler
        .clone()
        .with_tool_source(Arc::new(DemoSource))
        .with_interface_tools(Arc::new(ActivateTools::new(lister())) as Arc<dyn InterfaceTools>);
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = handler.send_message(&sid, "ping", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    let first = offered(&e.request(0));
    assert!(first.contains(&"activate_tools".to_string()), "{first:?}");
    assert!(!first.contains(&"mcp__demo__ping".to_string()), "{first:?}");
    // Still absent after a failed activation.
    assert!(!offered(&e.request(1)).contains(&"mcp__demo__ping".to_string()));
    assert!(offered(&e.request(2)).contains(&"mcp__demo__ping".to_string()));

    let rows = e.tool_rows(&sid).await;
    let unknown = rows[0].result.clone().unwrap_or_default();
    assert!(unknown.contains("unknown group(s): nope"), "{unknown}");
    assert!(
        unknown.contains("config") && unknown.contains("demo (a demo server)"),
        "{unknown}"
    );
    assert!(
        rows[1]
            .result
            .clone()
            .unwrap_or_default()
            .starts_with("Activated: demo")
    );
    assert_eq!(rows[2].result.as_deref(), Some("pong"));

    // The grant is the session's: the next turn offers the tool at once.
    handler.send_message(&sid, "again", &sink).await.unwrap();
    assert!(offered(&e.request(4)).contains(&"mcp__demo__ping".to_string()));
    assert_eq!(e.store.grants().list_session(&sid).await.unwrap(), ["demo"]);
}

#[tokio::test]
async fn activating_config_brings_in_the_config_group() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "c1", "activate_tools", r#"{"groups": ["config"]}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::new().text("ok").done(StopReason::EndTurn),
    ])
    .await;
    let handler = e
        .handler
        .clone()
        .with_interface_tools(Arc::new(ActivateTools::new(lister())) as Arc<dyn InterfaceTools>);
    let sid = e.session().await;
    handler
        .send_message(&sid, "config", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(
        e.store.grants().list_session(&sid).await.unwrap(),
        ["config"]
    );
}

#[tokio::test]
async fn mcp_list_names_enabled_servers_and_an_always_on_server_needs_no_activation() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "c1", "mcp__demo__ping", "{}")
            .done(StopReason::ToolUse),
        ScriptedTurn::new().text("Done.").done(StopReason::EndTurn),
        ScriptedTurn::new().text("Other.").done(StopReason::EndTurn),
    ])
    .await;
    let agent_md = e
        .dir
        .path()
        .canonicalize()
        .unwrap()
        .join("agents/main/AGENT.md");
    std::fs::write(
        &agent_md,
        "You are a test agent.\nServers:\n<!-- MCP_LIST -->\nEnd.\n",
    )
    .unwrap();
    let lister: Arc<dyn GroupLister> = Arc::new(|| {
        vec![
            ToolGroup {
                name: "demo".into(),
                description: "a demo server; 1 tools".into(),
            },
            ToolGroup {
                name: "other".into(),
                description: "files; 14 tools".into(),
            },
        ]
    });
    let handler = e
        .handler
        .clone()
        .with_tool_source(Arc::new(DemoSource))
        .with_interface_tools(Arc::new(ActivateTools::new(lister)) as Arc<dyn InterfaceTools>);
    let sid = e.session().await;
    handler
        .set_mcp_always_on(Some(&sid), &["demo".to_string(), "config".to_string()])
        .await
        .unwrap();
    assert_eq!(handler.mcp_always_on(Some(&sid)).await.unwrap(), ["demo"]);
    let sink = RecordingSink::new();
    let outcome = handler.send_message(&sid, "ping", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let req = e.request(0);
    let system = req.system.clone().unwrap_or_default();
    assert!(
        system.contains("- `demo` (always on): a demo server; 1 tools"),
        "{system}"
    );
    assert!(system.contains("- `other`: files; 14 tools"), "{system}");
    assert!(system.contains("activate_tools"), "{system}");
    assert!(!system.contains("<!-- MCP_LIST -->"), "{system}");
    // Offered in the first round, without activate_tools; no grant stored.
    assert!(offered(&req).contains(&"mcp__demo__ping".to_string()));
    assert_eq!(e.tool_rows(&sid).await[0].result.as_deref(), Some("pong"));
    assert!(
        e.store
            .grants()
            .list_session(&sid)
            .await
            .unwrap()
            .is_empty()
    );

    // Another session does not have it always on; the global setting does.
    let other = e.session().await;
    handler.send_message(&other, "x", &sink).await.unwrap();
    assert!(!offered(&e.request(2)).contains(&"mcp__demo__ping".to_string()));
    handler
        .set_mcp_always_on(None, &["demo".to_string()])
        .await
        .unwrap();
    assert_eq!(handler.mcp_always_on(Some(&other)).await.unwrap(), ["demo"]);
}
