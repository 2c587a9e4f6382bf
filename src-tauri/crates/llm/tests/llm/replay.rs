//! Recorded provider streams (`tests/fixtures`, sources in its README) replayed byte for
//! byte and cut into 3-byte pieces; then the follow-up request after the tool result,
//! checked against the shape each provider documents.

use serde_json::{Value, json};
use skald_llm::{
    Anthropic, AssistantResponse, ChatRequest, LlmProvider, Message, Ollama, OpenAiCompatible,
    ReasoningEffort, ReasoningPart, ResponseAccumulator, StopReason, ToolCall,
};

use crate::collect;
use crate::{fast_retries, read_file_tool};
use skald_llm_mock::anthropic::sse_event;
use skald_llm_mock::openai::sse_data;
use skald_llm_mock::{MockServer, Reply};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[derive(Clone, Copy)]
enum Kind {
    OpenAi,
    Anthropic,
    Ollama,
}

impl Kind {
    fn client(self, server: &MockServer) -> Box<dyn LlmProvider> {
        match self {
            Kind::OpenAi => Box::new(
                OpenAiCompatible::new(format!("{}/v1", server.url()), Some("sk-test".into()))
                    .unwrap()
                    .with_retry_policy(fast_retries(0)),
            ),
            Kind::Anthropic => Box::new(
                Anthropic::new(server.url(), "sk-ant-test")
                    .unwrap()
                    .with_retry_policy(fast_retries(0)),
            ),
            Kind::Ollama => Box::new(
                Ollama::new(server.url())
                    .unwrap()
                    .with_retry_policy(fast_retries(0)),
            ),
        }
    }

    fn reply(self, body: String) -> Reply {
        match self {
            Kind::Ollama => Reply::ndjson(body),
            Kind::OpenAi | Kind::Anthropic => Reply::sse(body),
        }
    }

