//! Integration tests for skald-llm: every client against the scripted mock server
//! (`skald-llm-mock`) replaying realistic streams and recording each request; the fake provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic;
mod errors;
mod fake;
mod models;
mod ollama;
mod openai;
mod replay;

use skald_llm::{ChatRequest, Message, RetryPolicy, ToolCall};
use std::time::Duration;

/// The fixed request whose wire format each client's snapshot pins: system prompt, a tool,
/// a tool call, its result, and a mid-conversation system note.
pub fn fixed_request() -> ChatRequest {
    ChatRequest {
        model: "test-model".into(),
        system: Some("You are Skald.".into()),
        messages: vec![
            Message::user("What is in a.txt?"),
            Message::assistant_calls(
                "Let me read it.",
                vec![ToolCall::new("call_1", "read_file", r#"{"path":"a.txt"}"#)],
            ),
            Message::tool_result("call_1", "hello world"),
            Message::system("The user prefers short answers."),
            Message::user("Summarise it."),
        ],
        tools: vec![read_file_tool()],
        max_tokens: Some(1024),
        temperature: Some(0.2),
        reasoning: None,
    }
}

pub fn read_file_tool() -> skald_llm::ToolDef {
    skald_llm::ToolDef::new(
        "read_file",
        "Read a text file.",
        serde_json::json!({
            "type": "object",
            "properties": {"path": {"type": "string", "description": "File path"}},
            "required": ["path"]
        }),
    )
}

pub fn simple_request(text: &str) -> ChatRequest {
    ChatRequest {
        model: "test-model".into(),
        messages: vec![Message::user(text)],
        tools: vec![read_file_tool()],
        ..ChatRequest::default()
    }
}

/// Drains a provider stream: the events before the first error, and that error.
pub async fn collect(
    stream: skald_llm::EventStream<'_>,
) -> (Vec<skald_llm::StreamEvent>, Option<skald_llm::LlmError>) {
    use futures_util::StreamExt;
    let mut stream = stream;
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

/// Fast retries for tests.
pub fn fast_retries(n: u32) -> RetryPolicy {
    RetryPolicy::new(n, Duration::from_millis(5))
}
