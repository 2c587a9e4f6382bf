//! `OpenAiCompatible`: the Chat Completions streaming client (OpenAI, OpenRouter, LM Studio,
//! DeepSeek, vLLM, ...).
//!
//! Owns the request body and the decoding of `chat.completion.chunk` SSE frames. It never
//! executes tools or stores anything.

use std::fmt;

use futures_util::future::BoxFuture;

use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde_json::{Value, json};
use skald_core_api::ToolDef;

use crate::error::{LlmError, is_retriable_kind, is_retriable_status};
use crate::event::{StopReason, StreamEvent, Usage};
use crate::framing::{Frame, Framing};
use crate::provider::{EventStream, LlmProvider};
use crate::retry::RetryPolicy;
use crate::transport::{
    Decoder, HttpCall, error_stream, event_stream, header, http_client, join_url, json_f32,
};
use crate::types::{ChatRequest, Message, ReasoningEffort, ReasoningPart, ToolCall};

/// A client for any OpenAI-compatible `POST {base_url}/chat/completions` endpoint.
#[derive(Clone)]
pub struct OpenAiCompatible {
    name: String,
    base_url: String,
    api_key: Option<String>,
    headers: HeaderMap,
    retry: RetryPolicy,
    client: reqwest::Client,
    tool_images: bool,
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("name", &self.name)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl OpenAiCompatible {
    /// The default base URL, `https://api.openai.com/v1`.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";

    /// A client for `base_url` (which includes the version segment, e.g. `.../v1`), sending
    /// `Authorization: Bearer <api_key>` when a key is given.
    pub fn new(base_url: impl Into<String>, api_key: Option<String>) -> Result<Self, LlmError> {
        let base_url = base_url.into();
        Ok(OpenAiCompatible {
            name: "openai".into(),
            client: http_client(&base_url)?,
            base_url,
            api_key: api_key.filter(|k| !k.trim().is_empty()),
            headers: HeaderMap::new(),
            retry: RetryPolicy::default(),
            tool_images: crate::ModelApi::OpenAi.accepts_tool_images(),
        })
    }

    /// Whether tool results' images are sent (default yes); turn off for a text-only model
    /// whose server refuses `image_url` parts.
    pub fn with_tool_images(mut self, on: bool) -> Self {
        self.tool_images = on;
        self
    }

    /// Renames the provider in logs and errors (e.g. `openrouter`, `lmstudio`).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Adds a header sent with every request (e.g. OpenRouter's `HTTP-Referer`).
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

    /// The base URL this client talks to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn call(&self, req: &ChatRequest) -> Result<HttpCall, LlmError> {
        let mut headers = self.headers.clone();
        if let Some(key) = &self.api_key {
            let (_, v) = header("authorization", &format!("Bearer {key}"))?;
            headers.insert(AUTHORIZATION, v);
        }
        // OpenRouter takes effort in its own `reasoning` object.
        let openrouter = self.base_url.contains("openrouter.ai") || self.name == "openrouter";
        let body = serde_json::to_vec(&request_body(req, openrouter))
            .map_err(|e| LlmError::Config(format!("request body: {e}")))?;
        Ok(HttpCall {
            provider: self.name.clone(),
            client: self.client.clone(),
            url: join_url(&self.base_url, "chat/completions"),
            headers,
            body,
            policy: self.retry,
            framing: Framing::Sse,
        })
    }
}

impl LlmProvider for OpenAiCompatible {
    fn name(&self) -> &str {
        &self.name
    }

    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a> {
        match self.call(req) {
            Ok(call) => {
                let name = self.name.clone();
                event_stream(call, move || OpenAiDecoder::new(name.clone()))
            }
            Err(e) => error_stream(e),
        }
    }

    /// As a user message after the results (see `request_body`). A text-only model behind
    /// an OpenAI-compatible server refuses it; such a provider is set up without images.
    fn accepts_tool_images(&self) -> bool {
        self.tool_images
    }

    fn discover_context_window<'a>(&'a self, model: &'a str) -> BoxFuture<'a, Option<u32>> {
        Box::pin(async move {
            crate::model_context_window(
                crate::ModelApi::OpenAi,
                &self.base_url,
                self.api_key.as_deref(),
                model,
            )
            .await
            .inspect_err(|e| tracing::debug!(error = %e, model, "the model list gave no window"))
            .ok()
            .flatten()
        })
    }
}

/// The user message carrying the images of the tool results just sent, if any.
fn flush_tool_images(messages: &mut Vec<Value>, images: &mut Vec<Value>) {
    if !images.is_empty() {
        messages.push(json!({"role": "user", "content": std::mem::take(images)}));
    }
}

