//! Following a session from anywhere (the session-wide bus): a subscriber
//! that attaches mid-turn gets the turn's events so far, then the live ones —
//! together exactly what the starter's own sink saw — and one can attach to a
//! turn that crash resume started by itself, with no window behind it.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use skald_core_api::{BoxFuture, Tool, ToolCategory, ToolResult, TypedTool};
use skald_llm::{ScriptedTurn, StopReason};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{
    Attached, ChatSessionHandler, FrameContext, InterfaceTools, NullSink, RecordingSink, session_of,
};
use skald_store::{FrameStatus, NewMessage, Role};
use tokio::sync::Semaphore;

use crate::common::*;

#[derive(Debug, Deserialize, JsonSchema)]
struct WaitInput {}

/// Blocks until the test lets it go, so a subscriber can attach mid-turn.
#[derive(Clone)]
struct Wait(Arc<Semaphore>);

impl TypedTool for Wait {
    type Input = WaitInput;
    fn name(&self) -> &str {
        "wait_here"
    }
    fn description(&self) -> &str {
        "Waits."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
    fn run_async(&self, _input: WaitInput) -> BoxFuture<'static, ToolResult> {
        let gate = self.0.clone();
        Box::pin(async move {
            let _permit = gate
                .acquire()
                .await
                .map_err(|e| skald_core_api::ToolError::failed(e.to_string()))?;
            Ok("waited".to_string())
        })
    }
}

fn script() -> Vec<ScriptedTurn> {
    vec![
        ScriptedTurn::new()
            .text("Let me wait.")
            .tool_call(0, "w1", "wait_here", "{}")
            .done(StopReason::ToolUse),
        ScriptedTurn::text_reply("Done waiting."),
    ]
}

fn with_wait(h: &ChatSessionHandler) -> (ChatSessionHandler, Arc<Semaphore>) {
    let gate = Arc::new(Semaphore::new(0));
    let g = gate.clone();
    let tools = move |_f: &FrameContext| -> Vec<Arc<dyn Tool>> { vec![Arc::new(Wait(g.clone()))] };
    (
        h.clone()
            .with_interface_tools(Arc::new(tools) as Arc<dyn InterfaceTools>),
        gate,
    )
}

/// Waits until the bus shows the turn blocked in `wait_here`.
async fn attach_when_waiting(h: &ChatSessionHandler, sid: &str) -> Attached {
    for _ in 0..500 {
        let a = h.attach(sid);
        if a.so_far
            .iter()
            .any(|e| matches!(e, SessionEvent::ToolStart { call, .. } if call.name == "wait_here"))
        {
            return a;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the turn never reached wait_here");
}

/// The attached view: so far + live events of `sid` up to its TurnEnded.
async fn follow(mut a: Attached, sid: &str) -> Vec<SessionEvent> {
    let mut seen = a.so_far;
    loop {
        let ev = a.live.recv().await.unwrap();
        if session_of(&ev) != sid {
            continue;
        }
        let end = matches!(ev, SessionEvent::TurnEnded { .. });
        seen.push(ev);
        if end {
            return seen;
        }
    }
}

#[tokio::test]
async fn a_second_subscriber_attaching_mid_turn_sees_all_of_it() {
    let e = env(script()).await;
    let (handler, gate) = with_wait(&e.handler);
    let sid = e.session().await;
    // No turn: nothing to replay.
    assert!(handler.attach(&sid).so_far.is_empty());
    let starter = Arc::new(RecordingSink::new());
    let turn = {
        let (h, sid, sink) = (handler.clone(), sid.clone(), starter.clone());
        tokio::spawn(async move { h.send_message(&sid, "wait for me", sink).await })
    };
    let attached = attach_when_waiting(&handler, &sid).await;
    assert!(matches!(
        attached.so_far.first(),
        Some(SessionEvent::TurnStarted { .. })
    ));
    let follower = tokio::spawn({
        let sid = sid.clone();
        async move { follow(attached, &sid).await }
    });
    gate.add_permits(1);
    assert_eq!(turn.await.unwrap().unwrap(), TurnOutcome::Completed);
    let followed = follower.await.unwrap();
    assert_eq!(
        followed,
        starter.events(),
        "the follower saw a different turn"
    );
    assert!(followed.iter().any(
        |e| matches!(e, SessionEvent::AssistantMessage { text, .. } if text == "Done waiting.")
    ));
    // After the turn, a new subscriber starts clean.
    assert!(handler.attach(&sid).so_far.is_empty());
}

#[tokio::test]
async fn a_turn_crash_resume_started_by_itself_can_be_followed() {
    let e = env(script()).await;
    let (handler, gate) = with_wait(&e.handler);
    let sid = e.session().await;
    // A person's message the crash left unanswered.
    let frame = e.store.stack().top(&sid).await.unwrap().unwrap();
    e.store
        .stack()
        .set_status(frame.id, FrameStatus::Active)
        .await
        .unwrap();
    e.store
        .history()
        .append(&NewMessage {
            session_id: sid.clone(),
            stack_id: Some(frame.id),
            role: Role::User,
            content: "still there?".into(),
            tool_calls: None,
            tool_call_id: None,
        })
        .await
        .unwrap();
    // Resume on start: nobody's window is behind it.
    let resume = {
        let h = handler.clone();
        tokio::spawn(async move { h.resume_all(None, NullSink).await })
    };
    let attached = attach_when_waiting(&handler, &sid).await;
    let follower = tokio::spawn({
        let sid = sid.clone();
        async move { follow(attached, &sid).await }
    });
    gate.add_permits(1);
    let resumed = resume.await.unwrap().unwrap();
    assert_eq!(resumed[0].outcome, Some(TurnOutcome::Completed));
    let followed = follower.await.unwrap();
    assert!(matches!(
        followed.first(),
        Some(SessionEvent::TurnStarted { .. })
    ));
    assert!(
        followed
            .iter()
            .any(|e| matches!(e, SessionEvent::ToolDone { .. }))
    );
    assert!(matches!(
        followed.last(),
        Some(SessionEvent::TurnEnded {
            outcome: TurnOutcome::Completed,
            ..
        })
    ));
}
