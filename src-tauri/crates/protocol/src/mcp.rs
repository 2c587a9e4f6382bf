//! MCP servers as the MCP page shows and edits them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How Skald reaches a server, as the page edits it. `${NAME}` in env and
/// header values is filled from Skald's secrets when it connects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "transport", rename_all = "snake_case")]
pub enum McpTransportView {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// A server's whole configuration: what the edit form loads and saves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerInput {
    pub name: String,
    pub transport: McpTransportView,
    pub enabled: bool,
    /// Per-call timeout in seconds.
    #[ts(type = "number")]
    pub timeout_secs: u64,
    /// What the server is for, as the model reads it.
    pub description: String,
}

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpStatusView {
    Connecting,
    #[serde(rename_all = "camelCase")]
    Ready {
        #[ts(type = "number")]
        tools: usize,
    },
    /// Why, with the last lines of its stderr; a restart is scheduled.
    Failed {
        reason: String,
        stderr: Vec<String>,
    },
    Disabled,
}

/// One tool of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView {
    /// The server's own name for it.
    pub name: String,
    /// `mcp__<server>__<tool>`: what rules and the model use.
    pub full_name: String,
    pub description: String,
}

/// A configured server with its live state, for the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The command line or the URL (env and header values are not shown).
    pub target: String,
    pub enabled: bool,
    #[ts(type = "number")]
    pub timeout_secs: u64,
    pub description: String,
    pub status: McpStatusView,
    /// Empty until it is ready.
    pub tools: Vec<McpToolView>,
}

/// What an import stored and what it reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpImportView {
    pub imported: Vec<String>,
    /// Ignored fields and skipped entries, one line each.
    pub warnings: Vec<String>,
}

/// The outcome of a test connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTestView {
    pub ok: bool,
    /// Why it failed (with the server's last stderr lines), or empty.
    pub error: String,
    pub tools: Vec<McpToolView>,
}
