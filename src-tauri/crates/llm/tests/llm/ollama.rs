//! Ollama /api/chat against the mock server, and detection.

use serde_json::json;
use skald_llm::{
    LlmProvider, Ollama, ResponseAccumulator, StopReason, StreamEvent, Usage, detect_ollama,
    ollama_models,
};

use crate::collect;
use crate::{fast_retries, fixed_request, simple_request};
use skald_llm_mock::{End, MockServer, Reply};

fn line(v: serde_json::Value) -> String {
    format!("{v}\n")
}

fn tool_call_stream() -> String {
    let mut s = String::new();
    for (thinking, content) in [("Need the file.", ""), ("", "Reading "), ("", "it.")] {
        s += &line(json!({
            "model": "qwen3", "created_at": "2025-05-27T22:54:57.641643Z",
            "message": {"role": "assistant", "content": content, "thinking": thinking},
            "done": false
        }));
    }
    s += &line(json!({
        "model": "qwen3", "created_at": "2025-05-27T22:54:58.100000Z",
        "message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}},
            {"function": {"name": "read_file", "arguments": {"path": "b.txt"}}}
        ]},
        "done": false
    }));
    s += &line(json!({
        "model": "qwen3", "created_at": "2025-05-27T22:54:58.200000Z",
        "message": {"role": "assistant", "content": ""},
        "done_reason": "stop", "done": true,
        "total_duration": 2_000_000_000u64, "load_duration": 1_000_000u64,
        "prompt_eval_count": 190, "prompt_eval_duration": 100_000_000u64,
        "eval_count": 37, "eval_duration": 800_000_000u64
    }));
    s
}

fn client(server: &MockServer) -> Ollama {
    Ollama::new(server.url())
        .unwrap()
        .with_retry_policy(fast_retries(0))
}

#[tokio::test]
async fn ndjson_with_tool_calls_thinking_and_usage() {
    let server = MockServer::raw([Reply::ndjson(tool_call_stream()).piece(13)]).unwrap();
    let (events, err) = collect(client(&server).stream(&simple_request("read a and b"))).await;
    assert_eq!(err, None);
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Done {
            stop_reason: StopReason::ToolUse
        })
    );
    let mut acc = ResponseAccumulator::new();
    acc.extend(events);
    let r = acc.finish();
    assert_eq!(r.reasoning, "Need the file.");
    assert_eq!(r.text, "Reading it.");
    assert_eq!(r.tool_calls.len(), 2);
    assert_eq!(r.tool_calls[0].name, "read_file");
    assert_eq!(r.tool_calls[0].arguments, r#"{"path":"a.txt"}"#);
    assert_eq!(r.tool_calls[1].arguments, r#"{"path":"b.txt"}"#);
    assert_ne!(
        r.tool_calls[0].id, r.tool_calls[1].id,
        "synthetic ids differ"
    );
    assert!(r.tool_calls[0].id.starts_with("ollama_"));
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 190,
            output_tokens: 37,
            cost_usd: None,
            ..Default::default()
        })
    );

    let rec = &server.requests()[0];
    assert_eq!(rec.method, "POST");
    assert_eq!(rec.path, "/api/chat");
    assert_eq!(rec.header("authorization"), None);
    assert_eq!(rec.body["stream"], true);
    assert_eq!(rec.body["tools"][0]["function"]["name"], "read_file");
}

#[tokio::test]
async fn synthetic_ids_are_unique_across_responses() {
    let one = || {
        line(json!({"message": {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "t", "arguments": {}}}]}, "done": false}))
            + &line(
                json!({"message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"}),
            )
    };
    let server = MockServer::raw([Reply::ndjson(one()), Reply::ndjson(one())]).unwrap();
    let provider = client(&server);
    let req = simple_request("x");
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (events, err) = collect(provider.stream(&req)).await;
        assert_eq!(err, None);
        let mut acc = ResponseAccumulator::new();
        acc.extend(events);
        ids.push(acc.finish().tool_calls[0].id.clone());
    }
    assert_ne!(ids[0], ids[1]);
}

#[tokio::test]
async fn error_line_and_missing_done_are_errors() {
    let server = MockServer::raw([
        Reply::error(
            404,
            json!({"error": "model \"nope\" not found, try pulling it first"}),
        ),
        Reply::ndjson(line(
            json!({"message": {"role": "assistant", "content": "par"}, "done": false}),
        ))
        .end(End::Complete),
    ])
    .unwrap();
    let provider = client(&server);
    let (_, err) = collect(provider.stream(&simple_request("x"))).await;
    let err = err.unwrap();
    assert!(!err.is_retriable());
    assert!(err.to_string().contains("not found, try pulling"), "{err}");
    let (events, err) = collect(provider.stream(&simple_request("x"))).await;
    assert_eq!(events, vec![StreamEvent::TextDelta("par".into())]);
    assert!(
        err.unwrap().is_retriable(),
        "a stream without done is broken"
    );
}

#[tokio::test]
async fn detects_a_server_answering_api_tags() {
    let server = MockServer::raw([Reply::stream(
        "application/json",
        json!({"models": []}).to_string(),
    )])
    .unwrap();
    assert!(detect_ollama(server.url()).await);
    let rec = &server.requests()[0];
    assert_eq!(
        (rec.method.as_str(), rec.path.as_str()),
        ("GET", "/api/tags")
    );

    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    assert!(!detect_ollama(&format!("http://{addr}")).await);
}

#[tokio::test]
async fn lists_the_models_a_server_has_pulled() {
    let server = MockServer::raw([
        Reply::stream(
            "application/json",
            json!({"models": [{"name": "qwen3:8b", "size": 1}, {"name": "llama3.2"}]}).to_string(),
        ),
        Reply::stream("application/json", "not json".to_string()),
    ])
    .unwrap();
    assert_eq!(
        ollama_models(server.url()).await,
        Some(vec!["qwen3:8b".to_string(), "llama3.2".to_string()])
    );
    // Answering with something unreadable: a server, but no models known.
    assert_eq!(ollama_models(server.url()).await, Some(vec![]));
}

#[tokio::test]
async fn request_body_snapshot() {
    let done = line(
        json!({"message": {"role": "assistant", "content": "ok"}, "done": true, "done_reason": "stop"}),
    );
    let server = MockServer::raw([Reply::ndjson(done)]).unwrap();
    let (_, err) = collect(client(&server).stream(&fixed_request())).await;
    assert_eq!(err, None);
    let body = &server.requests()[0].body;
    insta::assert_snapshot!(serde_json::to_string_pretty(body).unwrap());
}
