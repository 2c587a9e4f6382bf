//! Permission groups and approval rules as the Settings pages edit them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum RuleActionView {
    Allow,
    Require,
    Deny,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GroupView {
    pub name: String,
    pub description: String,
    /// Built-in groups (`default`) cannot be deleted.
    pub builtin: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleView {
    #[ts(type = "number")]
    pub id: i64,
    pub group: String,
    pub agent_id: Option<String>,
    pub source: Option<String>,
    /// Exact name, `prefix*`, `*`, or a class: `@fs_read`, `@fs_write`, `@fs_any`.
    pub tool_pattern: String,
    /// `dir/*` (the directory and its subtree), an exact path, or `prefix*`.
    pub path_pattern: Option<String>,
    pub action: RuleActionView,
    pub note: Option<String>,
    /// Higher first; ties by id.
    #[ts(type = "number")]
    pub priority: i64,
}

/// A rule to add (or the new content of an edited one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleInput {
    pub group: String,
    pub tool_pattern: String,
    pub path_pattern: Option<String>,
    pub action: RuleActionView,
    pub note: Option<String>,
    #[ts(type = "number")]
    pub priority: i64,
}

/// A session's RunContext as the session settings panel edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunContextView {
    /// Must name an existing permission group.
    pub permission_group: String,
    pub extra_system_prompt: Option<String>,
    /// Extra directories read tools may use without asking.
    pub allow_fs_reads: Vec<String>,
    /// Extra directories write (and read) tools may use without asking.
    pub allow_fs_writes: Vec<String>,
    pub working_dir: Option<String>,
}

/// What a human bypass covers. Bypasses live in memory, end when the
/// session is stopped, and never override a deny.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BypassScopeView {
    All,
    Tool { name: String },
    Category { category: crate::ToolCategory },
    McpServer { server: String },
}

/// A live bypass as the chat shows it: what it covers and how long it
/// has left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BypassView {
    pub scope: BypassScopeView,
    /// Milliseconds left when read; `None` lasts until the turn is stopped.
    #[ts(type = "number | null")]
    pub remaining_ms: Option<u64>,
}
