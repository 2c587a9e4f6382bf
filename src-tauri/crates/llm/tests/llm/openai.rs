//! OpenAI-compatible Chat Completions against the mock server.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use skald_llm::{
    LlmError, LlmProvider, OpenAiCompatible, ReasoningPart, ResponseAccumulator, StopReason,
    StreamEvent, ToolCall, Usage,
};

use crate::mock_server::{End, MockServer, Reply, collect, sse_data};
use crate::{fast_retries, fixed_request, simple_request};

fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
    sse_data(&json!({
        "id": "chatcmpl-AbC123",
        "object": "chat.completion.chunk",
        "created": 1_730_000_000,
        "model": "gpt-4.1-2025-04-14",
        "system_fingerprint": "fp_b7d65f1a5b",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
        "usage": null
    }))
}

fn usage_chunk(usage: Value) -> String {
    sse_data(&json!({
        "id": "chatcmpl-AbC123",
        "object": "chat.completion.chunk",
        "created": 1_730_000_000,
        "model": "gpt-4.1-2025-04-14",
        "choices": [],
        "usage": usage
    }))
}

fn args_chunk(index: usize, fragment: &str) -> String {
    chunk(
        json!({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}),
        None,
    )
}

/// Text, then two tool calls whose arguments arrive a few characters at a time, then the
/// finish chunk, the usage chunk (OpenRouter-style with cost) and `[DONE]`.
fn two_tool_calls_stream() -> String {
    let mut s = String::from(": OPENROUTER PROCESSING\n\n");
    s += &chunk(
        json!({"role": "assistant", "content": "", "refusal": null}),
        None,
    );
    s += &chunk(json!({"content": "I'll read "}), None);
    s += &chunk(json!({"content": "both files."}), None);
    let calls = [
        ("call_Aa1", r#"{"path": "src/main.rs", "line_start": 1}"#),
        ("call_Bb2", r#"{"path": "Cargo.toml"}"#),
    ];
    for (index, (id, args)) in calls.iter().enumerate() {
        s += &chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                "function": {"name": "read_file", "arguments": ""}}]}),
            None,
        );
        let chars: Vec<char> = args.chars().collect();
        for piece in chars.chunks(3) {
            s += &args_chunk(index, &piece.iter().collect::<String>());
        }
    }
    s += &chunk(json!({}), Some("tool_calls"));
    s += &usage_chunk(json!({
        "prompt_tokens": 81, "completion_tokens": 42, "total_tokens": 123,
        "cost": 0.00123,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0}
    }));
    s += "data: [DONE]\n\n";
    s
}

fn text_stream(words: &[&str]) -> String {
    let mut s = chunk(json!({"role": "assistant", "content": ""}), None);
    for w in words {
        s += &chunk(json!({"content": w}), None);
    }
    s += &chunk(json!({}), Some("stop"));
    s += &usage_chunk(json!({"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}));
    s += "data: [DONE]\n\n";
    s
}

fn client(server: &MockServer) -> OpenAiCompatible {
    OpenAiCompatible::new(format!("{}/v1", server.url), Some("sk-test".into()))
        .unwrap()
        .with_retry_policy(fast_retries(3))
}

#[tokio::test]
async fn tool_call_arguments_split_across_many_chunks_and_several_calls() {
    let server = MockServer::start([Reply::sse(two_tool_calls_stream()).piece(11)]).await;
    let provider = client(&server)
        .with_name("openrouter")
        .with_header("HTTP-Referer", "https://skald.example")
        .unwrap();
    let req = simple_request("read them");

    let (events, err) = collect(provider.stream(&req)).await;
    assert_eq!(err, None);
    let fragments = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallDelta { .. }))
        .count();
    assert!(fragments > 10, "arguments came in {fragments} fragments");
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Done {
            stop_reason: StopReason::ToolUse
        })
    );
    let mut acc = ResponseAccumulator::new();
    acc.extend(events);
    let r = acc.finish();
    assert_eq!(r.text, "I'll read both files.");
    assert_eq!(
        r.tool_calls,
        vec![
            ToolCall::new(
                "call_Aa1",
                "read_file",
                r#"{"path": "src/main.rs", "line_start": 1}"#
            ),
            ToolCall::new("call_Bb2", "read_file", r#"{"path": "Cargo.toml"}"#),
        ]
    );
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 81,
            output_tokens: 42,
            cost_usd: Some(0.00123),
            ..Default::default()
        })
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let rec = &reqs[0];
    assert_eq!(rec.method, "POST");
    assert_eq!(rec.path, "/v1/chat/completions");
    assert_eq!(rec.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(rec.header("content-type"), Some("application/json"));
    assert_eq!(rec.header("http-referer"), Some("https://skald.example"));
    assert_eq!(rec.body["model"], "test-model");
    assert_eq!(rec.body["stream"], true);
    assert_eq!(rec.body["stream_options"]["include_usage"], true);
    assert_eq!(rec.body["messages"][0]["role"], "user");
    assert_eq!(rec.body["tools"][0]["function"]["name"], "read_file");
}

