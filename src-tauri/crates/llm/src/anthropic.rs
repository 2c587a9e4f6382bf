//! `Anthropic`: the Messages API streaming client (`POST {base}/v1/messages`).
//!
//! Owns the conversion to Anthropic's wire format (top-level `system`, content blocks,
//! `tool_use` / `tool_result`, `input_schema`) and the decoding of its SSE events
//! (`message_start`, `content_block_*`, `message_delta`, `message_stop`, `error`).
//! It never executes tools or stores anything.

use std::collections::HashMap;
use std::fmt;

use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use crate::error::{LlmError, is_retriable_kind};
use crate::event::{StopReason, StreamEvent, Usage};
use crate::framing::{Frame, Framing};
use crate::provider::{EventStream, LlmProvider};
use crate::retry::RetryPolicy;
use crate::transport::{
    Decoder, HttpCall, error_stream, event_stream, header, http_client, join_url, json_f32,
};
use crate::types::{
    ChatRequest, ImagePart, Message, ReasoningEffort, ReasoningPart, arguments_object,
};

/// A client for Anthropic's Messages API.
#[derive(Clone)]
pub struct Anthropic {
    base_url: String,
    api_key: String,
    version: String,
    default_max_tokens: u32,
    headers: HeaderMap,
    retry: RetryPolicy,
    client: reqwest::Client,
}

impl fmt::Debug for Anthropic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Anthropic")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("version", &self.version)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl Anthropic {
    /// The default base URL, `https://api.anthropic.com` (the client appends `/v1/messages`).
    pub const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com";
    /// The `anthropic-version` header sent unless changed.
    pub const DEFAULT_VERSION: &'static str = "2023-06-01";
    /// `max_tokens` is mandatory for Anthropic; this is used when the request has none.
    pub const DEFAULT_MAX_TOKENS: u32 = 8192;

    /// A client for `base_url` authenticating with `x-api-key: <api_key>`.
    pub fn new(base_url: impl Into<String>, api_key: impl Into<String>) -> Result<Self, LlmError> {
        let base_url = base_url.into();
        Ok(Anthropic {
            client: http_client(&base_url)?,
            base_url,
            api_key: api_key.into(),
            version: Self::DEFAULT_VERSION.into(),
            default_max_tokens: Self::DEFAULT_MAX_TOKENS,
            headers: HeaderMap::new(),
            retry: RetryPolicy::default(),
        })
    }

    /// Changes the `anthropic-version` header.
    pub fn with_version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Changes the `max_tokens` used when a request has none.
    pub fn with_default_max_tokens(mut self, max_tokens: u32) -> Self {
        self.default_max_tokens = max_tokens;
        self
    }

    /// Adds a header sent with every request (e.g. `anthropic-beta`).
    pub fn with_header(mut self, name: &str, value: &str) -> Result<Self, LlmError> {
        let (n, v) = header(name, value)?;
        self.headers.insert(n, v);
        Ok(self)
    }

    /// Replaces the retry policy.
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    fn call(&self, req: &ChatRequest) -> Result<HttpCall, LlmError> {
        let mut headers = self.headers.clone();
        for (name, value) in [
            ("x-api-key", self.api_key.as_str()),
            ("anthropic-version", self.version.as_str()),
        ] {
            let (n, v) = header(name, value)?;
            headers.insert(n, v);
        }
        let body = serde_json::to_vec(&request_body(req, self.default_max_tokens))
            .map_err(|e| LlmError::Config(format!("request body: {e}")))?;
        Ok(HttpCall {
            provider: "anthropic".into(),
            client: self.client.clone(),
            url: join_url(&self.base_url, "v1/messages"),
            headers,
            body,
            policy: self.retry,
            framing: Framing::Sse,
        })
    }
}

impl LlmProvider for Anthropic {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a> {
        match self.call(req) {
            Ok(call) => event_stream(call, AnthropicDecoder::default),
            Err(e) => error_stream(e),
        }
    }

    fn accepts_tool_images(&self) -> bool {
        crate::ModelApi::Anthropic.accepts_tool_images()
    }
}

