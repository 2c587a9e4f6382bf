//! What the model and the UI see, pinned: the assembled request of a scripted
//! turn (system prompt + tool definitions + messages) and its event sequence.

use skald_llm::{ScriptedTurn, StopReason};
use skald_session::RecordingSink;

use crate::common::*;

#[tokio::test]
async fn assembled_request_and_event_sequence_of_a_scripted_turn() {
    let e = env([
        ScriptedTurn::new()
            .text("Reading it.")
            .tool_call(0, "call_1", "read_file", r#"{"path": "notes.txt"}"#)
            .usage(100, 20)
            .done(StopReason::ToolUse),
        ScriptedTurn::new()
            .text("It says ")
            .text("hello.")
            .usage(150, 5)
            .done(StopReason::EndTurn),
    ])
    .await;
    std::fs::write(e.path("notes.txt"), "hello\n").unwrap();
    let sid = e.session().await;
    let sink = RecordingSink::new();
    e.handler
        .send_message(&sid, "What is in notes.txt?", &sink)
        .await
        .unwrap();

    let root = e.dir.path().canonicalize().unwrap();
    let request = serde_json::to_string_pretty(&e.request(1)).unwrap();
    let request = request.replace(root.to_string_lossy().as_ref(), "[ROOT]");
    // The environment block names the machine and today: the same every run
    // once those are redacted.
    let request = redact_environment(&request);
    insta::assert_snapshot!("assembled_request", request);

    let events = redacted_events(&sink.events(), &root);
    insta::assert_snapshot!(
        "event_sequence",
        serde_json::to_string_pretty(&events).unwrap()
    );
}

/// The environment block's OS and date lines as placeholders.
fn redact_environment(request: &str) -> String {
    let mut out = String::new();
    let mut rest = request;
    for (label, end) in [("Operating system: ", "\\n"), ("Today's date: ", "\\n")] {
        if let Some(start) = rest.find(label) {
            let from = start + label.len();
            let len = rest[from..].find(end).unwrap_or(0);
            out.push_str(&rest[..from]);
            out.push_str(&format!(
                "[{}]",
                label.trim_end_matches(": ").to_uppercase()
            ));
            rest = &rest[from + len..];
        }
    }
    out.push_str(rest);
    out
}
