//! `/stop` at every step: during the LLM call, during a 60 s tool (checked
//! against the process table), while the approval gate waits; and the
//! approval gate's allow/reject paths.

use std::sync::Arc;
use std::time::{Duration, Instant};

use skald_core_api::BoxFuture;
use skald_llm::{Message, ScriptedTurn, StopReason};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{
    ApprovalGate, GateCall, GateDecision, PendingApproval, RecordingSink, Verdict, notes,
};

use crate::common::*;
use crate::multi_agent::{shell_gone, shell_started};

#[tokio::test]
async fn stop_during_the_llm_call_drops_it_and_the_next_message_works() {
    let e = env([ScriptedTurn::new().text("Let me think").hang()]).await;
    let sid = e.session().await;
    let sink = Arc::new(RecordingSink::new());
    let (h, s, id) = (e.handler.clone(), sink.clone(), sid.clone());
    let turn = tokio::spawn(async move { h.send_message(&id, "Hard question", s).await });
    wait_until("streaming", || {
        has_event(&sink, |ev| matches!(ev, SessionEvent::TokenDelta { .. }))
    })
    .await;

    let t0 = Instant::now();
    assert!(e.handler.stop(&sid));
    let outcome = tokio::time::timeout(Duration::from_secs(1), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Cancelled);
    assert!(
        t0.elapsed() < Duration::from_millis(500),
        "{:?}",
        t0.elapsed()
    );
    assert!(matches!(
        sink.events().last(),
        Some(SessionEvent::TurnEnded {
            outcome: TurnOutcome::Cancelled,
            ..
        })
    ));
    // What was streamed is kept, marked incomplete like a cut stream.
    let contents: Vec<String> = shape(&e.history_rows(&sid).await)
        .into_iter()
        .map(|r| r.1)
        .collect();
    assert_eq!(contents, ["Hard question", "Let me think"]);
    let history = e.handler.history(&sid).await.unwrap();
    let answer = history.last().unwrap();
    assert!(answer.incomplete, "a stopped answer is incomplete");
    assert!(answer.error.is_none(), "a stop is no failure");
    assert_eq!(
        answer.incomplete_cause,
        Some(skald_protocol::IncompleteCause::Stopped)
    );
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::MessageIncomplete { message_id, reason, .. }
            if *message_id == answer.id && reason.contains("stopped")
    )));

    e.fake.push_turn(ScriptedTurn::text_reply("Answer."));
    let outcome = e
        .handler
        .send_message(&sid, "Go on", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_eq!(
        e.request(1).messages,
        vec![
            Message::user("Hard question"),
            // Not passed off as a finished answer.
            Message::assistant(format!("Let me think\n\n{}", notes::STOPPED_ANSWER)),
            Message::user("Go on")
        ]
    );
}

