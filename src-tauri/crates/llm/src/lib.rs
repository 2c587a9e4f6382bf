//! # skald-llm — Skald's LLM provider layer
//!
//! Owns: the [`LlmProvider`] trait and its streamed [`StreamEvent`]s, the provider-neutral
//! [`ChatRequest`] / [`Message`] types, the [`ResponseAccumulator`] that folds a stream into
//! the final assistant message, error classification ([`LlmError::is_retriable`]) and retries
//! with backoff ([`RetryPolicy`]), the [`OpenAiCompatible`], [`Anthropic`] and [`Ollama`]
//! clients, environment configuration ([`ProviderConfig::from_env`], [`detect_ollama`]) and a
//! scripted [`FakeProvider`] for tests.
//!
//! Must never: touch the database, depend on Tauri, execute tools, or decide what to tell the
//! model about a tool. It turns a request into a stream of events, and nothing else. Dropping
//! a stream aborts its HTTP request; nothing runs in the background.
//!
//! TLS: reqwest is built without TLS here (to reuse the reqwest already in the lock file);
//! `https` providers need the `native-tls` feature, which the app turns on. Without it,
//! constructing a client for an `https` URL fails with a clear [`LlmError::Config`].

mod accumulator;
mod anthropic;
mod config;
mod error;
mod event;
mod fake;
mod framing;
mod models;
mod ollama;
mod openai;
mod provider;
mod retry;
mod transport;
mod types;
mod windows;

pub use accumulator::{AssistantResponse, ResponseAccumulator};
pub use anthropic::Anthropic;
pub use config::{
    AnthropicSettings, OllamaSettings, OpenAiSettings, ProviderConfig, ollama_base_url,
};
pub use error::LlmError;
pub use event::{StopReason, StreamEvent, Usage};
pub use fake::{FakeProvider, ScriptStep, ScriptedTurn};
pub use models::{ModelApi, list_models, model_context_window};
pub use ollama::{Ollama, detect_ollama, ollama_models};
pub use openai::OpenAiCompatible;
pub use provider::{EventStream, LlmProvider, complete};
pub use retry::RetryPolicy;
pub use skald_core_api::ToolDef;
pub use types::{
    ChatRequest, ImagePart, Message, ReasoningEffort, ReasoningPart, ToolCall, reasoning_text,
};
pub use windows::known_context_window;
