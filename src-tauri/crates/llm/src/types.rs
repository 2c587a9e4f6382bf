//! The provider-neutral request and conversation types: `ChatRequest`, `Message`, `ToolCall`.
//!
//! These are what the session driver assembles; each client converts them to its own wire
//! format. Nothing here knows about HTTP or any particular provider.

use serde::{Deserialize, Serialize};
use skald_core_api::ToolDef;

/// One request to a chat model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ChatRequest {
    /// Model name as the provider knows it (`gpt-4.1`, `claude-sonnet-4-5`, `qwen3`).
    pub model: String,
    /// The system prompt, sent the way each provider expects (a leading system message, or
    /// Anthropic's top-level `system`).
    pub system: Option<String>,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools offered; each client maps them to its wire shape (OpenAI `function`,
    /// Anthropic `tool` with `input_schema`, Ollama's OpenAI-like `function`). Serialised
    /// (recordings, snapshots) in OpenAI's function shape, what most providers are sent.
    #[serde(with = "openai_tools")]
    pub tools: Vec<ToolDef>,
    /// Upper bound on generated tokens.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// How much the model should reason, where its API lets a client say; `None` leaves it
    /// to the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningEffort>,
}

/// `ChatRequest.tools` as OpenAI-shaped JSON: `{"type":"function","function":{..}}` out,
/// that or a bare `{name, description, parameters}` in.
mod openai_tools {
    use serde::{Deserialize, Deserializer, Serializer};
    use skald_core_api::ToolDef;

    pub fn serialize<S: Serializer>(tools: &[ToolDef], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(tools.iter().map(ToolDef::to_openai))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ToolDef>, D::Error> {
        let values = Vec::<serde_json::Value>::deserialize(d)?;
        values
            .iter()
            .map(|v| {
                ToolDef::from_openai(v)
                    .ok_or_else(|| serde::de::Error::custom("a tool definition without a name"))
            })
            .collect()
    }
}

/// A model's reasoning setting, mapped by each client onto what its API offers: Anthropic's
/// extended-thinking budget, OpenAI-style `reasoning_effort` (OpenRouter's `reasoning`
/// object), Ollama's `think`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    /// Reasoning off, where the API can turn it off.
    Off,
    /// A little.
    Low,
    /// The usual amount.
    Medium,
    /// As much as the API allows by effort.
    High,
}

impl ReasoningEffort {
    /// The setting's text (`off`, `low`, `medium`, `high`), as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Off => "off",
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }

    /// Parses the stored text; anything else is `None` (the provider's default).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "off" => Some(ReasoningEffort::Off),
            "low" => Some(ReasoningEffort::Low),
            "medium" => Some(ReasoningEffort::Medium),
            "high" => Some(ReasoningEffort::High),
            _ => None,
        }
    }

    /// Anthropic's `thinking.budget_tokens` for this effort (`None`: thinking off). The
    /// API's minimum is 1024.
    pub fn anthropic_budget(self) -> Option<u32> {
        match self {
            ReasoningEffort::Off => None,
            ReasoningEffort::Low => Some(2048),
            ReasoningEffort::Medium => Some(8192),
            ReasoningEffort::High => Some(24576),
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// An extra system instruction inside the conversation.
    System {
        /// The instruction text.
        content: String,
    },
    /// What the person said.
    User {
        /// The text.
        content: String,
    },
    /// What the model answered: text and/or tool calls, and the reasoning that came with them.
    Assistant {
        /// The visible text (may be empty when the model only called tools).
        content: String,
        /// The tool calls, in the order the model made them.
        tool_calls: Vec<ToolCall>,
        /// The model's reasoning in its provider's own shape, so each client can send back
        /// what its provider requires (and nothing it forbids).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reasoning: Vec<ReasoningPart>,
    },
    /// The result of one tool call, fed back to the model.
    Tool {
        /// The id of the [`ToolCall`] this answers.
        tool_call_id: String,
        /// The result text (or `Error: ...`).
        content: String,
        /// Images the result holds, sent only to a provider that
        /// [accepts them](crate::LlmProvider::accepts_tool_images).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImagePart>,
    },
}

/// An image of a tool result, base64-encoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImagePart {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub mime: String,
    /// The bytes, base64 (standard alphabet, padded).
    pub data_base64: String,
}