    /// A short final answer in this provider's format.
    fn final_answer(self) -> String {
        match self {
            Kind::OpenAi => {
                sse_data(&json!({"choices": [{"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}]}))
                    + "data: [DONE]\n\n"
            }
            Kind::Anthropic => {
                sse_event("message_start", &json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}))
                    + &sse_event("content_block_start", &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Done."}}))
                    + &sse_event("content_block_stop", &json!({"type": "content_block_stop", "index": 0}))
                    + &sse_event("message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}))
                    + &sse_event("message_stop", &json!({"type": "message_stop"}))
            }
            Kind::Ollama => {
                json!({"model": "qwen3", "message": {"role": "assistant", "content": "Done."}, "done": true, "done_reason": "stop"}).to_string() + "\n"
            }
        }
    }
}

/// The first request's question.
const QUESTION: &str = "What's the weather? Use the tools.";

/// Replays `name` with `piece`-byte pieces (`None`: the whole body at once), answers every
/// tool call, and returns the folded first response and the second request's body.
async fn replay(kind: Kind, name: &str, piece: Option<usize>) -> (AssistantResponse, Value) {
    let body = fixture(name);
    let first = kind.reply(body.clone()).piece(piece.unwrap_or(body.len()));
    let server = MockServer::raw([first, kind.reply(kind.final_answer())]).unwrap();
    let client = kind.client(&server);
    let mut req = ChatRequest {
        model: "test-model".into(),
        messages: vec![Message::user(QUESTION)],
        tools: vec![read_file_tool()],
        ..ChatRequest::default()
    };
    let (events, err) = collect(client.stream(&req)).await;
    assert_eq!(err, None, "{name} in {piece:?}-byte pieces");
    let mut acc = ResponseAccumulator::new();
    acc.extend(events);
    let response = acc.finish();
    assert_eq!(response.stop_reason, Some(StopReason::ToolUse), "{name}");
    req.messages.push(response.to_message());
    for c in &response.tool_calls {
        req.messages
            .push(Message::tool_result(c.id.clone(), "sunny, 21 °C"));
    }
    let (_, err) = collect(client.stream(&req)).await;
    assert_eq!(err, None, "{name}: second request");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    (response, requests[1].body.clone())
}

const PIECES: [Option<usize>; 2] = [None, Some(3)];

#[tokio::test]
async fn anthropic_thinking_goes_back_unchanged_before_tool_use() {
    for piece in PIECES {
        let (r, body) = replay(Kind::Anthropic, "anthropic_thinking_tool_use.sse", piece).await;
        let thinking =
            "The user wants the weather in Paris. I should call get_weather with \"Paris\".";
        assert_eq!(r.reasoning, thinking);
        assert_eq!(
            r.tool_calls,
            vec![ToolCall::new(
                "toolu_01CswdEQBMshySk6Y9DFKrfq",
                "get_weather",
                r#"{"location": "Paris"}"#
            )]
        );
        let usage = r.usage.unwrap();
        assert_eq!(
            (
                usage.input_tokens,
                usage.cache_read_tokens,
                usage.output_tokens
            ),
            (1290, 512, 89)
        );
        // Anthropic: the last assistant turn's thinking block, with its signature, unchanged
        // and first; then the text and the tool_use; then the tool_result.
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(
            messages[1],
            json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": thinking, "signature": "ErUBCkYIARgCIkACJWxzySUOJzOlZ8WFdgQSbeQA3H1i5rfkKLV9eC4HN6Jcnrlw1NcnPRIPaTs9jLF3rllsfoidjZapJ+5MLwjVEgzTfQ6r9tDZvyBP0nEaDHWRqRWP7CoPOc+ksSIwSlxHzaMbnyXGoiNmCj9thC3N6EDMpemJPx3UZqDtrgmKZgQMMzNzNsh9IxgvtuYKKh1PxXUmWexqlckSVETQj3LbHLK/nwEK+bz0+2b/pA=="},
                {"type": "text", "text": "I'll check the weather in Paris."},
                {"type": "tool_use", "id": "toolu_01CswdEQBMshySk6Y9DFKrfq", "name": "get_weather", "input": {"location": "Paris"}}
            ]})
        );
        assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    }
}

#[tokio::test]
async fn anthropic_redacted_thinking_goes_back_in_order() {
    for piece in PIECES {
        let (r, body) = replay(
            Kind::Anthropic,
            "anthropic_redacted_thinking_tool_use.sse",
            piece,
        )
        .await;
        assert!(matches!(
            r.reasoning_parts[0],
            ReasoningPart::RedactedThinking { .. }
        ));
        assert_eq!(
            r.tool_calls,
            vec![ToolCall::new(
                "toolu_01A09q90qw90lq917835lq9",
                "list_dir",
                "{}"
            )]
        );
        let usage = r.usage.unwrap();
        assert_eq!((usage.input_tokens, usage.cache_write_tokens), (3072, 2048));
        let content = body["messages"][1]["content"].as_array().unwrap();
        let types: Vec<&str> = content
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        assert_eq!(types, ["redacted_thinking", "thinking", "tool_use"]);
        assert!(
            content[0]["data"]
                .as_str()
                .unwrap()
                .starts_with("EmwKAhgBEgy3va3pzix")
        );
        assert_eq!(
            content[1]["signature"],
            "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
        );
        assert_eq!(content[1]["thinking"], "Listing the directory first.");
    }
}

#[tokio::test]
async fn deepseek_reasoning_content_goes_back_with_the_tool_call() {
    for piece in PIECES {
        let (r, body) = replay(
            Kind::OpenAi,
            "deepseek_reasoning_content_tool_call.sse",
            piece,
        )
        .await;
        let reasoning = "The user asks for tomorrow's weather in Hangzhou. I need the date first, so I call get_date.";
        assert_eq!(r.reasoning, reasoning);
        assert_eq!(
            r.tool_calls,
            vec![ToolCall::new(
                "call_00_kZqDZ1bR2yTqvQ8Pw3n1",
                "get_date",
                "{}"
            )]
        );
        let usage = r.usage.unwrap();
        assert_eq!(
            (
                usage.input_tokens,
                usage.cache_read_tokens,
                usage.reasoning_tokens
            ),
            (342, 320, 41)
        );
        // DeepSeek: `reasoning_content` beside `content` and `tool_calls`.
        assert_eq!(
            body["messages"][1],
            json!({
                "role": "assistant",
                "content": null,
                "reasoning_content": reasoning,
                "tool_calls": [{"id": "call_00_kZqDZ1bR2yTqvQ8Pw3n1", "type": "function",
                                "function": {"name": "get_date", "arguments": "{}"}}]
            })
        );
        assert_eq!(body["messages"][2]["role"], "tool");
    }
}

#[tokio::test]
async fn openrouter_gemini_reasoning_details_go_back_unmodified() {
    for piece in PIECES {
        let (r, body) = replay(
            Kind::OpenAi,
            "openrouter_gemini_reasoning_details_tool_call.sse",
            piece,
        )
        .await;
        let text = "**Checking the weather**\n\nThe user wants the weather in Boston, so I will call get_weather.";
        assert_eq!(r.reasoning, text);
        assert_eq!(r.usage.unwrap().cost_usd, Some(0.001913));
        let msg = &body["messages"][1];
        assert_eq!(
            msg["reasoning_details"],
            json!([
                {"type": "reasoning.text", "text": text, "format": "google-gemini-v1", "index": 0},
                {"type": "reasoning.encrypted", "data": "CiQB0e2Kb7Vh1rXqS4Z2mG9oM3xN6u4tQ0p8yLwA1sFf3D9c2kIKdwHR7YpB6nHq5Jv0sL3w",
                 "id": "tool_get_weather_Vx3kq9", "format": "google-gemini-v1", "index": 0}
            ])
        );
        // The `reasoning` text says what the details say: not sent twice.
        assert!(msg.get("reasoning").is_none(), "{msg}");
        assert_eq!(msg["tool_calls"][0]["id"], "tool_get_weather_Vx3kq9");
    }
}

#[tokio::test]
async fn openrouter_claude_reasoning_details_keep_their_signature() {
    for piece in PIECES {
        let (r, body) = replay(
            Kind::OpenAi,
            "openrouter_claude_reasoning_details_tool_call.sse",
            piece,
        )
        .await;
        assert_eq!(r.text, "I'll check the weather in Boston.");
        assert_eq!(
            body["messages"][1]["reasoning_details"],
            json!([{
                "type": "reasoning.text",
                "text": "The user wants the weather in Boston and what to wear. Let me get the weather first.",
                "signature": "EqMDCkYICBgCKkDm0LvBqZy8yKf6tTzuSNtjPZ2B0Q7m3K9xWc1cBgoCqJ5TnQ6p",
                "format": "anthropic-claude-v1",
                "index": 0
            }])
        );
        assert_eq!(
            body["messages"][1]["content"],
            "I'll check the weather in Boston."
        );
    }
}

#[tokio::test]
async fn calls_sharing_an_index_stay_two_calls() {
    for piece in PIECES {
        let (r, body) = replay(Kind::OpenAi, "shared_index_tool_calls.sse", piece).await;
        assert_eq!(
            r.tool_calls,
            vec![
                ToolCall::new("call_6f1a", "read_file", r#"{"path":"a.txt"}"#),
                ToolCall::new("call_9b2c", "read_file", r#"{"path":"b.txt"}"#),
            ]
        );
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages[1]["tool_calls"].as_array().unwrap().len(), 2);
        assert_eq!(messages[1]["reasoning_content"], "Both files are needed.");
        assert_eq!(messages[2]["tool_call_id"], "call_6f1a");
        assert_eq!(messages[3]["tool_call_id"], "call_9b2c");
    }
}

#[tokio::test]
async fn ollama_thinking_goes_back_with_the_tool_call() {
    for piece in PIECES {
        let (r, body) = replay(Kind::Ollama, "ollama_thinking_tool_call.ndjson", piece).await;
        let thinking = "The user wants the temperature in New York. I'll call get_temperature.";
        assert_eq!(r.reasoning, thinking);
        let msg = &body["messages"][1];
        assert_eq!(msg["thinking"], thinking);
        assert_eq!(
            msg["tool_calls"][0]["function"]["arguments"],
            json!({"city": "New York"})
        );
        assert_eq!(body["messages"][2]["tool_name"], "get_temperature");
    }
}

#[tokio::test]
async fn reasoning_goes_back_only_where_its_provider_documents_it() {
    let text = |field: &str| ReasoningPart::Text {
        field: field.into(),
        text: "why".into(),
    };
    let details = ReasoningPart::Details {
        details: vec![json!({"type": "reasoning.encrypted", "data": "x", "index": 0})],
    };
    let answered = Message::Assistant {
        content: "Hi".into(),
        tool_calls: Vec::new(),
        reasoning: vec![text("reasoning_content"), details.clone()],
    };
    // It survives the JSON the store keeps.
    let back: Message = serde_json::from_value(serde_json::to_value(&answered).unwrap()).unwrap();
    assert_eq!(back, answered);
    let req = ChatRequest {
        model: "m".into(),
        messages: vec![Message::user("a"), answered, Message::user("b")],
        ..ChatRequest::default()
    };
    for kind in [Kind::OpenAi, Kind::Anthropic, Kind::Ollama] {
        let server = MockServer::raw([kind.reply(kind.final_answer())]).unwrap();
        let (_, err) = collect(kind.client(&server).stream(&req)).await;
        assert_eq!(err, None);
        let msg = server.requests()[0].body["messages"][1].clone();
        match kind {
            // DeepSeek ignores `reasoning_content` of turns without tool calls (older
            // reasoners refuse it); OpenRouter's details always go back.
            Kind::OpenAi => {
                assert!(msg.get("reasoning_content").is_none(), "{msg}");
                assert_eq!(
                    msg["reasoning_details"],
                    json!([{"type": "reasoning.encrypted", "data": "x", "index": 0}])
                );
            }
            // Other providers' reasoning has no signature Anthropic would accept.
            Kind::Anthropic => assert_eq!(msg["content"], json!([{"type": "text", "text": "Hi"}])),
            Kind::Ollama => assert!(msg.get("thinking").is_none(), "{msg}"),
        }
    }
}

/// The first request's body of `client` for `req`.
async fn body_for(kind: Kind, req: &ChatRequest, name: Option<&str>) -> Value {
    let server = MockServer::raw([kind.reply(kind.final_answer())]).unwrap();
    let client: Box<dyn LlmProvider> = match name {
        Some(n) => Box::new(
            OpenAiCompatible::new(format!("{}/v1", server.url()), None)
                .unwrap()
                .with_name(n)
                .with_retry_policy(fast_retries(0)),
        ),
        None => kind.client(&server),
    };
    let (_, err) = collect(client.stream(req)).await;
    assert_eq!(err, None);
    server.requests()[0].body.clone()
}

#[tokio::test]
async fn reasoning_effort_maps_onto_each_api() {
    let req = |effort| ChatRequest {
        model: "m".into(),
        messages: vec![Message::user("hi")],
        temperature: Some(0.3),
        reasoning: effort,
        ..ChatRequest::default()
    };
    let high = req(Some(ReasoningEffort::High));
    // Anthropic: extended thinking with a budget below max_tokens, no changed temperature.
    let b = body_for(Kind::Anthropic, &high, None).await;
    assert_eq!(
        b["thinking"],
        json!({"type": "enabled", "budget_tokens": 24576})
    );
    assert!(b["max_tokens"].as_u64().unwrap() > 24576);
    assert!(b.get("temperature").is_none(), "{b}");
    let b = body_for(Kind::Anthropic, &req(Some(ReasoningEffort::Off)), None).await;
    assert!(
        b.get("thinking").is_none() && b["temperature"].is_number(),
        "{b}"
    );
    // OpenAI-style servers: `reasoning_effort`; OpenRouter: its `reasoning` object.
    let b = body_for(Kind::OpenAi, &req(Some(ReasoningEffort::Low)), None).await;
    assert_eq!(b["reasoning_effort"], "low");
    let b = body_for(
        Kind::OpenAi,
        &req(Some(ReasoningEffort::Off)),
        Some("openrouter"),
    )
    .await;
    assert_eq!(b["reasoning"], json!({"effort": "none"}));
    assert!(b.get("reasoning_effort").is_none(), "{b}");
    // Ollama: `think`.
    let b = body_for(Kind::Ollama, &req(Some(ReasoningEffort::Off)), None).await;
    assert_eq!(b["think"], false);
    // Unset: each provider's default, nothing sent.
    for kind in [Kind::OpenAi, Kind::Anthropic, Kind::Ollama] {
        let b = body_for(kind, &req(None), None).await;
        for key in ["thinking", "reasoning_effort", "reasoning", "think"] {
            assert!(b.get(key).is_none(), "{key} in {b}");
        }
    }
}