/// The Chat Completions request body for `req`.
fn request_body(req: &ChatRequest, openrouter: bool) -> Value {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if let Some(system) = &req.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    // Chat Completions takes only text in a `tool` message: the images of a run of tool
    // results follow it in one user message, after the last result (a user message
    // between results would leave calls unanswered).
    let mut images: Vec<Value> = Vec::new();
    for m in &req.messages {
        if !matches!(m, Message::Tool { .. }) {
            flush_tool_images(&mut messages, &mut images);
        }
        messages.push(match m {
            Message::System { content } => json!({"role": "system", "content": content}),
            Message::User { content } => json!({"role": "user", "content": content}),
            Message::Assistant {
                content,
                tool_calls,
                reasoning,
            } => {
                let mut msg = json!({"role": "assistant", "content": content});
                add_reasoning(&mut msg, reasoning, tool_calls);
                if !tool_calls.is_empty() {
                    if content.is_empty() {
                        msg["content"] = Value::Null;
                    }
                    msg["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments},
                            })
                        })
                        .collect();
                }
                msg
            }
            Message::Tool {
                tool_call_id,
                content,
                images: parts,
            } => {
                for (n, i) in parts.iter().enumerate() {
                    images.push(json!({
                        "type": "text",
                        "text": format!("Image {} of the result of tool call {tool_call_id}:", n + 1),
                    }));
                    images.push(json!({"type": "image_url", "image_url": {"url": i.data_url()}}));
                }
                json!({"role": "tool", "tool_call_id": tool_call_id, "content": content})
            }
        });
    }
    flush_tool_images(&mut messages, &mut images);
    let mut body = json!({
        "model": req.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !req.tools.is_empty() {
        body["tools"] = req.tools.iter().map(function_tool).collect();
    }
    if let Some(n) = req.max_tokens {
        body["max_tokens"] = json!(n);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json_f32(t);
    }
    match (req.reasoning, openrouter) {
        // OpenRouter's unified `reasoning` object ("none" turns it off).
        (Some(effort), true) => {
            let effort = match effort {
                ReasoningEffort::Off => "none",
                other => other.as_str(),
            };
            body["reasoning"] = json!({"effort": effort});
        }
        // OpenAI, DeepSeek, Groq, xAI: `reasoning_effort`; "off" is not a value they share,
        // so it leaves the model's default.
        (Some(ReasoningEffort::Off) | None, false) | (None, true) => {}
        (Some(effort), false) => body["reasoning_effort"] = json!(effort.as_str()),
    }
    body
}

/// Puts an assistant message's reasoning back the way it came:
/// - `reasoning_details` (OpenRouter) always, unmodified: OpenRouter asks for them back in
///   each request, and Gemini behind it refuses a follow-up without them;
/// - `reasoning_content` / `reasoning` text only with tool calls: DeepSeek requires it back
///   for turns that called tools and ignores it (older reasoners refuse it) otherwise; when
///   `reasoning_details` are present the `reasoning` text duplicates them and stays out.
///
/// Anthropic thinking blocks and Ollama `thinking` are other providers' shapes: never sent.
fn add_reasoning(msg: &mut Value, reasoning: &[ReasoningPart], tool_calls: &[ToolCall]) {
    let has_details = reasoning
        .iter()
        .any(|p| matches!(p, ReasoningPart::Details { .. }));
    for part in reasoning {
        match part {
            ReasoningPart::Details { details } => msg["reasoning_details"] = json!(details),
            ReasoningPart::Text { field, text }
                if !tool_calls.is_empty()
                    && (field == "reasoning_content" || (field == "reasoning" && !has_details)) =>
            {
                msg[field.as_str()] = json!(text);
            }
            ReasoningPart::Text { .. }
            | ReasoningPart::Thinking { .. }
            | ReasoningPart::RedactedThinking { .. } => {}
        }
    }
}

/// A tool definition in OpenAI's `{"type":"function","function":{..}}` shape (Ollama takes
/// the same).
pub(crate) fn function_tool(def: &ToolDef) -> Value {
    def.to_openai()
}

/// Decodes `chat.completion.chunk` frames.
struct OpenAiDecoder {
    provider: String,
    done: bool,
    finish_reason: Option<String>,
    saw_tool_calls: bool,
    /// Calls seen so far, for providers that omit `index` on tool-call deltas.
    calls_seen: usize,
    /// Reasoning text per field (`reasoning_content`, `reasoning`), in arrival order.
    reasoning: Vec<(&'static str, String)>,
    /// `reasoning_details` merged from the stream.
    details: Vec<Value>,
}

impl OpenAiDecoder {
    fn new(provider: String) -> Self {
        OpenAiDecoder {
            provider,
            done: false,
            finish_reason: None,
            saw_tool_calls: false,
            calls_seen: 0,
            reasoning: Vec::new(),
            details: Vec::new(),
        }
    }

    /// The stream is complete: the reasoning parts to keep, then `Done`.
    fn finish(&mut self) -> Vec<StreamEvent> {
        self.done = true;
        let mut events = Vec::new();
        if !self.details.is_empty() {
            events.push(StreamEvent::Reasoning(ReasoningPart::Details {
                details: std::mem::take(&mut self.details),
            }));
        }
        for (field, text) in std::mem::take(&mut self.reasoning) {
            events.push(StreamEvent::Reasoning(ReasoningPart::Text {
                field: field.to_owned(),
                text,
            }));
        }
        events.push(StreamEvent::Done {
            stop_reason: self.stop_reason(),
        });
        events
    }

    /// Reasoning text of one delta. A server that fills both fields with the same text
    /// (vLLM while it renames `reasoning_content` to `reasoning`) is shown it once.
    fn reasoning_delta(&mut self, delta: &Value, events: &mut Vec<StreamEvent>) {
        let mut shown: Option<&str> = None;
        for key in ["reasoning_content", "reasoning"] {
            let Some(r) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|r| !r.is_empty())
            else {
                continue;
            };
            match self.reasoning.iter_mut().find(|(f, _)| *f == key) {
                Some((_, text)) => text.push_str(r),
                None => self.reasoning.push((key, r.to_owned())),
            }
            if shown != Some(r) {
                events.push(StreamEvent::ReasoningDelta(r.to_owned()));
            }
            shown = Some(r);
        }
        for d in delta
            .get("reasoning_details")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            merge_detail(&mut self.details, d);
        }
    }

    fn stop_reason(&self) -> StopReason {
        match self.finish_reason.as_deref() {
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some("stop") | None if self.saw_tool_calls => StopReason::ToolUse,
            Some("stop") | None => StopReason::EndTurn,
            Some("length") => StopReason::MaxTokens,
            Some(other) => StopReason::Other(other.to_owned()),
        }
    }

    fn in_stream_error(&self, err: &Value) -> LlmError {
        let code = err.get("code");
        let status = code
            .and_then(Value::as_u64)
            .and_then(|c| u16::try_from(c).ok());
        let kind = err
            .get("type")
            .and_then(Value::as_str)
            .or_else(|| code.and_then(Value::as_str))
            .map(str::to_owned)
            .or_else(|| status.map(|s| s.to_string()))
            .unwrap_or_else(|| "error".into());
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| err.to_string());
        LlmError::Provider {
            provider: self.provider.clone(),
            retriable: status.is_some_and(is_retriable_status) || is_retriable_kind(&kind),
            kind,
            message,
        }
    }

    fn tool_call_delta(&mut self, tc: &Value) -> StreamEvent {
        let id = tc.get("id").and_then(Value::as_str).map(str::to_owned);
        let index = match tc.get("index").and_then(Value::as_u64) {
            Some(i) => usize::try_from(i).unwrap_or(usize::MAX),
            // No index: a delta with an id starts a new call, one without continues the last.
            None if id.is_some() || self.calls_seen == 0 => self.calls_seen,
            None => self.calls_seen - 1,
        };
        self.calls_seen = self.calls_seen.max(index.saturating_add(1));
        self.saw_tool_calls = true;
        let function = tc.get("function");
        StreamEvent::ToolCallDelta {
            index,
            id,
            name: function
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            arguments_fragment: function
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        }
    }
}