#[tokio::test]
async fn reasoning_deltas_from_either_field() {
    let mut body = chunk(
        json!({"role": "assistant", "reasoning_content": "Think"}),
        None,
    );
    body += &chunk(json!({"reasoning": "ing."}), None);
    body += &chunk(json!({"content": "Answer"}), None);
    body += &chunk(json!({}), Some("length"));
    body += "data: [DONE]\n\n";
    let server = MockServer::start([Reply::sse(body)]).await;
    let (events, err) = collect(client(&server).stream(&simple_request("q"))).await;
    assert_eq!(err, None);
    assert_eq!(
        events,
        vec![
            StreamEvent::ReasoningDelta("Think".into()),
            StreamEvent::ReasoningDelta("ing.".into()),
            StreamEvent::TextDelta("Answer".into()),
            // Each field's text whole, to go back in the field it came in.
            StreamEvent::Reasoning(ReasoningPart::Text {
                field: "reasoning_content".into(),
                text: "Think".into()
            }),
            StreamEvent::Reasoning(ReasoningPart::Text {
                field: "reasoning".into(),
                text: "ing.".into()
            }),
            StreamEvent::Done {
                stop_reason: StopReason::MaxTokens
            },
        ]
    );
}

#[tokio::test]
async fn rate_limited_then_success_retries_honouring_retry_after() {
    let server = MockServer::start([
        Reply::error(
            429,
            json!({"error": {"message": "Rate limit reached for gpt-4.1", "type": "requests", "code": "rate_limit_exceeded"}}),
        )
        .header("retry-after-ms", "60"),
        Reply::sse(text_stream(&["Hello", " there"])),
    ])
    .await;
    let started = Instant::now();
    let (events, err) = collect(client(&server).stream(&simple_request("hi"))).await;
    assert_eq!(err, None);
    assert!(started.elapsed() >= Duration::from_millis(60));
    let mut acc = ResponseAccumulator::new();
    acc.extend(events);
    assert_eq!(acc.finish().text, "Hello there");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "one retry");
    assert_eq!(
        reqs[0].body, reqs[1].body,
        "the retry resends the same body"
    );
}

