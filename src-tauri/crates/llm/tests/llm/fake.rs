//! The scripted fake provider.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use skald_llm::{
    FakeProvider, LlmError, LlmProvider, ScriptedTurn, StopReason, StreamEvent, complete,
};

use crate::collect;
use crate::simple_request;

#[tokio::test]
async fn replays_turns_in_order_and_records_every_request() {
    let fake = FakeProvider::new([
        ScriptedTurn::new()
            .reasoning("plan")
            .tool_call(0, "call_1", "read_file", "{\"pa")
            .tool_fragment(0, "th\":\"a\"}")
            .usage(3, 4)
            .done(StopReason::ToolUse),
        ScriptedTurn::text_reply("done"),
    ]);
    let first = simple_request("one");
    let second = simple_request("two");

    let r1 = complete(&fake, &first).await.unwrap();
    assert_eq!(r1.reasoning, "plan");
    assert_eq!(r1.tool_calls[0].arguments, r#"{"path":"a"}"#);
    assert_eq!(r1.stop_reason, Some(StopReason::ToolUse));
    let r2 = complete(&fake, &second).await.unwrap();
    assert_eq!(r2.text, "done");

    assert_eq!(fake.requests(), vec![first, second]);
    assert_eq!(fake.remaining_turns(), 0);
    let (events, err) = collect(fake.stream(&simple_request("three"))).await;
    assert!(events.is_empty());
    assert_eq!(err, Some(LlmError::ScriptExhausted));
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test]
async fn scripted_errors_end_the_stream() {
    let fake = FakeProvider::new([ScriptedTurn::new()
        .text("par")
        .error(LlmError::StreamBroken {
            provider: "fake".into(),
            message: "cut".into(),
        })
        .text("never")]);
    let (events, err) = collect(fake.stream(&simple_request("x"))).await;
    assert_eq!(events, vec![StreamEvent::TextDelta("par".into())]);
    assert!(err.unwrap().is_retriable());
}

#[tokio::test]
async fn delays_between_chunks_and_hang_until_dropped() {
    let fake = FakeProvider::new([ScriptedTurn::new()
        .text("a")
        .delay(Duration::from_millis(30))
        .text("b")
        .hang()]);
    let req = simple_request("x");
    let started = Instant::now();
    let mut stream = fake.stream(&req);
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        StreamEvent::TextDelta("a".into())
    );
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        StreamEvent::TextDelta("b".into())
    );
    assert!(started.elapsed() >= Duration::from_millis(30));
    let hung = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
    assert!(hung.is_err(), "the script hangs");
    drop(stream);
}
