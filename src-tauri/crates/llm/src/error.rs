//! `LlmError`: every way a provider call can fail, and whether trying again may help.
//!
//! The split that matters to callers is [`LlmError::is_retriable`]: rate limits, server errors,
//! network failures and streams broken mid-way are worth another attempt; authentication,
//! missing models, invalid requests and misconfiguration are final. This module only classifies;
//! the retry loop lives in the transport.

use std::time::Duration;

/// An error from an LLM provider. Messages always name the provider and, for HTTP failures,
/// the status and the provider's own error text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The provider answered with a non-success HTTP status.
    #[error("{provider}: HTTP {status}: {message}")]
    Http {
        /// Provider name (for example `openai`, `anthropic`, `ollama`).
        provider: String,
        /// The HTTP status code.
        status: u16,
        /// The provider's error text (OpenAI's `error.message`, Anthropic's `error.message`,
        /// Ollama's `error`), or the raw body when it is not JSON.
        message: String,
        /// The delay the provider asked for (`Retry-After` / `retry-after-ms`), if any.
        retry_after: Option<Duration>,
    },
    /// The request never got an answer: connection refused, DNS, timeout.
    #[error("{provider}: network error: {message}")]
    Network {
        /// Provider name.
        provider: String,
        /// What went wrong.
        message: String,
    },
    /// The response stream ended or failed before the provider said it was complete.
    #[error("{provider}: stream broken: {message}")]
    StreamBroken {
        /// Provider name.
        provider: String,
        /// What went wrong.
        message: String,
    },
    /// The provider reported an error inside an otherwise successful stream
    /// (Anthropic's `error` event, an OpenRouter error chunk, Ollama's `{"error": ...}` line).
    #[error("{provider}: {kind}: {message}")]
    Provider {
        /// Provider name.
        provider: String,
        /// The provider's error type (for example `overloaded_error`).
        kind: String,
        /// The provider's error text.
        message: String,
        /// Whether the provider's error type is transient.
        retriable: bool,
    },
    /// The provider sent something this client cannot read (malformed JSON, unknown framing).
    #[error("{provider}: cannot decode response: {message}")]
    Decode {
        /// Provider name.
        provider: String,
        /// What could not be decoded.
        message: String,
    },
    /// A success status whose body is not the event stream asked for (a web page, a plain
    /// JSON document): almost always a base URL pointing at the wrong server or path.
    #[error(
        "{provider}: the reply is not an event stream ({content_type}) — check the base URL ({url})"
    )]
    NotEventStream {
        /// Provider name.
        provider: String,
        /// The reply's `Content-Type` (or "no content type").
        content_type: String,
        /// Where the request went.
        url: String,
    },
    /// The client is misconfigured (bad URL or header, https without a TLS feature, ...).
    #[error("provider configuration: {0}")]
    Config(String),
    /// A [`crate::FakeProvider`] was asked for more turns than it was scripted with.
    #[error("fake provider: no scripted turn left")]
    ScriptExhausted,
}

impl LlmError {
    /// True when another attempt may succeed: HTTP 408/409/429/5xx, network errors, a broken
    /// stream, or a transient in-stream provider error. 401/403/404/422 and other 4xx,
    /// decode and configuration errors are final.
    pub fn is_retriable(&self) -> bool {
        match self {
            LlmError::Http { status, .. } => is_retriable_status(*status),
            LlmError::Network { .. } | LlmError::StreamBroken { .. } => true,
            LlmError::Provider { retriable, .. } => *retriable,
            LlmError::Decode { .. }
            | LlmError::NotEventStream { .. }
            | LlmError::Config(_)
            | LlmError::ScriptExhausted => false,
        }
    }

    /// What failed, in a few words for a person ("rate limited", "server overloaded").
    pub fn reason(&self) -> &'static str {
        match self {
            LlmError::Http { status: 429, .. } => "rate limited",
            LlmError::Http {
                status: 503 | 529, ..
            } => "server overloaded",
            LlmError::Http { status: 408, .. } => "request timed out",
            LlmError::Http { status, .. } if *status >= 500 => "server error",
            LlmError::Http { .. } => "request refused",
            LlmError::Network { .. } => "cannot reach the server",
            LlmError::StreamBroken { .. } => "connection dropped",
            LlmError::Provider { kind, .. } if kind.contains("overload") => "server overloaded",
            LlmError::Provider { kind, .. } if kind.contains("rate") => "rate limited",
            LlmError::Provider { .. } => "provider error",
            LlmError::Decode { .. } => "unreadable reply",
            LlmError::NotEventStream { .. } => "not an event stream",
            LlmError::Config(_) => "configuration error",
            LlmError::ScriptExhausted => "no scripted reply",
        }
    }

    /// The delay the provider asked for before retrying, if it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::Http { retry_after, .. } => *retry_after,
            LlmError::Network { .. }
            | LlmError::StreamBroken { .. }
            | LlmError::Provider { .. }
            | LlmError::Decode { .. }
            | LlmError::NotEventStream { .. }
            | LlmError::Config(_)
            | LlmError::ScriptExhausted => None,
        }
    }

    /// The HTTP status, for HTTP errors.
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::Http { status, .. } => Some(*status),
            LlmError::Network { .. }
            | LlmError::StreamBroken { .. }
            | LlmError::Provider { .. }
            | LlmError::Decode { .. }
            | LlmError::NotEventStream { .. }
            | LlmError::Config(_)
            | LlmError::ScriptExhausted => None,
        }
    }
}

/// 408 (timeout), 409 (conflict, e.g. a lock), 429 (rate limit) and every 5xx (including
/// Anthropic's 529 "overloaded") are transient.
pub(crate) fn is_retriable_status(status: u16) -> bool {
    status == 408 || status == 409 || status == 429 || (500..=599).contains(&status)
}

/// Whether a provider's in-stream error type names a transient condition.
pub(crate) fn is_retriable_kind(kind: &str) -> bool {
    matches!(
        kind,
        "overloaded_error"
            | "api_error"
            | "rate_limit_error"
            | "timeout_error"
            | "server_error"
            | "rate_limit_exceeded"
            | "overloaded"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> LlmError {
        LlmError::Http {
            provider: "openai".into(),
            status,
            message: "boom".into(),
            retry_after: None,
        }
    }

    #[test]
    fn statuses_are_classed() {
        for s in [408, 409, 429, 500, 502, 503, 529] {
            assert!(http(s).is_retriable(), "{s} should be retriable");
        }
        for s in [400, 401, 403, 404, 413, 422] {
            assert!(!http(s).is_retriable(), "{s} should be final");
        }
    }

    #[test]
    fn message_names_provider_status_and_text() {
        assert_eq!(http(401).to_string(), "openai: HTTP 401: boom");
    }
}