#[tokio::test]
async fn unauthorized_is_final_with_a_clear_message() {
    let server = MockServer::start([Reply::error(
        401,
        json!({"error": {"message": "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}),
    )])
    .await;
    let (events, err) = collect(client(&server).stream(&simple_request("hi"))).await;
    assert!(events.is_empty());
    let err = err.unwrap();
    assert!(!err.is_retriable());
    assert_eq!(err.status(), Some(401));
    let msg = err.to_string();
    assert!(msg.starts_with("openai: HTTP 401"), "{msg}");
    assert!(msg.contains("Incorrect API key provided"), "{msg}");
    assert_eq!(server.requests().len(), 1, "no retry for a final error");
}

#[tokio::test]
async fn server_error_exhausts_retries() {
    let overloaded = || {
        Reply::error(
            503,
            json!({"error": {"message": "The server is overloaded"}}),
        )
    };
    let server = MockServer::start([overloaded(), overloaded(), overloaded(), overloaded()]).await;
    let provider = client(&server).with_retry_policy(fast_retries(2));
    let (_, err) = collect(provider.stream(&simple_request("hi"))).await;
    let err = err.unwrap();
    assert!(err.is_retriable());
    assert!(err.to_string().contains("503"), "{err}");
    assert_eq!(server.requests().len(), 3, "first attempt + 2 retries");
}

#[tokio::test]
async fn stream_cut_mid_way_surfaces_a_retriable_error_without_retrying() {
    let mut body = chunk(json!({"role": "assistant", "content": ""}), None);
    body += &chunk(json!({"content": "The answer is"}), None);
    body += &chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_X", "type": "function",
        "function": {"name": "read_file", "arguments": "{\"pa"}}]}),
        None,
    );
    let server = MockServer::start([
        Reply::sse(body).end(End::Cut),
        Reply::sse(text_stream(&["never"])),
    ])
    .await;
    let (events, err) = collect(client(&server).stream(&simple_request("hi"))).await;
    assert_eq!(
        events.first(),
        Some(&StreamEvent::TextDelta("The answer is".into()))
    );
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Done { .. })));
    let err = err.unwrap();
    assert!(
        matches!(err, LlmError::StreamBroken { .. }),
        "expected a broken stream, got {err:?}"
    );
    assert!(err.is_retriable());
    assert_eq!(
        server.requests().len(),
        1,
        "no retry once events were yielded"
    );
}

#[tokio::test]
async fn closed_without_done_marker_is_broken_when_nothing_finished() {
    // A close-delimited body that simply stops: no finish_reason, no [DONE].
    let body = chunk(json!({"content": "partial"}), None);
    let server = MockServer::start([Reply::sse(body)]).await;
    let provider = client(&server).with_retry_policy(fast_retries(0));
    let (events, err) = collect(provider.stream(&simple_request("hi"))).await;
    assert_eq!(events, vec![StreamEvent::TextDelta("partial".into())]);
    assert!(
        matches!(err, Some(LlmError::StreamBroken { .. })),
        "{err:?}"
    );
}

#[tokio::test]
async fn stream_cut_before_any_event_is_retried() {
    let server = MockServer::start([
        Reply::sse(": keep-alive\n\n").end(End::Cut),
        Reply::sse(text_stream(&["ok"])),
    ])
    .await;
    let (events, err) = collect(client(&server).stream(&simple_request("hi"))).await;
    assert_eq!(err, None);
    assert!(
        matches!(&events[0], StreamEvent::Retrying { attempt: 2, reason, .. } if reason == "connection dropped"),
        "{events:?}"
    );
    assert_eq!(events.get(1), Some(&StreamEvent::TextDelta("ok".into())));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn connection_refused_is_a_retriable_network_error() {
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let provider = OpenAiCompatible::new(format!("http://{addr}/v1"), None)
        .unwrap()
        .with_retry_policy(fast_retries(1));
    let (_, err) = collect(provider.stream(&simple_request("hi"))).await;
    let err = err.unwrap();
    assert!(matches!(err, LlmError::Network { .. }), "{err:?}");
    assert!(err.is_retriable());
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let body = chunk(json!({"content": "first"}), None);
    let server = MockServer::start([Reply::sse(body).end(End::Hang)]).await;
    let provider = client(&server);
    let req = simple_request("hi");
    let mut stream = provider.stream(&req);
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        StreamEvent::TextDelta("first".into())
    );
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.disconnects() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(server.disconnects(), 1, "the server saw the client leave");
}

#[tokio::test]
async fn https_without_tls_feature_is_a_config_error() {
    if cfg!(feature = "native-tls") {
        return;
    }
    let err = OpenAiCompatible::new("https://api.openai.com/v1", None).unwrap_err();
    assert!(matches!(err, LlmError::Config(_)));
    assert!(err.to_string().contains("native-tls"), "{err}");
}

#[tokio::test]
async fn request_body_snapshot() {
    let server = MockServer::start([Reply::sse(text_stream(&["ok"]))]).await;
    let (_, err) = collect(client(&server).stream(&fixed_request())).await;
    assert_eq!(err, None);
    let body = &server.requests()[0].body;
    insta::assert_snapshot!(serde_json::to_string_pretty(body).unwrap());
}