/// A `tool_result` block: the text, and the images as `image` blocks inside it (the
/// Messages API takes images in tool results).
fn tool_result_block(id: &str, content: &str, images: &[ImagePart]) -> Value {
    if images.is_empty() {
        return json!({"type": "tool_result", "tool_use_id": id, "content": content});
    }
    let mut parts = vec![json!({"type": "text", "text": content})];
    for i in images {
        parts.push(json!({
            "type": "image",
            "source": {"type": "base64", "media_type": i.mime, "data": i.data_base64},
        }));
    }
    json!({"type": "tool_result", "tool_use_id": id, "content": parts})
}

/// The Messages request body for `req`. System messages inside the conversation join the
/// top-level `system`; consecutive messages of one role are merged into one message, with
/// `tool_result` blocks first as the API requires.
fn request_body(req: &ChatRequest, default_max_tokens: u32) -> Value {
    let mut system: Vec<&str> = req.system.iter().map(String::as_str).collect();
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in &req.messages {
        let (role, blocks) = match m {
            Message::System { content } => {
                system.push(content);
                continue;
            }
            Message::User { content } => ("user", vec![json!({"type": "text", "text": content})]),
            Message::Tool {
                tool_call_id,
                content,
                images,
            } => (
                "user",
                vec![tool_result_block(tool_call_id, content, images)],
            ),
            Message::Assistant {
                content,
                tool_calls,
                reasoning,
            } => {
                // Thinking blocks go back unchanged and first, as Anthropic requires during
                // tool use (it drops those of earlier turns itself). Other providers'
                // reasoning has no signature Anthropic would accept: left out.
                let mut blocks: Vec<Value> = reasoning
                    .iter()
                    .filter_map(|p| match p {
                        ReasoningPart::Thinking {
                            thinking,
                            signature,
                        } => Some(json!({
                            "type": "thinking",
                            "thinking": thinking,
                            "signature": signature,
                        })),
                        ReasoningPart::RedactedThinking { data } => {
                            Some(json!({"type": "redacted_thinking", "data": data}))
                        }
                        ReasoningPart::Text { .. } | ReasoningPart::Details { .. } => None,
                    })
                    .collect();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                for c in tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": arguments_object(&c.arguments),
                    }));
                }
                if blocks.is_empty() {
                    continue;
                }
                ("assistant", blocks)
            }
        };
        match messages.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            Some(_) | None => messages.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, mut blocks)| {
            if role == "user" {
                // Stable: tool results first, in order, then the rest in order.
                blocks.sort_by_key(|b| b.get("type") != Some(&json!("tool_result")));
            }
            json!({"role": role, "content": blocks})
        })
        .collect();

    let budget = req.reasoning.and_then(ReasoningEffort::anthropic_budget);
    let mut max_tokens = req.max_tokens.unwrap_or(default_max_tokens);
    if let Some(budget) = budget {
        // `max_tokens` must exceed the thinking budget, with room left for the answer.
        max_tokens = max_tokens.max(budget.saturating_add(default_max_tokens.min(4096)));
    }
    let mut body = json!({
        "model": req.model,
        "max_tokens": max_tokens,
        "stream": true,
        "messages": messages,
    });
    if let Some(budget) = budget {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    }
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    let tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            let mut tool = json!({"name": t.name, "input_schema": t.parameters});
            if !t.description.is_empty() {
                tool["description"] = json!(t.description);
            }
            tool
        })
        .collect();
    if !tools.is_empty() {
        body["tools"] = json!(tools);
    }
    // Extended thinking does not take a changed temperature.
    if let Some(t) = req.temperature
        && budget.is_none()
    {
        body["temperature"] = json_f32(t);
    }
    body
}

/// What a content block index holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Block {
    Text,
    /// A thinking block: its text and signature so far.
    Thinking(String, String),
    /// A `tool_use` block and its tool-call index; `bool` = some input fragment was sent.
    Tool(usize, bool),
    /// Server tool use, anything new: not surfaced.
    Other,
}

/// Decodes Messages SSE events.
#[derive(Debug, Default)]
struct AnthropicDecoder {
    done: bool,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    stop_reason: Option<String>,
    blocks: HashMap<u64, Block>,
    tools_seen: usize,
}

