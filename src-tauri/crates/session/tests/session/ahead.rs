//! The calls of one message that need a person are asked all at once
//! (`ahead.rs`): all waiting together, answered in any order, still run in
//! the model's order; a rejection with a note touches no other call; Stop
//! cancels them all; a crash leaves them all in the Inbox; a bypass turned
//! on while they wait lets the rest through, an approval of one does not.
//! And every write that runs keeps its diff, whatever allowed it.

use std::sync::Arc;

use skald_approval::{Bypass, BypassScope};
use skald_llm::ScriptedTurn;
use skald_protocol::{SessionEvent, TurnOutcome, WritePreview};
use skald_session::{ChatSessionHandler, RecordingSink};
use skald_store::RuleAction;

use crate::approval::{finish, gated, requests_of, restarted, write_rule};
use crate::common::*;

/// One answer calling `calls` (id, tool, arguments) together.
fn calls(calls: &[(&str, &str, serde_json::Value)]) -> ScriptedTurn {
    let mut turn = ScriptedTurn::new();
    for (i, (id, name, args)) in calls.iter().enumerate() {
        turn = turn.tool_call(i, *id, *name, args.to_string());
    }
    turn.usage(10, 5).done(skald_llm::StopReason::ToolUse)
}

fn write(
    id: &'static str,
    path: &str,
    content: &str,
) -> (&'static str, &'static str, serde_json::Value) {
    (
        id,
        "write_file",
        serde_json::json!({"path": path, "content": content}),
    )
}

/// Starts a turn and waits until `n` approval requests are out, before any
/// is answered.
async fn turn_until_n_asked(
    h: &ChatSessionHandler,
    sid: &str,
    n: usize,
) -> (tokio::task::JoinHandle<TurnOutcome>, Arc<RecordingSink>) {
    let sink = Arc::new(RecordingSink::new());
    let (h2, id, s2) = (h.clone(), sid.to_string(), sink.clone());
    let turn = tokio::spawn(async move { h2.send_message(&id, "go", s2).await.unwrap() });
    wait_until(&format!("{n} approval requests"), || {
        requests_of(&sink).len() == n
    })
    .await;
    (turn, sink)
}

fn done_order(sink: &RecordingSink) -> Vec<String> {
    sink.events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::ToolDone { tool_call_id, .. } => Some(tool_call_id),
            _ => None,
        })
        .collect()
}

async fn pending_ids(h: &ChatSessionHandler) -> Vec<String> {
    let mut ids: Vec<String> = h
        .list_pending()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.request.tool_call_id)
        .collect();
    ids.sort();
    ids
}

async fn status(e: &Env, id: &str) -> String {
    let row = e.store.tool_calls().get(id).await.unwrap().unwrap();
    row.status.as_str().to_string()
}

/// Call 2 and 3 edit what call 1 writes: run out of order, they would fail.
fn dependent_edits() -> ScriptedTurn {
    calls(&[
        write("w1", "a.txt", "one\n"),
        (
            "w2",
            "edit_file",
            serde_json::json!({"path": "a.txt", "old_string": "one", "new_string": "two"}),
        ),
        (
            "w3",
            "edit_file",
            serde_json::json!({"path": "a.txt", "old_string": "two", "new_string": "three"}),
        ),
    ])
}

