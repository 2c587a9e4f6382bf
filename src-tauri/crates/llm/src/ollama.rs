//! `Ollama`: the native `/api/chat` streaming client (NDJSON), and `detect_ollama`.
//!
//! Ollama sends tool calls whole (no fragments, no ids): each becomes one `ToolCallDelta` with
//! a synthetic id unique to this process. Eval counts become usage. It never executes tools
//! or stores anything.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::event::{StopReason, StreamEvent, Usage};
use crate::framing::{Frame, Framing};
use crate::openai::function_tool;
use crate::provider::{EventStream, LlmProvider};
use crate::retry::RetryPolicy;
use crate::transport::{
    Decoder, HttpCall, error_stream, event_stream, http_client, join_url, json_f32,
};
use crate::types::{ChatRequest, Message, ReasoningEffort, ReasoningPart, arguments_object};

/// A client for a local (or remote) Ollama server.
#[derive(Clone)]
pub struct Ollama {
    base_url: String,
    retry: RetryPolicy,
    client: reqwest::Client,
}

impl fmt::Debug for Ollama {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ollama")
            .field("base_url", &self.base_url)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl Ollama {
    /// Where Ollama listens by default.
    pub const DEFAULT_BASE_URL: &'static str = "http://127.0.0.1:11434";

    /// A client for `base_url` (e.g. `http://127.0.0.1:11434`).
    pub fn new(base_url: impl Into<String>) -> Result<Self, LlmError> {
        let base_url = base_url.into();
        Ok(Ollama {
            client: http_client(&base_url)?,
            base_url,
            retry: RetryPolicy::default(),
        })
    }

    /// Replaces the retry policy.
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    fn call(&self, req: &ChatRequest) -> Result<HttpCall, LlmError> {
        let body = serde_json::to_vec(&request_body(req))
            .map_err(|e| LlmError::Config(format!("request body: {e}")))?;
        Ok(HttpCall {
            provider: "ollama".into(),
            client: self.client.clone(),
            url: join_url(&self.base_url, "api/chat"),
            headers: HeaderMap::new(),
            body,
            policy: self.retry,
            framing: Framing::Ndjson,
        })
    }
}

impl LlmProvider for Ollama {
    fn name(&self) -> &str {
        "ollama"
    }

    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a> {
        match self.call(req) {
            Ok(call) => event_stream(call, OllamaDecoder::new),
            Err(e) => error_stream(e),
        }
    }

