//! Anthropic Messages against the mock server.

use serde_json::{Value, json};
use skald_llm::{
    Anthropic, LlmError, LlmProvider, ReasoningPart, ResponseAccumulator, StopReason, StreamEvent,
    ToolCall, Usage,
};

use crate::mock_server::{MockServer, Reply, collect, sse_event};
use crate::{fast_retries, fixed_request, simple_request};

fn message_start() -> String {
    sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
            "content": [], "model": "claude-sonnet-4-5-20250929", "stop_reason": null,
            "stop_sequence": null,
            "usage": {"input_tokens": 472, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 100, "output_tokens": 2}
        }}),
    )
}

fn block_start(index: usize, block: Value) -> String {
    sse_event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

fn block_delta(index: usize, delta: Value) -> String {
    sse_event(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

fn block_stop(index: usize) -> String {
    sse_event(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": index}),
    )
}

fn message_end(stop_reason: &str, output_tokens: u64) -> String {
    sse_event(
        "message_delta",
        &json!({"type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"output_tokens": output_tokens}}),
    ) + &sse_event("message_stop", &json!({"type": "message_stop"}))
}

/// thinking → text → tool_use (input streamed as input_json_delta) → a parameterless tool_use.
fn thinking_text_tool_stream() -> String {
    let mut s = message_start();
    s += &sse_event("ping", &json!({"type": "ping"}));
    s += &block_start(0, json!({"type": "thinking", "thinking": ""}));
    s += &block_delta(
        0,
        json!({"type": "thinking_delta", "thinking": "The user wants "}),
    );
    s += &block_delta(
        0,
        json!({"type": "thinking_delta", "thinking": "the weather."}),
    );
    s += &block_delta(
        0,
        json!({"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}),
    );
    s += &block_stop(0);
    s += &block_start(1, json!({"type": "text", "text": ""}));
    s += &block_delta(1, json!({"type": "text_delta", "text": "Okay, let me "}));
    s += &block_delta(1, json!({"type": "text_delta", "text": "check."}));
    s += &block_stop(1);
    s += &block_start(
        2,
        json!({"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
               "name": "get_weather", "input": {}}),
    );
    for part in [
        "",
        "{\"location\":",
        " \"San Fra",
        "ncisco, CA\"",
        ", \"unit\": \"fah",
        "renheit\"}",
    ] {
        s += &block_delta(2, json!({"type": "input_json_delta", "partial_json": part}));
    }
    s += &block_stop(2);
    s += &block_start(
        3,
        json!({"type": "tool_use", "id": "toolu_02", "name": "get_time", "input": {}}),
    );
    s += &block_stop(3);
    s += &message_end("tool_use", 89);
    s
}

fn client(server: &MockServer) -> Anthropic {
    Anthropic::new(&server.url, "sk-ant-test")
        .unwrap()
        .with_retry_policy(fast_retries(0))
}

#[tokio::test]
async fn thinking_text_and_tool_use_with_input_json_deltas() {
    let server = MockServer::start([Reply::sse(thinking_text_tool_stream()).piece(23)]).await;
    let (events, err) = collect(client(&server).stream(&simple_request("weather?"))).await;
    assert_eq!(err, None);
    assert_eq!(
        events[..4],
        [
            StreamEvent::ReasoningDelta("The user wants ".into()),
            StreamEvent::ReasoningDelta("the weather.".into()),
            // The whole block, signature included, once it stops: it goes back next round.
            StreamEvent::Reasoning(ReasoningPart::Thinking {
                thinking: "The user wants the weather.".into(),
                signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h".into(),
            }),
            StreamEvent::TextDelta("Okay, let me ".into()),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Done {
            stop_reason: StopReason::ToolUse
        })
    );
    let mut acc = ResponseAccumulator::new();
    acc.extend(events);
    let r = acc.finish();
    assert_eq!(r.reasoning, "The user wants the weather.");
    assert_eq!(r.text, "Okay, let me check.");
    assert_eq!(
        r.tool_calls,
        vec![
            ToolCall::new(
                "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "get_weather",
                r#"{"location": "San Francisco, CA", "unit": "fahrenheit"}"#
            ),
            ToolCall::new("toolu_02", "get_time", "{}"),
        ]
    );
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 572,
            output_tokens: 89,
            cache_read_tokens: 100,
            cost_usd: None,
            ..Default::default()
        })
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let rec = &reqs[0];
    assert_eq!(rec.method, "POST");
    assert_eq!(rec.path, "/v1/messages");
    assert_eq!(rec.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(rec.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(rec.header("authorization"), None);
    assert_eq!(rec.body["stream"], true);
    assert_eq!(rec.body["max_tokens"], 8192, "the default max_tokens");
    assert_eq!(rec.body["tools"][0]["name"], "read_file");
    assert!(rec.body["tools"][0]["input_schema"].is_object());
}

#[tokio::test]
async fn overloaded_error_event_is_retriable() {
    let body = message_start()
        + &sse_event(
            "error",
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        );
    let server = MockServer::start([Reply::sse(body)]).await;
    let (events, err) = collect(client(&server).stream(&simple_request("hi"))).await;
    assert!(events.is_empty());
    let err = err.unwrap();
    assert!(err.is_retriable());
    assert!(
        matches!(&err, LlmError::Provider { kind, .. } if kind == "overloaded_error"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "anthropic: overloaded_error: Overloaded");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn overloaded_before_any_event_is_retried() {
    let overloaded = message_start()
        + &sse_event(
            "error",
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        );
    let ok = message_start()
        + &block_start(0, json!({"type": "text", "text": ""}))
        + &block_delta(0, json!({"type": "text_delta", "text": "Hi!"}))
        + &block_stop(0)
        + &message_end("end_turn", 3);
    let server = MockServer::start([
        Reply::sse(overloaded),
        Reply::error(
            529,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
        Reply::sse(ok),
    ])
    .await;
    let provider = client(&server).with_retry_policy(fast_retries(3));
    let (events, err) = collect(provider.stream(&simple_request("hi"))).await;
    assert_eq!(err, None);
    // Each retry is announced (attempt, reason) before the answer.
    let notices: Vec<(u32, u32, String)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying {
                attempt,
                max_attempts,
                reason,
                ..
            } => Some((*attempt, *max_attempts, reason.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        notices,
        vec![
            (2, 4, "server overloaded".to_string()),
            (3, 4, "server overloaded".to_string())
        ]
    );
    let events: Vec<StreamEvent> = events
        .into_iter()
        .filter(|e| !matches!(e, StreamEvent::Retrying { .. }))
        .collect();
    assert_eq!(
        events,
        vec![
            StreamEvent::TextDelta("Hi!".into()),
            StreamEvent::Usage(Usage {
                input_tokens: 572,
                output_tokens: 3,
                cache_read_tokens: 100,
                cost_usd: None,
                ..Default::default()
            }),
            StreamEvent::Done {
                stop_reason: StopReason::EndTurn
            },
        ]
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn invalid_request_is_final() {
    let server = MockServer::start([Reply::error(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": "messages: roles must alternate"}}),
    )])
    .await;
    let provider = client(&server).with_retry_policy(fast_retries(3));
    let (_, err) = collect(provider.stream(&simple_request("hi"))).await;
    let err = err.unwrap();
    assert!(!err.is_retriable());
    assert!(err.to_string().contains("roles must alternate"), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn request_body_snapshot() {
    let ok = message_start() + &message_end("end_turn", 1);
    let server = MockServer::start([Reply::sse(ok)]).await;
    let provider = client(&server).with_version("2023-06-01");
    let (_, err) = collect(provider.stream(&fixed_request())).await;
    assert_eq!(err, None);
    let body = &server.requests()[0].body;
    insta::assert_snapshot!(serde_json::to_string_pretty(body).unwrap());
}