#[tokio::test]
async fn three_calls_wait_together_and_run_in_the_models_order_whatever_order_they_are_answered() {
    let e = env([dependent_edits(), ScriptedTurn::text_reply("done")]).await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    let (turn, sink) = turn_until_n_asked(&h, &sid, 3).await;

    // All three wait at once, live, before anything ran.
    let asked: Vec<String> = requests_of(&sink)
        .into_iter()
        .map(|r| r.tool_call_id)
        .collect();
    assert_eq!(asked, ["w1", "w2", "w3"]);
    assert_eq!(pending_ids(&h).await, ["w1", "w2", "w3"]);
    assert!(h.list_pending().await.unwrap().iter().all(|p| p.live));
    assert_eq!(mgr.waiting().len(), 3);
    for id in ["w1", "w2", "w3"] {
        assert_eq!(status(&e, id).await, "pending");
    }
    // The cards came in the model's order.
    let started: Vec<String> = sink
        .events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } => Some(call.id),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["w1", "w2", "w3"]);
    assert!(!e.path("a.txt").exists());

    // Answered last to first: the later two wait for the first to run.
    h.approve("w3", RecordingSink::new()).await.unwrap();
    h.approve("w2", RecordingSink::new()).await.unwrap();
    for _ in 0..400 {
        if pending_ids(&h).await == ["w1"] {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(pending_ids(&h).await, ["w1"], "w2 and w3 off the Inbox");
    assert_eq!(mgr.waiting().len(), 1);
    assert!(!e.path("a.txt").exists(), "ran before the first call");
    h.approve("w1", RecordingSink::new()).await.unwrap();
    assert_eq!(finish(turn).await, TurnOutcome::Completed);

    assert_eq!(std::fs::read_to_string(e.path("a.txt")).unwrap(), "three\n");
    assert_eq!(done_order(&sink), ["w1", "w2", "w3"]);
    for id in ["w1", "w2", "w3"] {
        assert_eq!(status(&e, id).await, "done");
        let row = e.store.tool_calls().get(id).await.unwrap().unwrap();
        assert_eq!(row.decision.as_deref(), Some("approved"));
    }
    assert!(h.list_pending().await.unwrap().is_empty());
}

#[tokio::test]
async fn rejecting_one_with_a_note_rejects_no_other() {
    let e = env([
        calls(&[
            write("w1", "a.txt", "a\n"),
            write("w2", "b.txt", "b\n"),
            write("w3", "c.txt", "c\n"),
        ]),
        ScriptedTurn::text_reply("ok"),
    ])
    .await;
    let (h, _) = gated(&e).await;
    let sid = e.session().await;
    let (turn, sink) = turn_until_n_asked(&h, &sid, 3).await;

    h.reject("w2", Some("not b"), RecordingSink::new())
        .await
        .unwrap();
    let exact = "User rejected this tool call. Reason: not b";
    // Recorded at once, while the others still wait.
    wait_until("w2 rejected", || {
        has_event(&sink, |ev| {
            matches!(ev, SessionEvent::ToolRejected { tool_call_id, reason, .. }
                if tool_call_id == "w2" && reason == exact)
        })
    })
    .await;
    assert_eq!(pending_ids(&h).await, ["w1", "w3"]);
    assert_eq!(status(&e, "w1").await, "pending");
    assert_eq!(status(&e, "w3").await, "pending");

    h.approve("w1", RecordingSink::new()).await.unwrap();
    h.approve("w3", RecordingSink::new()).await.unwrap();
    assert_eq!(finish(turn).await, TurnOutcome::Completed);
    assert_eq!(std::fs::read_to_string(e.path("a.txt")).unwrap(), "a\n");
    assert!(!e.path("b.txt").exists());
    assert_eq!(std::fs::read_to_string(e.path("c.txt")).unwrap(), "c\n");
    assert_eq!(status(&e, "w2").await, "rejected");
    // The model reads the three results in its own order.
    let req = e.request(1);
    let n = req.messages.len();
    let results: Vec<&str> = req.messages[n - 3..].iter().map(tool_content).collect();
    assert!(results[0].contains("a.txt"), "{results:?}");
    assert_eq!(results[1], exact);
    assert!(results[2].contains("c.txt"), "{results:?}");
}

#[tokio::test]
async fn stop_with_three_waiting_cancels_all_three() {
    let e = env([calls(&[
        write("w1", "a.txt", "a\n"),
        write("w2", "b.txt", "b\n"),
        write("w3", "c.txt", "c\n"),
    ])])
    .await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    let (turn, sink) = turn_until_n_asked(&h, &sid, 3).await;
    // One approved but not yet run (it waits for w1) is cancelled too.
    h.approve("w2", RecordingSink::new()).await.unwrap();
    wait_until("w2 approved", || mgr.waiting().len() == 2).await;

    assert!(h.stop(&sid));
    assert_eq!(finish(turn).await, TurnOutcome::Cancelled);
    for id in ["w1", "w2", "w3"] {
        assert_eq!(status(&e, id).await, "cancelled", "{id}");
        assert!(has_event(&sink, |ev| matches!(
            ev,
            SessionEvent::ToolCancelled { tool_call_id, .. } if tool_call_id == id
        )));
    }
    assert!(!e.path("a.txt").exists());
    assert!(!e.path("b.txt").exists());
    assert!(!e.path("c.txt").exists());
    assert!(h.list_pending().await.unwrap().is_empty());
    assert!(mgr.waiting().is_empty(), "every wait is withdrawn");
    // Each call has its result in the history, in order, for the next turn.
    let answered: Vec<String> = e
        .history_rows(&sid)
        .await
        .into_iter()
        .filter_map(|m| m.tool_call_id)
        .collect();
    assert_eq!(answered, ["w1", "w2", "w3"]);
}

#[tokio::test]
async fn after_a_crash_all_three_stay_in_the_inbox_and_answering_them_continues_the_turn() {
    let e = env([calls(&[
        write("w1", "a.txt", "a\n"),
        write("w2", "b.txt", "b\n"),
        write("w3", "c.txt", "c\n"),
    ])])
    .await;
    let sid = {
        let (h, _) = gated(&e).await;
        let sid = e.session().await;
        let (turn, _sink) = turn_until_n_asked(&h, &sid, 3).await;
        turn.abort();
        let _ = turn.await;
        sid
    };
    let (h, fake) = restarted(&e, vec![ScriptedTurn::text_reply("all done")]).await;
    h.resume_all(None, RecordingSink::new()).await.unwrap();
    let inbox = h.list_pending().await.unwrap();
    assert_eq!(pending_ids(&h).await, ["w1", "w2", "w3"], "{inbox:?}");
    assert!(inbox.iter().all(|p| !p.live && p.session_id == sid));

    h.approve("w1", RecordingSink::new()).await.unwrap();
    h.reject("w2", Some("skip b"), RecordingSink::new())
        .await
        .unwrap();
    assert!(
        fake.requests().is_empty(),
        "the turn waits for the last one"
    );
    h.approve("w3", RecordingSink::new()).await.unwrap();
    assert_eq!(std::fs::read_to_string(e.path("a.txt")).unwrap(), "a\n");
    assert!(!e.path("b.txt").exists());
    assert_eq!(std::fs::read_to_string(e.path("c.txt")).unwrap(), "c\n");
    assert_eq!(fake.requests().len(), 1);
    let hist = h.store().history().list_for_session(&sid).await.unwrap();
    assert_eq!(hist.last().unwrap().content, "all done");
    assert!(h.list_pending().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_bypass_turned_on_while_they_wait_lets_the_rest_run_but_an_approval_approves_no_other() {
    let e = env([
        calls(&[
            write("w1", "a.txt", "a\n"),
            write("w2", "b.txt", "b\n"),
            write("w3", "c.txt", "c\n"),
        ]),
        ScriptedTurn::text_reply("done"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    let (turn, sink) = turn_until_n_asked(&h, &sid, 3).await;

    // Approving one lets that one run; the others keep waiting.
    h.approve("w1", RecordingSink::new()).await.unwrap();
    wait_until("w1 written", || e.path("a.txt").exists()).await;
    wait_until("w1 done", || done_order(&sink) == ["w1"]).await;
    assert_eq!(pending_ids(&h).await, ["w2", "w3"]);
    assert!(!e.path("b.txt").exists());

    // "Don't ask" for write_file: the two still waiting go through, each
    // card saying it was the bypass, not the person.
    mgr.add_bypass(&sid, Bypass::new(BypassScope::Tool("write_file".into())));
    assert_eq!(finish(turn).await, TurnOutcome::Completed);
    assert_eq!(std::fs::read_to_string(e.path("b.txt")).unwrap(), "b\n");
    assert_eq!(std::fs::read_to_string(e.path("c.txt")).unwrap(), "c\n");
    assert_eq!(done_order(&sink), ["w1", "w2", "w3"]);
    let row = e.store.tool_calls().get("w1").await.unwrap().unwrap();
    assert_eq!(row.decision.as_deref(), Some("approved"));
    for id in ["w2", "w3"] {
        let row = e.store.tool_calls().get(id).await.unwrap().unwrap();
        assert_eq!(row.decision.as_deref(), Some("allow"), "{id}");
        let reason = row.decision_reason.unwrap();
        assert!(reason.contains("bypass"), "{reason}");
        assert!(has_event(&sink, |ev| matches!(
            ev,
            SessionEvent::ToolAllowed { tool_call_id, reason, .. }
                if tool_call_id == id && reason.contains("bypass")
        )));
    }
    assert!(h.list_pending().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_write_a_rule_allows_keeps_its_diff_live_and_in_history() {
    let e = env([
        ScriptedTurn::tool_reply(
            "w1",
            "write_file",
            r#"{"path": "a.txt", "content": "new\n"}"#,
        ),
        ScriptedTurn::tool_reply(
            "e1",
            "edit_file",
            r#"{"path": "a.txt", "old_string": "new", "new_string": "newer"}"#,
        ),
        ScriptedTurn::text_reply("written"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    for tool in ["write_file", "edit_file"] {
        mgr.add_rule(&skald_store::NewApprovalRule {
            tool_pattern: tool.into(),
            ..write_rule(
                Some(format!("{}/*", e.workdir.display())),
                RuleAction::Allow,
                skald_approval::ALWAYS_ALLOW_PRIORITY,
            )
        })
        .await
        .unwrap();
    }
    std::fs::write(e.path("a.txt"), "old\n").unwrap();
    let sid = e.session().await;
    let sink = RecordingSink::new();
    assert_eq!(
        h.send_message(&sid, "go", &sink).await.unwrap(),
        TurnOutcome::Completed
    );
    assert!(requests_of(&sink).is_empty(), "nobody was asked");
    let expected = |id: &str| match id {
        "w1" => WritePreview {
            old_content: Some("old\n".into()),
            new_content: Some("new\n".into()),
            note: None,
        },
        _ => WritePreview {
            old_content: Some("new\n".into()),
            new_content: Some("newer\n".into()),
            note: None,
        },
    };
    for id in ["w1", "e1"] {
        // Live: the card hears the diff with the rule's reason.
        assert!(has_event(&sink, |ev| matches!(
            ev,
            SessionEvent::ToolAllowed { tool_call_id, reason, write_preview, .. }
                if tool_call_id == id
                    && reason.starts_with("allowed by rule")
                    && write_preview.as_ref() == Some(&expected(id))
        )));
        // From history (after the turn, after a reload).
        let history = h.history(&sid).await.unwrap();
        let card = history
            .iter()
            .flat_map(|m| m.tool_calls.iter())
            .find(|c| c.id == id)
            .unwrap();
        assert_eq!(card.status.as_str(), "done");
        assert_eq!(card.write_preview, Some(expected(id)), "{id}");
    }
}

#[tokio::test]
async fn a_large_write_a_bypass_allows_keeps_only_the_changed_lines_with_a_note() {
    let old: String = (1..=20_000).map(|i| format!("line {i}\n")).collect();
    let new = old.replace("line 10000\n", "line 10000 changed\n");
    let args = serde_json::json!({"path": "big.txt", "content": new}).to_string();
    let e = env([
        ScriptedTurn::tool_reply("w1", "write_file", &args),
        ScriptedTurn::text_reply("written"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    std::fs::write(e.path("big.txt"), &old).unwrap();
    let sid = e.session().await;
    mgr.add_bypass(&sid, Bypass::new(BypassScope::Tool("write_file".into())));
    h.send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(e.path("big.txt")).unwrap(), new);
    let history = h.history(&sid).await.unwrap();
    let card = history
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .find(|c| c.id == "w1")
        .unwrap();
    let preview = card.write_preview.clone().unwrap();
    assert_eq!(
        preview.old_content.as_deref(),
        Some("line 9997\nline 9998\nline 9999\nline 10000\nline 10001\nline 10002\nline 10003\n")
    );
    assert_eq!(
        preview.new_content.as_deref(),
        Some(
            "line 9997\nline 9998\nline 9999\nline 10000 changed\nline 10001\nline 10002\nline 10003\n"
        )
    );
    assert!(
        preview.note.as_deref().unwrap().contains("from line 9997"),
        "{:?}",
        preview.note
    );
}

#[tokio::test]
async fn always_allow_on_one_waiting_call_lets_through_the_others_its_rule_covers_and_no_more() {
    let e = env([
        calls(&[
            write("w1", "a.txt", "a\n"),
            (
                "x1",
                "execute_cmd",
                serde_json::json!({"command": "echo hi > x.txt"}),
            ),
            write("w2", "b.txt", "b\n"),
        ]),
        ScriptedTurn::text_reply("done"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    let (turn, sink) = turn_until_n_asked(&h, &sid, 3).await;

    // What the app's "Always allow…" does: save the rule, then approve.
    let rule = mgr
        .add_rule(&write_rule(
            Some(format!("{}/*", e.workdir.display())),
            RuleAction::Allow,
            skald_approval::ALWAYS_ALLOW_PRIORITY,
        ))
        .await
        .unwrap();
    h.approve("w1", RecordingSink::new())
        .await
        .expect("the approval races the rule's own decision and still lands");
    // w2 is a write_file in the same folder: the new rule lets it through.
    wait_until("w2 allowed by the rule", || {
        has_event(&sink, |ev| {
            matches!(ev, SessionEvent::ToolAllowed { tool_call_id, reason, .. }
                if tool_call_id == "w2" && reason.contains(&format!("rule {}", rule.id)))
        })
    })
    .await;
    // The command is no write_file: it still waits for the person.
    assert_eq!(pending_ids(&h).await, ["x1"]);
    assert!(!e.path("x.txt").exists());
    h.reject("x1", None, RecordingSink::new()).await.unwrap();
    assert_eq!(finish(turn).await, TurnOutcome::Completed);
    assert_eq!(std::fs::read_to_string(e.path("a.txt")).unwrap(), "a\n");
    assert_eq!(std::fs::read_to_string(e.path("b.txt")).unwrap(), "b\n");
    assert!(!e.path("x.txt").exists());
    assert_eq!(done_order(&sink), ["w1", "w2"]);
}
