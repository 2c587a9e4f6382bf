//! `StreamEvent`: the provider-neutral deltas every client yields, plus `Usage` and `StopReason`.

use serde::{Deserialize, Serialize};

use crate::types::ReasoningPart;

/// One increment of a streamed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// Visible answer text.
    TextDelta(String),
    /// Reasoning / thinking text (DeepSeek `reasoning_content`, OpenRouter `reasoning`,
    /// Anthropic thinking blocks, Ollama `thinking`).
    ReasoningDelta(String),
    /// A complete piece of reasoning to keep with the message and send back, in its
    /// provider's shape (emitted once the block or the response is complete; the text of it
    /// has already streamed as [`StreamEvent::ReasoningDelta`]).
    Reasoning(ReasoningPart),
    /// A fragment of a tool call. Fragments with the same `index` belong to the same call:
    /// argument fragments are concatenated, `id` and `name` come from the first fragment that
    /// carries them. A fragment with a different `id` at an index whose call is already
    /// complete (some OpenAI-compatible servers send every call at index 0) starts a new call.
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
    /// An attempt failed in a way worth retrying; the request is sent again after `delay_ms`.
    /// Only ever before the response's first real event (nothing is retried after that), and
    /// not part of the response: accumulators ignore it, callers show it ("rate limited,
    /// retrying in 3 s, attempt 2 of 5").
    Retrying {
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        /// The first attempt plus every retry the policy allows.
        max_attempts: u32,
        /// How long the client waits before it.
        delay_ms: u64,
        /// What failed, in words ([`crate::LlmError::reason`]).
        reason: String,
        /// The error itself.
        detail: String,
    },
    /// The response is complete. Always the last event of a successful stream.
    Done {
        /// Why the model stopped.
        stop_reason: StopReason,
    },
}

/// Token counts (and cost when the provider reports it, as OpenRouter does). Counts a
/// provider does not report are 0.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Generated tokens, reasoning included.
    pub output_tokens: u64,
    /// Prompt tokens read from the provider's cache (part of `input_tokens`).
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the provider's cache (part of `input_tokens`).
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Reasoning tokens (part of `output_tokens`).
    #[serde(default)]
    pub reasoning_tokens: u64,
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