    fn discover_context_window<'a>(
        &'a self,
        model: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Option<u32>> {
        Box::pin(async move {
            crate::model_context_window(crate::ModelApi::Ollama, &self.base_url, None, model)
                .await
                .inspect_err(|e| tracing::debug!(error = %e, model, "/api/show gave no window"))
                .ok()
                .flatten()
        })
    }
}

/// True when an Ollama server answers `GET {base_url}/api/tags` within a second.
pub async fn detect_ollama(base_url: &str) -> bool {
    ollama_models(base_url).await.is_some()
}

/// The models an Ollama server at `base_url` has pulled (`GET /api/tags`, names
/// in its order), or `None` when nothing answers there within a second. A
/// server that answers with a body it cannot read counts as having none.
pub async fn ollama_models(base_url: &str) -> Option<Vec<String>> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(1))
        .connect_timeout(Duration::from_millis(500))
        .build()
        .ok()?;
    let response = client
        .get(join_url(base_url, "api/tags"))
        .send()
        .await
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    let bytes = response.bytes().await.unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let names = body
        .get("models")
        .and_then(Value::as_array)
        .map(|models| {
            models
                .iter()
                .filter_map(|m| m.get("name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Some(names)
}

/// The `/api/chat` request body for `req`. Tool results carry `tool_name`, looked up from
/// the assistant call they answer.
fn request_body(req: &ChatRequest) -> Value {
    let names: HashMap<&str, &str> = req
        .messages
        .iter()
        .flat_map(|m| match m {
            Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
            Message::System { .. } | Message::User { .. } | Message::Tool { .. } => &[],
        })
        .map(|c| (c.id.as_str(), c.name.as_str()))
        .collect();
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if let Some(system) = &req.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for m in &req.messages {
        messages.push(match m {
            Message::System { content } => json!({"role": "system", "content": content}),
            Message::User { content } => json!({"role": "user", "content": content}),
            Message::Assistant {
                content,
                tool_calls,
                reasoning,
            } => {
                let mut msg = json!({"role": "assistant", "content": content});
                if !tool_calls.is_empty() {
                    // Ollama's tool-calling examples append the whole message, `thinking`
                    // included, so the model keeps its reasoning across tool rounds.
                    let thinking: String = reasoning
                        .iter()
                        .filter_map(|p| match p {
                            ReasoningPart::Text { field, text } if field == "thinking" => {
                                Some(text.as_str())
                            }
                            _ => None,
                        })
                        .collect();
                    if !thinking.is_empty() {
                        msg["thinking"] = json!(thinking);
                    }
                    msg["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| {
                            json!({"function": {
                                "name": c.name,
                                "arguments": arguments_object(&c.arguments),
                            }})
                        })
                        .collect();
                }
                msg
            }
            Message::Tool {
                tool_call_id,
                content,
                ..
            } => {
                let mut msg = json!({"role": "tool", "content": content});
                if let Some(name) = names.get(tool_call_id.as_str()) {
                    msg["tool_name"] = json!(name);
                }
                msg
            }
        });
    }
    let mut body = json!({"model": req.model, "messages": messages, "stream": true});
    if let Some(effort) = req.reasoning {
        body["think"] = json!(effort != ReasoningEffort::Off);
    }
    if !req.tools.is_empty() {
        body["tools"] = req.tools.iter().map(function_tool).collect();
    }
    let mut options = serde_json::Map::new();
    if let Some(t) = req.temperature {
        options.insert("temperature".into(), json_f32(t));
    }
    if let Some(n) = req.max_tokens {
        options.insert("num_predict".into(), json!(n));
    }
    if !options.is_empty() {
        body["options"] = Value::Object(options);
    }
    body
}

/// Makes synthetic tool-call ids unique across responses of this process.
static RESPONSES: AtomicU64 = AtomicU64::new(0);

/// Decodes `/api/chat` NDJSON lines.
struct OllamaDecoder {
    done: bool,
    id_prefix: String,
    tools_seen: usize,
    thinking: String,
}

impl OllamaDecoder {
    fn new() -> Self {
        let n = RESPONSES.fetch_add(1, Ordering::Relaxed);
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        OllamaDecoder {
            done: false,
            id_prefix: format!("ollama_{t:x}_{n}"),
            tools_seen: 0,
            thinking: String::new(),
        }
    }
}

impl Decoder for OllamaDecoder {
    fn frame(&mut self, frame: Frame) -> Result<Vec<StreamEvent>, LlmError> {
        let v: Value = serde_json::from_str(&frame.data).map_err(|e| LlmError::Decode {
            provider: "ollama".into(),
            message: format!("{e} in line {:?}", frame.data),
        })?;
        if let Some(err) = v.get("error") {
            return Err(LlmError::Provider {
                provider: "ollama".into(),
                kind: "error".into(),
                message: err.as_str().map_or_else(|| err.to_string(), str::to_owned),
                retriable: false,
            });
        }
        let mut events = Vec::new();
        if let Some(msg) = v.get("message") {
            let s = |k: &str| {
                msg.get(k)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
            };
            if let Some(t) = s("thinking") {
                self.thinking.push_str(&t);
                events.push(StreamEvent::ReasoningDelta(t));
            }
            events.extend(s("content").map(StreamEvent::TextDelta));
            for call in msg
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let index = self.tools_seen;
                self.tools_seen += 1;
                let function = call.get("function").unwrap_or(&Value::Null);
                let arguments = match function.get("arguments") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => "{}".into(),
                    Some(other) => other.to_string(),
                };
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map_or_else(|| format!("{}_{index}", self.id_prefix), str::to_owned);
                events.push(StreamEvent::ToolCallDelta {
                    index,
                    id: Some(id),
                    name: function
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    arguments_fragment: arguments,
                });
            }
        }
        if v.get("done").and_then(Value::as_bool) == Some(true) {
            self.done = true;
            let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
            if !self.thinking.is_empty() {
                events.push(StreamEvent::Reasoning(ReasoningPart::Text {
                    field: "thinking".into(),
                    text: std::mem::take(&mut self.thinking),
                }));
            }
            events.push(StreamEvent::Usage(Usage {
                input_tokens: n("prompt_eval_count"),
                output_tokens: n("eval_count"),
                ..Usage::default()
            }));
            let stop_reason = match v.get("done_reason").and_then(Value::as_str) {
                Some("length") => StopReason::MaxTokens,
                _ if self.tools_seen > 0 => StopReason::ToolUse,
                Some("stop") | None => StopReason::EndTurn,
                Some(other) => StopReason::Other(other.to_owned()),
            };
            events.push(StreamEvent::Done { stop_reason });
        }
        Ok(events)
    }

    fn eof(&mut self) -> Result<Vec<StreamEvent>, LlmError> {
        Err(LlmError::StreamBroken {
            provider: "ollama".into(),
            message: "connection closed before \"done\": true".into(),
        })
    }

    fn is_done(&self) -> bool {
        self.done
    }
}
