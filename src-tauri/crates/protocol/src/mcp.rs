//! The MCP page: configured servers with their status, tools and log; what
//! adding, editing, importing, testing and signing in send and return.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How Skald reaches a server. `${NAME}` in env values and header values
/// is filled from Skald's secrets when it connects (never shown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "transport", rename_all = "snake_case")]
pub enum McpTransportView {
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
        #[serde(default)]
        cwd: Option<String>,
    },
    Http {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// OAuth with a client registered beforehand (instead of dynamic
        /// registration); its secret is never shown.
        #[serde(default, rename = "clientId", skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        client_id: Option<String>,
    },
}

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpStatusView {
    Connecting,
    Ready {
        tools: u32,
    },
    /// Why, with the last lines of its stderr; a restart is scheduled.
    Failed {
        reason: String,
        stderr: Vec<String>,
    },
    /// An HTTP server answered 401: sign in (`mcp_sign_in`) first.
    NeedsSignIn {
        reason: String,
    },
    Disabled,
}

/// One tool of a ready server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView {
    /// `mcp__<server>__<tool>`, as the model and the rules see it.
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    pub description: String,
}

/// One configured server (the MCP page's row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    pub name: String,
    pub transport: McpTransportView,
    pub enabled: bool,
    #[ts(type = "number")]
    pub timeout_ms: u64,
    /// What the server is for, as the model reads it.
    pub description: String,
    pub status: McpStatusView,
    /// Empty until the server is ready.
    pub tools: Vec<McpToolView>,
    /// The file its stderr goes to (`mcp_server_log` reads its end).
    pub log_path: Option<String>,
    /// OAuth tokens are stored for it (HTTP only).
    pub signed_in: bool,
}

/// What the add/edit form sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerInput {
    pub name: String,
    pub transport: McpTransportView,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Per-call timeout; 60 000 when absent.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub description: String,
    /// The pre-registered OAuth client's secret, written to the secrets
    /// store (never read back): `None` keeps the stored one, `""` removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub client_secret: Option<String>,
}

fn yes() -> bool {
    true
}

/// What an import did: servers stored, fields ignored, entries skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpImportView {
    pub imported: Vec<String>,
    pub warnings: Vec<String>,
}

/// "Test connection": a throwaway connection with the form's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTestView {
    pub ok: bool,
    pub tools: Vec<McpToolView>,
    /// Why it failed, with the last stderr lines.
    pub error: Option<String>,
    #[ts(type = "number")]
    pub elapsed_ms: u64,
}

/// Payload of the `mcp-status` event: one server's status changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpStatusChanged {
    pub name: String,
    pub status: McpStatusView,
}

/// How the person answers an MCP server's elicitation (a form question).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ElicitationAction {
    /// Submit the form's `content`.
    Accept,
    /// Refuse to give what was asked.
    Decline,
    /// Dismiss without choosing.
    Cancel,
}