impl Decoder for OpenAiDecoder {
    fn frame(&mut self, frame: Frame) -> Result<Vec<StreamEvent>, LlmError> {
        if frame.data.trim() == "[DONE]" {
            return Ok(self.finish());
        }
        let chunk: Value = serde_json::from_str(&frame.data).map_err(|e| LlmError::Decode {
            provider: self.provider.clone(),
            message: format!("{e} in chunk {:?}", frame.data),
        })?;
        if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(self.in_stream_error(err));
        }
        let mut events = Vec::new();
        if let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            if let Some(delta) = choice.get("delta") {
                self.reasoning_delta(delta, &mut events);
                if let Some(t) = delta.get("content").and_then(Value::as_str)
                    && !t.is_empty()
                {
                    events.push(StreamEvent::TextDelta(t.to_owned()));
                }
                if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                    for tc in calls {
                        events.push(self.tool_call_delta(tc));
                    }
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_owned());
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            events.push(StreamEvent::Usage(usage_of(usage)));
        }
        Ok(events)
    }

    fn eof(&mut self) -> Result<Vec<StreamEvent>, LlmError> {
        // Some servers close right after the finish chunk without `[DONE]`; that answer is
        // complete. Without a finish_reason the stream was cut.
        if self.finish_reason.is_some() {
            return Ok(self.finish());
        }
        Err(LlmError::StreamBroken {
            provider: self.provider.clone(),
            message: "connection closed before [DONE]".into(),
        })
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

/// Usage of a chunk: OpenAI's `prompt_tokens_details.cached_tokens` and
/// `completion_tokens_details.reasoning_tokens`, DeepSeek's `prompt_cache_hit_tokens`,
/// OpenRouter's `cost` and `cache_write_tokens`.
fn usage_of(usage: &Value) -> Usage {
    let n = |p: &str| usage.pointer(p).and_then(Value::as_u64);
    Usage {
        input_tokens: n("/prompt_tokens").unwrap_or(0),
        output_tokens: n("/completion_tokens").unwrap_or(0),
        cache_read_tokens: n("/prompt_tokens_details/cached_tokens")
            .or_else(|| n("/prompt_cache_hit_tokens"))
            .unwrap_or(0),
        cache_write_tokens: n("/prompt_tokens_details/cache_write_tokens").unwrap_or(0),
        reasoning_tokens: n("/completion_tokens_details/reasoning_tokens").unwrap_or(0),
        cost_usd: usage.get("cost").and_then(Value::as_f64),
    }
}

/// Folds one streamed `reasoning_details` entry in. Entries of one detail arrive as several
/// pieces with the same `index` (and `type`): their strings (`text`, `summary`, `data`) are
/// concatenated, other fields (`signature`, `id`, `format`) taken from the piece that has
/// them. An entry with another index or type starts a new detail.
fn merge_detail(details: &mut Vec<Value>, piece: &Value) {
    let Some(obj) = piece.as_object() else {
        return;
    };
    let same = |last: &Value| {
        last.get("index") == obj.get("index")
            && last.get("type") == obj.get("type")
            && obj.get("index").is_some()
    };
    match details.last_mut() {
        Some(last) if same(last) => {
            for (k, v) in obj {
                match (last.get_mut(k), v) {
                    (Some(Value::String(old)), Value::String(more))
                        if matches!(k.as_str(), "text" | "summary" | "data") =>
                    {
                        old.push_str(more);
                    }
                    (_, Value::Null) => {}
                    _ => last[k.as_str()] = v.clone(),
                }
            }
        }
        Some(_) | None => details.push(piece.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &str) -> Frame {
        Frame {
            event: None,
            data: data.into(),
        }
    }

    #[test]
    fn missing_index_falls_back_to_id_order() {
        let mut d = OpenAiDecoder::new("t".into());
        let a = d.frame(frame(r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{"}}]}}]}"#)).unwrap_or_default();
        let b = d
            .frame(frame(
                r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}"#,
            ))
            .unwrap_or_default();
        let c = d.frame(frame(r#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"y","arguments":"{}"}}]}}]}"#)).unwrap_or_default();
        let idx = |evs: &[StreamEvent]| match evs.first() {
            Some(StreamEvent::ToolCallDelta { index, .. }) => *index,
            _ => usize::MAX,
        };
        assert_eq!((idx(&a), idx(&b), idx(&c)), (0, 0, 1));
    }

    #[test]
    fn in_stream_error_chunk_is_classed() {
        let mut d = OpenAiDecoder::new("openrouter".into());
        let err = d.frame(frame(
            r#"{"error":{"code":502,"message":"Upstream error"}}"#,
        ));
        assert!(matches!(&err, Err(e) if e.is_retriable()), "{err:?}");
    }

    #[test]
    fn tool_result_images_follow_the_run_of_results_as_one_user_message() {
        use crate::ImagePart;
        let img = |d: &str| ImagePart {
            mime: "image/png".into(),
            data_base64: d.into(),
        };
        let calls = vec![ToolCall::new("a", "t", "{}"), ToolCall::new("b", "t", "{}")];
        let req = ChatRequest {
            messages: vec![
                Message::user("draw"),
                Message::assistant_calls("", calls),
                Message::tool_result_with_images("a", "made one", vec![img("AAAA")]),
                Message::tool_result("b", "plain"),
                Message::user("thanks"),
            ],
            ..ChatRequest::default()
        };
        let body = request_body(&req, false);
        let roles: Vec<&str> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "tool", "user", "user"]);
        assert_eq!(body["messages"][2]["content"], "made one");
        let parts = &body["messages"][4]["content"];
        assert_eq!(parts[1]["type"], "image_url");
        assert_eq!(parts[1]["image_url"]["url"], "data:image/png;base64,AAAA");
        assert!(parts[0]["text"].as_str().unwrap().contains("tool call a"));
        assert_eq!(body["messages"][5]["content"], "thanks");
    }
}