impl ImagePart {
    /// The image as a `data:` URL (OpenAI's `image_url`).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime, self.data_base64)
    }
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User {
            content: content.into(),
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant {
            content: content.into(),
            tool_calls: Vec::new(),
            reasoning: Vec::new(),
        }
    }

    /// An assistant message with text and tool calls, without reasoning.
    pub fn assistant_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message::Assistant {
            content: content.into(),
            tool_calls,
            reasoning: Vec::new(),
        }
    }

    /// A tool result.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Message::Tool {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            images: Vec::new(),
        }
    }

    /// A tool result with images.
    pub fn tool_result_with_images(
        tool_call_id: impl Into<String>,
        content: impl Into<String>,
        images: Vec<ImagePart>,
    ) -> Self {
        Message::Tool {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            images,
        }
    }
}

/// One piece of a model's reasoning, kept with its assistant message in the shape its
/// provider sent it. Anthropic requires thinking blocks back unchanged during tool use;
/// DeepSeek and others want `reasoning_content` back with tool calls; OpenRouter wants
/// `reasoning_details` back unmodified (Gemini refuses a follow-up without them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReasoningPart {
    /// An Anthropic `thinking` block and its `signature`.
    Thinking {
        /// The thinking text (a summary on Claude 4 models).
        thinking: String,
        /// The opaque signature the API verifies when the block comes back.
        signature: String,
    },
    /// An Anthropic `redacted_thinking` block: encrypted, never shown.
    RedactedThinking {
        /// The opaque payload.
        data: String,
    },
    /// Reasoning text that arrived in a message field of an OpenAI-compatible or Ollama
    /// response: `reasoning_content` (DeepSeek, vLLM, llama.cpp, z.ai), `reasoning`
    /// (OpenRouter, Groq, Ollama's `/v1`), `thinking` (Ollama). An empty `field` marks text
    /// with no known origin: shown, never sent.
    Text {
        /// The field it came in, and goes back in.
        field: String,
        /// The text.
        text: String,
    },
    /// OpenRouter's `reasoning_details`, merged from the stream, sent back unmodified.
    Details {
        /// The detail objects (`reasoning.text`, `reasoning.summary`, `reasoning.encrypted`).
        details: Vec<serde_json::Value>,
    },
}

impl ReasoningPart {
    /// The readable text of this part (empty for encrypted reasoning).
    pub fn display_text(&self) -> String {
        match self {
            ReasoningPart::Thinking { thinking, .. } => thinking.clone(),
            ReasoningPart::Text { text, .. } => text.clone(),
            ReasoningPart::RedactedThinking { .. } => String::new(),
            ReasoningPart::Details { details } => details
                .iter()
                .filter_map(|d| {
                    d.get("text")
                        .or_else(|| d.get("summary"))
                        .and_then(serde_json::Value::as_str)
                })
                .collect(),
        }
    }
}

/// The readable reasoning of `parts`, one paragraph per part. When OpenRouter sends both
/// `reasoning` and `reasoning_details`, they say the same thing: the text field is used.
pub fn reasoning_text(parts: &[ReasoningPart]) -> String {
    let has_text = parts.iter().any(|p| {
        matches!(
            p,
            ReasoningPart::Text { .. } | ReasoningPart::Thinking { .. }
        )
    });
    parts
        .iter()
        .filter(|p| !(has_text && matches!(p, ReasoningPart::Details { .. })))
        .map(ReasoningPart::display_text)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One tool call made by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call (synthetic for providers that have none, like Ollama).
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments as a JSON string, exactly as the model produced them (may be malformed;
    /// the session driver decides what to tell the model).
    pub arguments: String,
}

impl ToolCall {
    /// A tool call.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// Parses a tool call's argument string into a JSON object for providers that want objects
/// (Anthropic's `input`, Ollama's `arguments`). Empty or malformed arguments become `{}`.
pub(crate) fn arguments_object(arguments: &str) -> serde_json::Value {
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) | Err(_) => serde_json::json!({}),
    }
}
