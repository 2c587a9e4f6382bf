//! Integration tests for skald-llm: every client against a local mock HTTP server that
//! replays realistic streams and records each request; the fake provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic;
mod errors;
mod fake;
mod mock_server;
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

/// Fast retries for tests.
pub fn fast_retries(n: u32) -> RetryPolicy {
    RetryPolicy::new(n, Duration::from_millis(5))
}
