//! `StreamEvent`: the provider-neutral deltas every client yields, plus `Usage` and `StopReason`.

use serde::{Deserialize, Serialize};

/// One increment of a streamed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// Visible answer text.
    TextDelta(String),
    /// Reasoning / thinking text (DeepSeek `reasoning_content`, OpenRouter `reasoning`,
    /// Anthropic thinking blocks, Ollama `thinking`).
    ReasoningDelta(String),
    /// A fragment of a tool call. Fragments with the same `index` belong to the same call:
    /// argument fragments are concatenated, `id` and `name` come from the first fragment that
    /// carries them.
    ToolCallDelta {
        /// Position of the call in this response (0-based, per response).
        index: usize,
        /// The call id, usually only on the first fragment.
        id: Option<String>,
        /// The tool name, usually only on the first fragment.
        name: Option<String>,
        /// A piece of the arguments JSON string (may be empty).
        arguments_fragment: String,
    },
    /// Token usage so far. Each event is a cumulative snapshot: the last one wins.
    Usage(Usage),
    /// The response is complete. Always the last event of a successful stream.
    Done {
        /// Why the model stopped.
        stop_reason: StopReason,
    },
}

/// Token counts (and cost when the provider reports it, as OpenRouter does).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Generated tokens, reasoning included.
    pub output_tokens: u64,
    /// Cost of the request in US dollars, when the provider says.
    pub cost_usd: Option<f64>,
}

/// Why the model stopped generating, normalised across providers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer (OpenAI `stop`, Anthropic `end_turn`/`stop_sequence`).
    EndTurn,
    /// The model wants tool results (OpenAI `tool_calls`, Anthropic `tool_use`).
    ToolUse,
    /// The token limit was reached (`length`, `max_tokens`).
    MaxTokens,
    /// Anything else the provider said (`content_filter`, `refusal`, `pause_turn`, ...).
    Other(String),
}
