//! The one test double for LLM providers: a scripted HTTP server that
//! speaks OpenAI-compatible Chat Completions, Anthropic Messages and Ollama
//! streams, and records every request it receives.
//!
//! - Rust tests start a [`MockServer`] in-process (its own thread and
//!   runtime, so sync tests and tests driving child processes use it alike)
//!   and read what it received with [`MockServer::requests`] /
//!   [`MockServer::bodies`].
//! - The E2E tests start the `skald-llm-mock` binary with a JSON script
//!   ([`script`]); it prints its port, appends each request to a record file
//!   and offers control endpoints under `/_mock/`.
//!
//! Each request that is not a model list (`GET …/models`, `GET /api/tags`,
//! answered from a fixed list unless the server was built with
//! [`MockBuilder::no_models`]) takes the next reply of the first [`route`]
//! that matches it (by system prompt, user message, model or body: agents
//! asking side by side), else the next scripted [`Reply`]; when they run
//! out it gets a 400 that says so.

pub mod anthropic;
mod control;
pub mod ollama;
pub mod openai;
mod peer;
mod reply;
pub mod route;
pub mod script;
mod send;
mod server;

pub use reply::{DEFAULT_PIECE, End, Part, Reply};
pub use route::Match;
pub use server::{MOCK_MODELS, MockBuilder, MockServer, RecordedRequest, Responder};

/// An OpenAI answer with `text` ([`openai::text`]).
pub fn sse_text(text: &str) -> String {
    openai::text(text)
}

/// An OpenAI answer calling one tool ([`openai::tool_call`]).
pub fn sse_tool_call(id: &str, name: &str, arguments: &str) -> String {
    openai::tool_call(id, name, arguments)
}
