//! A call of a session tool the frame is not offered — another kind of
//! agent's tool, or one the approval rules hide — still gets its card's
//! label and target path from the tool itself (its `describe` and
//! `target_path`), live and in the stored history: the frame's tool set
//! holds every tool of the session, and only what it offers is filtered.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, Tool, ToolCategory, ToolDef, ToolDescriptionLength, ToolResult, TypedTool,
};
use skald_llm::{ScriptedTurn, StopReason};
use skald_protocol::{SessionEvent, ToolCallView};
use skald_session::{
    ApprovalGate, ChatSessionHandler, FrameContext, GateCall, GateDecision, InterfaceTools,
    RecordingSink,
};
use skald_tools::ToolSet;

use crate::common::*;

#[derive(Debug, Deserialize, JsonSchema)]
struct StampInput {
    /// The file to stamp.
    #[allow(dead_code)]
    path: String,
}

/// Stamps a file; its label and path are its own.
#[derive(Clone)]
struct Stamp;

impl TypedTool for Stamp {
    type Input = StampInput;
    fn name(&self) -> &str {
        "stamp_file"
    }
    fn description(&self) -> &str {
        "Stamps a file."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
    fn run(&self, _input: StampInput) -> ToolResult {
        Ok("stamped".into())
    }
    fn describe(&self, args: &Value, _l: ToolDescriptionLength) -> String {
        format!("stamp ✦ {}", args["path"].as_str().unwrap_or("?"))
    }
    fn target_path(&self, args: &Value) -> Option<String> {
        args["path"].as_str().map(|p| format!("stamped/{p}"))
    }
}

/// Offers `stamp_file` to sub-agents only; the root frame is not offered
/// it, but the tool is still the session's.
struct SubAgentStamps;

impl InterfaceTools for SubAgentStamps {
    fn build(&self, f: &FrameContext) -> Vec<Arc<dyn Tool>> {
        if f.depth > 0 {
            vec![Arc::new(Stamp)]
        } else {
            Vec::new()
        }
    }
    fn not_offered(&self, f: &FrameContext) -> Vec<Arc<dyn Tool>> {
        if f.depth > 0 {
            Vec::new()
        } else {
            vec![Arc::new(Stamp)]
        }
    }
}

/// Hides `stamp_file` from every request, as a deny rule would.
struct HidingGate;

impl ApprovalGate for HidingGate {
    fn check<'a>(&'a self, _call: &'a GateCall) -> BoxFuture<'a, GateDecision> {
        Box::pin(std::future::ready(GateDecision::Allow { reason: None }))
    }
    fn visible_tools<'a>(
        &'a self,
        _session_id: &'a str,
        defs: Vec<ToolDef>,
        _tools: &'a ToolSet,
    ) -> BoxFuture<'a, Vec<ToolDef>> {
        Box::pin(std::future::ready(
            defs.into_iter()
                .filter(|d| d.name != "stamp_file")
                .collect(),
        ))
    }
}

/// Runs one turn in which the model calls `stamp_file` although it was not
/// offered it; returns the live card and the card in the stored history.
async fn stamp_without_offer(
    wire: impl FnOnce(ChatSessionHandler) -> ChatSessionHandler,
) -> (ToolCallView, ToolCallView, Vec<String>) {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "s1", "stamp_file", r#"{"path": "a.md"}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::new().text("ok").done(StopReason::EndTurn),
    ])
    .await;
    let handler = wire(e.handler.clone());
    let sid = e.session().await;
    let sink = RecordingSink::new();
    handler.send_message(&sid, "stamp", &sink).await.unwrap();
    let offered: Vec<String> = e.request(0).tools.iter().map(|t| t.name.clone()).collect();
    let live = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } => Some(call),
            _ => None,
        })
        .unwrap();
    let stored = handler
        .history(&sid)
        .await
        .unwrap()
        .into_iter()
        .flat_map(|m| m.tool_calls)
        .next()
        .unwrap();
    (live, stored, offered)
}

#[tokio::test]
async fn a_tool_not_offered_to_this_agent_labels_its_card_itself() {
    let (live, stored, offered) = stamp_without_offer(|h| {
        h.with_interface_tools(Arc::new(SubAgentStamps) as Arc<dyn InterfaceTools>)
    })
    .await;
    assert!(!offered.contains(&"stamp_file".to_string()), "{offered:?}");
    for card in [&live, &stored] {
        assert_eq!(card.label_short, "stamp ✦ a.md");
        assert_eq!(card.label_full, "stamp ✦ a.md");
        assert_eq!(card.path.as_deref(), Some("stamped/a.md"));
    }
}

#[tokio::test]
async fn a_tool_hidden_by_the_rules_labels_its_card_itself() {
    let (live, stored, offered) = stamp_without_offer(|h| {
        h.with_gate(Arc::new(HidingGate))
            .with_interface_tools(Arc::new(|_f: &FrameContext| {
                vec![Arc::new(Stamp) as Arc<dyn Tool>]
            }))
    })
    .await;
    assert!(!offered.contains(&"stamp_file".to_string()), "{offered:?}");
    for card in [&live, &stored] {
        assert_eq!(card.label_short, "stamp ✦ a.md");
        assert_eq!(card.path.as_deref(), Some("stamped/a.md"));
    }
}
