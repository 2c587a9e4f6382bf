//! MCP for Skald, on `rmcp`: servers configured in the store ([`ServerConfig`],
//! stdio or streamable HTTP), kept connected in the background by the
//! [`McpManager`] (status, stderr log, restart with backoff), and their tools
//! offered to every round through [`McpSource`] as `mcp__<server>__<tool>`.
//!
//! This crate knows nothing of sessions or the UI: the session crate decides
//! which servers a round offers (lazy groups) and gates every call.

pub mod admin;
mod client;
mod config;
mod config_tools;
mod error;
mod import;
mod manager;
pub mod oauth;
mod requests;
mod result;
mod tool;

pub use client::{SAMPLING_DECLINED, STDERR_TAIL_LINES, fill_secrets, secret_names};
pub use config::{DEFAULT_TIMEOUT, ServerConfig, Transport, validate_name};
pub use config_tools::{config_tools, items};
pub use error::McpError;
pub use import::{ImportReport, parse_import};
pub use manager::{FIRST_BACKOFF, MAX_BACKOFF, McpManager, ServerStatus};
pub use requests::{
    ClientRequests, ElicitReply, Elicitation, SamplingReply, SamplingRequest, current_call_id,
};
pub use result::output_from_json;
pub use tool::{McpSource, McpTool};
