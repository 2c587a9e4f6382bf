//! An InterfaceTool added to a session in a few lines: the model is offered
//! it and can call it, the gate sees its category and source, and its label
//! and target path reach its card — with what it needs (the session id, the
//! working directory) captured when it was built for the frame. One that
//! declares it writes files is gated like `write_file`.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skald_core_api::{
    BoxFuture, Tool, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits,
    TypedTool,
};
use skald_llm::{ScriptedTurn, StopReason};
use skald_protocol::{ApprovalKind, SessionEvent, TurnOutcome};
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
    let offered: Vec<String> = e.request(0).tools.iter().map(|t| t.name.clone()).collect();
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

#[derive(Debug, Deserialize, JsonSchema)]
struct SaveNoteInput {
    /// The file to write, relative to the working directory.
    path: String,
    text: String,
}

/// A session tool that writes files and says so (`ToolTraits::WRITES`);
/// no rule, list or gate names it.
#[derive(Clone)]
struct SaveNote {
    workdir: std::path::PathBuf,
}

impl TypedTool for SaveNote {
    type Input = SaveNoteInput;
    fn name(&self) -> &str {
        "save_note"
    }
    fn description(&self) -> &str {
        "Saves a note to a file."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }
    fn traits(&self) -> ToolTraits {
        ToolTraits::WRITES
    }
    fn run(&self, input: SaveNoteInput) -> ToolResult {
        let path = self.workdir.join(&input.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| ToolError::failed(e.to_string()))?;
        }
        std::fs::write(&path, &input.text).map_err(|e| ToolError::failed(e.to_string()))?;
        Ok(format!("saved {}", input.path))
    }
    fn describe(&self, args: &Value, _l: ToolDescriptionLength) -> String {
        format!("save_note `{}`", args["path"].as_str().unwrap_or("?"))
    }
    fn target_path(&self, args: &Value) -> Option<String> {
        args["path"].as_str().map(str::to_string)
    }
}

fn save_notes() -> Arc<dyn InterfaceTools> {
    Arc::new(|f: &FrameContext| -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(SaveNote {
            workdir: f.working_dir.clone(),
        })]
    })
}

fn approval_requests(sink: &RecordingSink) -> Vec<skald_protocol::ApprovalRequest> {
    sink.events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::ApprovalRequired { request, .. } => Some(request),
            _ => None,
        })
        .collect()
}

/// The seeded rules treat a session tool declared as a writer like
/// `write_file`: `@fs_write allow memory/*` lets it write the agent's
/// memory without asking, elsewhere it is asked about with a write card
/// carrying its own label and target path.
#[tokio::test]
async fn an_interface_tool_declared_as_write_is_gated_like_write_file() {
    let e = env([
        ScriptedTurn::tool_reply("n1", "save_note", r#"{"path": "memory/n.md", "text": "a"}"#),
        ScriptedTurn::tool_reply("n2", "save_note", r#"{"path": "notes.md", "text": "b"}"#),
        ScriptedTurn::text_reply("saved"),
    ])
    .await;
    skald_session::bootstrap(&e.store).await.unwrap();
    let mgr = skald_session::ApprovalManager::new(e.store.clone());
    let h = e
        .handler
        .clone()
        .with_gate(Arc::new(mgr))
        .with_interface_tools(save_notes());
    let sid = e.session().await;
    let sink = Arc::new(RecordingSink::new());
    let (h2, id, s2) = (h.clone(), sid.clone(), sink.clone());
    let turn = tokio::spawn(async move { h2.send_message(&id, "save", s2).await.unwrap() });
    wait_until("ApprovalRequired", || !approval_requests(&sink).is_empty()).await;

    // Under memory/: allowed by the class rule, as write_file would be.
    let first = e.store.tool_calls().get("n1").await.unwrap().unwrap();
    assert_eq!(first.decision.as_deref(), Some("allow"));
    let reason = first.decision_reason.unwrap_or_default();
    assert!(reason.contains("@fs_write memory/*"), "{reason}");
    assert_eq!(std::fs::read_to_string(e.path("memory/n.md")).unwrap(), "a");

    // Elsewhere: asked about with a write card, labelled by the tool.
    let req = approval_requests(&sink).remove(0);
    assert_eq!(req.tool_call_id, "n2");
    assert_eq!(req.label_short, "save_note `notes.md`");
    assert_eq!(req.path.as_deref(), Some("notes.md"));
    assert!(
        matches!(&req.kind, ApprovalKind::Write { path, .. } if path == "notes.md"),
        "{:?}",
        req.kind
    );
    assert!(!e.path("notes.md").exists());
    h.approve("n2", RecordingSink::new()).await.unwrap();
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(10), turn)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_eq!(std::fs::read_to_string(e.path("notes.md")).unwrap(), "b");
}

/// An `@fs_write` deny hides the declared writer from the model, as it
/// hides `write_file`; readers stay offered.
#[tokio::test]
async fn an_fs_write_deny_hides_a_declared_writer() {
    let e = env([ScriptedTurn::text_reply("ok")]).await;
    skald_session::bootstrap(&e.store).await.unwrap();
    let mgr = skald_session::ApprovalManager::new(e.store.clone());
    mgr.add_rule(&skald_store::NewApprovalRule {
        group_name: skald_store::DEFAULT_GROUP.into(),
        agent_id: None,
        source: None,
        tool_pattern: "@fs_write".into(),
        path_pattern: None,
        action: skald_store::RuleAction::Deny,
        note: None,
        priority: 500,
    })
    .await
    .unwrap();
    let h = e
        .handler
        .clone()
        .with_gate(Arc::new(mgr))
        .with_interface_tools(save_notes());
    let sid = e.session().await;
    h.send_message(&sid, "hi", RecordingSink::new())
        .await
        .unwrap();
    let offered: Vec<String> = e.request(0).tools.iter().map(|t| t.name.clone()).collect();
    assert!(!offered.contains(&"save_note".to_string()), "{offered:?}");
    assert!(!offered.contains(&"write_file".to_string()), "{offered:?}");
    assert!(offered.contains(&"read_file".to_string()), "{offered:?}");
}
