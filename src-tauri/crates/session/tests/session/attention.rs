//! "Attention when hidden": the moments the driver raises for a host to
//! show (the app: a system notification while its window is hidden) — a
//! finished turn with its answer, a failed one with why, none when the
//! person stopped it; a notification delivered into Home once, not again
//! when the Home turn ends.

use std::sync::Arc;
use std::time::Duration;

use skald_llm::ScriptedTurn;
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{Attention, AttentionKind, RecordingSink};
use tokio::sync::broadcast::Receiver;

use crate::common::*;

/// Everything raised so far.
fn drain(rx: &mut Receiver<Attention>) -> Vec<Attention> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

#[tokio::test]
async fn a_finished_turn_asks_for_attention_with_its_answer() {
    let e = env([ScriptedTurn::text_reply(
        "The build is green.\n\nAll 624 tests passed.",
    )])
    .await;
    let sid = e.session().await;
    let mut rx = e.handler.subscribe_attention();
    e.handler
        .send_message(&sid, "How is the build?", RecordingSink::new())
        .await
        .unwrap();
    let raised = drain(&mut rx);
    assert_eq!(raised.len(), 1, "{raised:?}");
    let a = &raised[0];
    assert_eq!(a.kind, AttentionKind::TurnFinished);
    assert_eq!(a.session_id, sid);
    // The session took its title from the first message.
    assert_eq!(a.title, "How is the build?");
    assert_eq!(a.body, "The build is green. All 624 tests passed.");
}

#[tokio::test]
async fn a_failed_turn_says_why_and_a_stopped_one_says_nothing() {
    // No scripted answer: the provider fails.
    let e = env([]).await;
    let sid = e.session().await;
    let mut rx = e.handler.subscribe_attention();
    let outcome = e
        .handler
        .send_message(&sid, "Hi", RecordingSink::new())
        .await
        .unwrap();
    assert!(matches!(outcome, TurnOutcome::Failed { .. }));
    let raised = drain(&mut rx);
    assert_eq!(raised.len(), 1, "{raised:?}");
    assert!(raised[0].body.starts_with("Failed: "), "{:?}", raised[0]);

    e.fake
        .push_turn(ScriptedTurn::new().text("Thinking").hang());
    let sink = Arc::new(RecordingSink::new());
    let (h, s, id) = (e.handler.clone(), sink.clone(), sid.clone());
    let turn = tokio::spawn(async move { h.send_message(&id, "Hard one", s).await });
    wait_until("streaming", || {
        has_event(&sink, |ev| matches!(ev, SessionEvent::TokenDelta { .. }))
    })
    .await;
    assert!(e.handler.stop(&sid));
    let outcome = tokio::time::timeout(Duration::from_secs(5), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Cancelled);
    assert_eq!(
        drain(&mut rx),
        vec![],
        "the person stopped it: no notification"
    );
}

#[tokio::test]
async fn background_work_can_ask_for_attention() {
    let e = env([]).await;
    let mut rx = e.handler.subscribe_attention();
    e.handler
        .request_attention(Attention::task_ended("s1", "nightly backup", "3 files."));
    assert_eq!(
        drain(&mut rx),
        vec![Attention {
            kind: AttentionKind::TaskEnded,
            session_id: "s1".into(),
            title: "Task finished: nightly backup".into(),
            body: "3 files.".into(),
        }]
    );
}
