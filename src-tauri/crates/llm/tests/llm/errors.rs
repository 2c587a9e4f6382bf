//! Errors a person can act on: retries announced with their countdown, and a success reply
//! that is not an event stream named as such (against the mock server).

use std::time::{Duration, Instant};

use serde_json::json;
use skald_llm::{LlmError, LlmProvider, OpenAiCompatible, ResponseAccumulator, StreamEvent};

use crate::collect;
use crate::{fast_retries, simple_request};
use skald_llm_mock::openai::sse_data;
use skald_llm_mock::{MockServer, Reply};

fn client(server: &MockServer) -> OpenAiCompatible {
    OpenAiCompatible::new(format!("{}/v1", server.url()), Some("sk-test".into()))
        .unwrap()
        .with_retry_policy(fast_retries(4))
}

fn hello() -> String {
    let mut s = sse_data(&json!({"choices": [{"index": 0, "delta": {"content": "Hello"}}]}));
    s += &sse_data(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    s + "data: [DONE]\n\n"
}

/// A 429 with `retry-after: 1`: the stream first says "rate limited, retry in 1 s, attempt
/// 2 of 5" (before the client waits, so it can be shown), then the answer.
#[tokio::test]
async fn a_rate_limit_is_announced_with_its_wait_and_attempt_before_the_retry() {
    let server = MockServer::start([
        Reply::error(429, json!({"error": {"message": "Rate limit reached"}}))
            .header("retry-after", "1"),
        Reply::sse(hello()),
    ])
    .unwrap();
    let provider = client(&server);
    let started = Instant::now();
    let request = simple_request("hi");
    let mut stream = provider.stream(&request);
    let first = futures_util::StreamExt::next(&mut stream).await;
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "announced before the wait, not after"
    );
    match first {
        Some(Ok(StreamEvent::Retrying {
            attempt,
            max_attempts,
            delay_ms,
            reason,
            detail,
        })) => {
            assert_eq!((attempt, max_attempts, delay_ms), (2, 5, 1000));
            assert_eq!(reason, "rate limited");
            assert!(detail.contains("HTTP 429"), "{detail}");
            assert_eq!(
                skald_llm::LlmError::Http {
                    provider: "openai".into(),
                    status: 429,
                    message: String::new(),
                    retry_after: None
                }
                .reason(),
                reason
            );
        }
        other => panic!("expected a retry notice first, got {other:?}"),
    }
    let (events, err) = collect(stream).await;
    assert_eq!(err, None);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited as asked"
    );
    let mut acc = ResponseAccumulator::new();
    acc.extend(events);
    assert_eq!(acc.finish().text, "Hello");
    assert_eq!(server.requests().len(), 2);
}

/// A base URL pointing at a website: 200 with an HTML page. Said in words, not retried.
#[tokio::test]
async fn a_web_page_instead_of_an_event_stream_says_check_the_base_url() {
    let page = "<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>";
    let server = MockServer::start([
        Reply::stream("text/html; charset=utf-8", page),
        Reply::sse(hello()),
    ])
    .unwrap();
    let (events, err) = collect(client(&server).stream(&simple_request("hi"))).await;
    assert!(events.is_empty(), "{events:?}");
    let err = err.unwrap();
    assert!(matches!(err, LlmError::NotEventStream { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("not an event stream"), "{msg}");
    assert!(msg.contains("check the base URL"), "{msg}");
    assert!(msg.contains("/v1/chat/completions"), "{msg}");
    assert!(!err.is_retriable());
    assert_eq!(server.requests().len(), 1, "not retried");
}

/// The same page served as `text/plain` (or with no type): no event in the whole body.
#[tokio::test]
async fn a_body_without_a_single_event_is_not_an_event_stream_either() {
    let page = "<html><body>Moved to /api</body></html>\n";
    let server = MockServer::start([Reply::stream("text/plain", page)]).unwrap();
    let provider = client(&server).with_retry_policy(fast_retries(0));
    let (_, err) = collect(provider.stream(&simple_request("hi"))).await;
    let msg = err.unwrap().to_string();
    assert!(
        msg.contains("not an event stream") && msg.contains("check the base URL"),
        "{msg}"
    );
}