fn decode_error(message: String) -> LlmError {
    LlmError::Decode {
        provider: "anthropic".into(),
        message,
    }
}

fn input_tokens(usage: &Value) -> Option<u64> {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64);
    let base = n("input_tokens")?;
    Some(
        base + n("cache_creation_input_tokens").unwrap_or(0)
            + n("cache_read_input_tokens").unwrap_or(0),
    )
}

impl AnthropicDecoder {
    fn read_usage(&mut self, usage: &Value) {
        let n = |k: &str| usage.get(k).and_then(Value::as_u64);
        if let Some(total) = input_tokens(usage) {
            self.input_tokens = total;
        }
        if let Some(read) = n("cache_read_input_tokens") {
            self.cache_read_tokens = read;
        }
        if let Some(write) = n("cache_creation_input_tokens") {
            self.cache_write_tokens = write;
        }
        if let Some(out) = n("output_tokens") {
            self.output_tokens = out;
        }
    }

    fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            cache_read_tokens: self.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens,
            ..Usage::default()
        }
    }

    fn stop_reason(&self) -> StopReason {
        match self.stop_reason.as_deref() {
            Some("end_turn" | "stop_sequence") => StopReason::EndTurn,
            None if self.tools_seen > 0 => StopReason::ToolUse,
            None => StopReason::EndTurn,
            Some("tool_use") => StopReason::ToolUse,
            Some("max_tokens") => StopReason::MaxTokens,
            Some(other) => StopReason::Other(other.to_owned()),
        }
    }

    fn block_start(&mut self, index: u64, block: &Value) -> Vec<StreamEvent> {
        let text = |k: &str| {
            block
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let (kind, events) = match block.get("type").and_then(Value::as_str) {
            Some("text") => (Block::Text, text("text").map(StreamEvent::TextDelta)),
            Some("thinking") => {
                let thinking = text("thinking");
                (
                    Block::Thinking(
                        thinking.clone().unwrap_or_default(),
                        text("signature").unwrap_or_default(),
                    ),
                    thinking.map(StreamEvent::ReasoningDelta),
                )
            }
            Some("redacted_thinking") => (
                Block::Other,
                Some(StreamEvent::Reasoning(ReasoningPart::RedactedThinking {
                    data: text("data").unwrap_or_default(),
                })),
            ),
            Some("tool_use") => {
                let i = self.tools_seen;
                self.tools_seen += 1;
                // Streamed input arrives through input_json_delta; a non-empty `input` here
                // (unusual) is sent as the first fragment.
                let input = block
                    .get("input")
                    .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                    .map(Value::to_string);
                (
                    Block::Tool(i, input.is_some()),
                    Some(StreamEvent::ToolCallDelta {
                        index: i,
                        id: text("id"),
                        name: text("name"),
                        arguments_fragment: input.unwrap_or_default(),
                    }),
                )
            }
            Some(_) | None => (Block::Other, None),
        };
        self.blocks.insert(index, kind);
        events.into_iter().collect()
    }

    fn block_delta(&mut self, index: u64, delta: &Value) -> Vec<StreamEvent> {
        let s = |k: &str| delta.get(k).and_then(Value::as_str).unwrap_or_default();
        let Some(block) = self.blocks.get_mut(&index) else {
            return Vec::new();
        };
        let event = match (delta.get("type").and_then(Value::as_str), block) {
            (Some("text_delta"), Block::Text) => StreamEvent::TextDelta(s("text").to_owned()),
            (Some("thinking_delta"), Block::Thinking(thinking, _)) => {
                thinking.push_str(s("thinking"));
                StreamEvent::ReasoningDelta(s("thinking").to_owned())
            }
            (Some("signature_delta"), Block::Thinking(_, signature)) => {
                signature.push_str(s("signature"));
                return Vec::new();
            }
            (Some("input_json_delta"), Block::Tool(i, sent)) => {
                let fragment = s("partial_json");
                let i = *i;
                *sent = *sent || !fragment.is_empty();
                StreamEvent::ToolCallDelta {
                    index: i,
                    id: None,
                    name: None,
                    arguments_fragment: fragment.to_owned(),
                }
            }
            // citations_delta, deltas of unsurfaced blocks.
            _ => return Vec::new(),
        };
        match &event {
            StreamEvent::TextDelta(t) | StreamEvent::ReasoningDelta(t) if t.is_empty() => {
                Vec::new()
            }
            _ => vec![event],
        }
    }

    fn block_stop(&mut self, index: u64) -> Vec<StreamEvent> {
        match self.blocks.get(&index).cloned() {
            // A tool without parameters streams no input at all: its arguments are `{}`.
            Some(Block::Tool(i, false)) => {
                self.blocks.insert(index, Block::Tool(i, true));
                vec![StreamEvent::ToolCallDelta {
                    index: i,
                    id: None,
                    name: None,
                    arguments_fragment: "{}".into(),
                }]
            }
            Some(Block::Thinking(thinking, signature)) => {
                self.blocks.insert(index, Block::Other);
                vec![StreamEvent::Reasoning(ReasoningPart::Thinking {
                    thinking,
                    signature,
                })]
            }
            Some(Block::Tool(_, true) | Block::Text | Block::Other) | None => Vec::new(),
        }
    }
}