#[tokio::test]
async fn stop_during_a_60s_tool_ends_fast_and_leaves_no_process() {
    let e = env([ScriptedTurn::new()
        .tool_call(
            0,
            "s1",
            "execute_cmd",
            r#"{"command": "echo $$ > pgid.txt; sleep 60 & sleep 60"}"#,
        )
        .tool_call(
            1,
            "s2",
            "execute_cmd",
            r#"{"command": "echo ran > after.txt"}"#,
        )
        .done(StopReason::ToolUse)])
    .await;
    let sid = e.session().await;
    let sink = Arc::new(RecordingSink::new());
    let (h, s, id) = (e.handler.clone(), sink.clone(), sid.clone());
    let turn = tokio::spawn(async move { h.send_message(&id, "sleep", s).await });

    let pgid = shell_started(&e.workdir).await;
    assert_eq!(e.tool_rows(&sid).await[0].status.as_str(), "running");

    let t0 = Instant::now();
    assert!(e.handler.stop(&sid));
    let outcome = tokio::time::timeout(Duration::from_secs(2), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let took = t0.elapsed();
    assert_eq!(outcome, TurnOutcome::Cancelled);
    assert!(took < Duration::from_millis(500), "stop took {took:?}");
    // No process of the call is left.
    shell_gone(pgid, Duration::from_secs(1)).await;

    // Both calls cancelled; the second never ran; history valid.
    let rows = e.tool_rows(&sid).await;
    assert_eq!(
        tool_shape(&rows),
        vec![
            (
                "s1".into(),
                "execute_cmd".into(),
                "cancelled".into(),
                Some(notes::CANCELLED.into())
            ),
            (
                "s2".into(),
                "execute_cmd".into(),
                "cancelled".into(),
                Some(notes::CANCELLED_BEFORE_START.into())
            ),
        ]
    );
    assert!(rows.iter().all(|r| r.finished_at.is_some()));
    assert!(!e.path("after.txt").exists());
    let hist = shape(&e.history_rows(&sid).await);
    assert_eq!(hist.len(), 4);
    assert_eq!(
        hist[2],
        ("tool".into(), notes::CANCELLED.into(), Some("s1".into()))
    );
    assert_eq!(
        hist[3],
        (
            "tool".into(),
            notes::CANCELLED_BEFORE_START.into(),
            Some("s2".into())
        )
    );
    // Each card is told why, live, in the words the model reads.
    let cancelled: Vec<(String, String)> = sink
        .events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::ToolCancelled {
                tool_call_id,
                reason,
                ..
            } => Some((tool_call_id, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(
        cancelled,
        [
            ("s1".to_string(), notes::CANCELLED.to_string()),
            ("s2".to_string(), notes::CANCELLED_BEFORE_START.to_string())
        ]
    );

    // The next message works, with the cancelled results in its request.
    e.fake
        .push_turn(ScriptedTurn::text_reply("Stopped, as you asked."));
    let outcome = e
        .handler
        .send_message(&sid, "ok", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_eq!(e.request(1).messages.len(), 5);
}

/// A gate that asks a person who never answers, for `execute_cmd`; rejects
/// `get_ast_outline`; allows the rest.
struct TestGate;

impl ApprovalGate for TestGate {
    fn check<'a>(&'a self, call: &'a GateCall) -> BoxFuture<'a, GateDecision> {
        let d = match call.name.as_str() {
            "execute_cmd" => GateDecision::Ask(PendingApproval::new(std::future::pending())),
            "get_ast_outline" => GateDecision::Reject {
                reason: "outlines are off today".into(),
            },
            "read_file" => GateDecision::Ask(PendingApproval::new(async { Verdict::Allow })),
            _ => GateDecision::Allow { reason: None },
        };
        Box::pin(std::future::ready(d))
    }
}

#[tokio::test]
async fn gate_reject_and_approved_ask_are_recorded() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "g1", "get_ast_outline", r#"{"path": "x.rs"}"#)
            .tool_call(1, "g2", "read_file", r#"{"path": "x.rs"}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::text_reply("ok"),
    ])
    .await;
    let handler = e.handler.clone().with_gate(Arc::new(TestGate));
    std::fs::write(e.path("x.rs"), "fn x() {}\n").unwrap();
    let sid = e.session().await;
    let sink = RecordingSink::new();
    handler.send_message(&sid, "go", &sink).await.unwrap();
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows[0].status.as_str(), "rejected");
    assert_eq!(rows[0].decision.as_deref(), Some("rejected"));
    assert_eq!(
        rows[0].decision_reason.as_deref(),
        Some("outlines are off today")
    );
    assert_eq!(
        rows[0].result.as_deref(),
        Some(notes::rejected("outlines are off today").as_str())
    );
    assert_eq!(rows[1].status.as_str(), "done");
    assert_eq!(rows[1].decision.as_deref(), Some("approved"));
    assert!(has_event(
        &sink,
        |ev| matches!(ev, SessionEvent::ToolRejected { reason, .. } if reason == "outlines are off today")
    ));
    let req = e.request(1);
    assert_eq!(
        tool_content(&req.messages[2]),
        "Rejected: outlines are off today. The call was not run."
    );
}

#[tokio::test]
async fn stop_while_the_gate_waits_marks_the_call_cancelled() {
    let e = env([ScriptedTurn::tool_reply(
        "p1",
        "execute_cmd",
        r#"{"command": "echo never > x.txt"}"#,
    )])
    .await;
    let handler = e.handler.clone().with_gate(Arc::new(TestGate));
    let sid = e.session().await;
    let (h, id) = (handler.clone(), sid.clone());
    let turn = tokio::spawn(async move { h.send_message(&id, "run", RecordingSink::new()).await });
    let store = e.store.clone();
    let mut pending = false;
    for _ in 0..2000 {
        if let Some(r) = store.tool_calls().get("p1").await.unwrap()
            && r.status.as_str() == "pending"
        {
            pending = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(pending, "the row is pending while the gate waits");
    assert!(handler.stop(&sid));
    let outcome = tokio::time::timeout(Duration::from_secs(1), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Cancelled);
    let row = store.tool_calls().get("p1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "cancelled");
    assert!(!e.path("x.txt").exists());
}
