//! An InterfaceTool added to a session in a few lines: the model is offered
//! it and can call it, the gate sees its category and source, and its label
//! and target path reach its card — with what it needs (the session id, the
//! working directory) captured when it was built for the frame.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skald_core_api::{BoxFuture, Tool, ToolCategory, ToolDescriptionLength, ToolResult, TypedTool};
use skald_llm::{ScriptedTurn, StopReason};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{
    ApprovalGate, FrameContext, GateCall, GateDecision, InterfaceTools, RecordingSink,
};

use crate::common::*;

#[derive(Debug, Deserialize, JsonSchema)]
struct PinInput {
    /// The file to pin.
    path: String,
}

/// Pins a file for the person: knows its session and directory from birth.
#[derive(Clone)]
struct Pin {
    session_id: String,
    workdir: String,
}

impl TypedTool for Pin {
    type Input = PinInput;
    fn name(&self) -> &str {
        "pin_file"
    }
    fn description(&self) -> &str {
        "Pins a file for the person."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
    fn run(&self, input: PinInput) -> ToolResult {
        Ok(format!(
            "pinned {} for {} in {}",
            input.path, self.session_id, self.workdir
        ))
    }
    fn describe(&self, args: &Value, _l: ToolDescriptionLength) -> String {
        format!("pin_file `{}`", args["path"].as_str().unwrap_or("?"))
    }
    fn target_path(&self, args: &Value) -> Option<String> {
        args["path"].as_str().map(str::to_string)
    }
}

/// A gate that allows everything and remembers what it was asked.
#[derive(Default)]
struct SeeingGate(Mutex<Vec<GateCall>>);

impl ApprovalGate for SeeingGate {
    fn check<'a>(&'a self, call: &'a GateCall) -> BoxFuture<'a, GateDecision> {
        self.0.lock().unwrap().push(call.clone());
        Box::pin(std::future::ready(GateDecision::Allow { reason: None }))
    }
}

#[tokio::test]
async fn an_interface_tool_is_offered_called_gated_and_labelled() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "c1", "pin_file", r#"{"path": "notes.md"}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::new()
            .text("Pinned.")
            .done(StopReason::EndTurn),
    ])
    .await;
    let gate = Arc::new(SeeingGate::default());
    // The few lines a new kind of session tool needs:
    let pins = |f: &FrameContext| -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(Pin {
            session_id: f.session_id.clone(),
            workdir: f.working_dir.display().to_string(),
        })]
    };
    let handler = e
        .handler
        .clone()
        .with_gate(gate.clone())
        .with_interface_tools(Arc::new(pins) as Arc<dyn InterfaceTools>);
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = handler.send_message(&sid, "pin it", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    // Offered to the model beside the built-ins.
    let offered: Vec<String> = e
        .request(0)
        .tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect();
    assert!(offered.contains(&"pin_file".to_string()), "{offered:?}");
    assert!(offered.contains(&"read_file".to_string()));

    // Run, with what was captured at build time.
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows.len(), 1);
    let result = rows[0].result.clone().unwrap_or_default();
    assert_eq!(
        result,
        format!("pinned notes.md for {sid} in {}", e.workdir.display())
    );

    // The gate saw its category and source.
    let seen = gate.0.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].category, Some(ToolCategory::Introspection));
    assert_eq!(seen[0].source.as_deref(), Some("synthetic"));
    assert_eq!(seen[0].path.as_deref(), Some("notes.md"));

    // Its card: label and target path, live and in the stored history.
    let started = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } => Some(call),
            _ => None,
        })
        .unwrap();
    assert_eq!(started.label_short, "pin_file `notes.md`");
    assert_eq!(started.path.as_deref(), Some("notes.md"));
    let history = handler.history(&sid).await.unwrap();
    let card = history
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .next()
        .unwrap();
    assert_eq!(card.label_short, "pin_file `notes.md`");
    assert_eq!(json!(card.path), json!("notes.md"));
}

#[derive(Debug, Deserialize, JsonSchema)]
struct TakeInput {}

/// Takes the id of the next call of the same message in another session,
/// as a second process sharing the database could between the check and
/// the insert.
#[derive(Clone)]
struct TakeId(skald_store::Store, String);

impl TypedTool for TakeId {
    type Input = TakeInput;
    fn name(&self) -> &str {
        "take_id"
    }
    fn description(&self) -> &str {
        "Takes an id."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
    fn run_async(&self, _input: TakeInput) -> BoxFuture<'static, ToolResult> {
        let (store, other) = (self.0.clone(), self.1.clone());
        Box::pin(async move {
            store
                .tool_calls()
                .insert(&skald_store::NewToolCall {
                    id: "c2".into(),
                    session_id: other,
                    message_id: None,
                    name: "read_file".into(),
                    arguments: "{}".into(),
                    status: skald_store::ToolCallStatus::Done,
                })
                .await
                .map_err(|e| skald_core_api::ToolError::failed(e.to_string()))?;
            Ok("took c2".into())
        })
    }
}

/// A call id taken by another process after it was checked gets a fresh
/// one — in its row, its assistant message and its result alike — and the
/// session goes on working (it used to fail with UNIQUE constraint failed,
/// then on every later turn).
#[tokio::test]
async fn a_call_id_taken_meanwhile_is_renamed_and_the_session_stays_usable() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "c1", "take_id", "{}")
            .tool_call(1, "c2", "list_files", "{}")
            .done(StopReason::ToolUse),
        ScriptedTurn::new()
            .text("Both done.")
            .done(StopReason::EndTurn),
        ScriptedTurn::new()
            .text("Still here.")
            .done(StopReason::EndTurn),
    ])
    .await;
    let other = e.session().await;
    let sid = e.session().await;
    let store = e.store.clone();
    let taker = move |_f: &FrameContext| -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(TakeId(store.clone(), other.clone()))]
    };
    let handler = e
        .handler
        .clone()
        .with_interface_tools(Arc::new(taker) as Arc<dyn InterfaceTools>);
    let outcome = handler
        .send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows.len(), 2);
    let renamed = &rows[1].id;
    assert_ne!(renamed, "c2");
    assert_eq!(rows[1].name, "list_files");
    // The assistant message and the result carry the same fresh id.
    let history = e.history_rows(&sid).await;
    let calls = history.iter().find_map(|m| m.tool_calls.clone()).unwrap();
    assert_eq!(calls[1]["id"], json!(renamed));
    assert!(
        history
            .iter()
            .any(|m| m.tool_call_id.as_deref() == Some(renamed.as_str()))
    );
    // The request that followed pairs every call with its result.
    let req = e.request(1);
    let text = serde_json::to_string(&req.messages).unwrap();
    assert!(text.contains(renamed.as_str()), "{text}");
    // And the session keeps working.
    let next = handler
        .send_message(&sid, "again", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(next, TurnOutcome::Completed);
}