impl Decoder for AnthropicDecoder {
    fn frame(&mut self, frame: Frame) -> Result<Vec<StreamEvent>, LlmError> {
        let v: Value = serde_json::from_str(&frame.data)
            .map_err(|e| decode_error(format!("{e} in event {:?}", frame.data)))?;
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(frame.event.as_deref())
            .unwrap_or_default();
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let events = match kind {
            "message_start" => {
                if let Some(usage) = v.pointer("/message/usage") {
                    self.read_usage(usage);
                }
                Vec::new()
            }
            "content_block_start" => {
                let block = v.get("content_block").unwrap_or(&Value::Null);
                self.block_start(index, block)
            }
            "content_block_delta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                self.block_delta(index, delta)
            }
            "content_block_stop" => self.block_stop(index),
            "message_delta" => {
                if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_owned());
                }
                match v.get("usage") {
                    Some(usage) => {
                        self.read_usage(usage);
                        vec![StreamEvent::Usage(self.usage())]
                    }
                    None => Vec::new(),
                }
            }
            "message_stop" => {
                self.done = true;
                vec![StreamEvent::Done {
                    stop_reason: self.stop_reason(),
                }]
            }
            "error" => {
                let kind = v
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_owned();
                return Err(LlmError::Provider {
                    provider: "anthropic".into(),
                    retriable: is_retriable_kind(&kind),
                    message: v
                        .pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    kind,
                });
            }
            // ping and event types added later.
            _ => Vec::new(),
        };
        Ok(events)
    }

    fn eof(&mut self) -> Result<Vec<StreamEvent>, LlmError> {
        Err(LlmError::StreamBroken {
            provider: "anthropic".into(),
            message: "connection closed before message_stop".into(),
        })
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolCall;

    #[test]
    fn tool_result_images_are_image_blocks_inside_the_tool_result() {
        let req = ChatRequest {
            messages: vec![
                Message::user("draw"),
                Message::assistant_calls("", vec![ToolCall::new("a", "t", "{}")]),
                Message::tool_result_with_images(
                    "a",
                    "made one",
                    vec![ImagePart {
                        mime: "image/png".into(),
                        data_base64: "AAAA".into(),
                    }],
                ),
            ],
            ..ChatRequest::default()
        };
        let body = request_body(&req, 1024);
        let result = &body["messages"][2]["content"][0];
        assert_eq!(result["type"], "tool_result");
        assert_eq!(
            result["content"][0],
            json!({"type": "text", "text": "made one"})
        );
        assert_eq!(
            result["content"][1],
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}})
        );
        let plain = request_body(
            &ChatRequest {
                messages: vec![Message::tool_result("a", "x")],
                ..ChatRequest::default()
            },
            1024,
        );
        assert_eq!(plain["messages"][0]["content"][0]["content"], "x");
    }
}
