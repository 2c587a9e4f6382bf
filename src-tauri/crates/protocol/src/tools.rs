//! Tool catalogue types: what the Tools page and the approval settings show.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Access-control grouping every tool declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
pub enum ToolCategory {
    Filesystem,
    Shell,
    Subagent,
    Introspection,
    Config,
}

impl ToolCategory {
    pub const ALL: [ToolCategory; 5] = [
        ToolCategory::Filesystem,
        ToolCategory::Shell,
        ToolCategory::Subagent,
        ToolCategory::Introspection,
        ToolCategory::Config,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolCategory::Filesystem => "Filesystem",
            ToolCategory::Shell => "Shell",
            ToolCategory::Subagent => "Subagent",
            ToolCategory::Introspection => "Introspection",
            ToolCategory::Config => "Config",
        }
    }
}

/// How a call's card presents it: declared by its tool (`Tool::presentation`),
/// so a session or MCP tool gets the same card as a built-in of its kind and
/// no face picks a card by the tool's name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolPresentation {
    /// The arguments and the result.
    #[default]
    Generic,
    /// A shell command: the `command` argument is the command line and
    /// `workdir` where it runs (the approval card shows both).
    Command,
    /// A question to the person (`question`, `title`, `suggested_answers`
    /// arguments): while the call runs it is answered inline under its card.
    Question,
    /// The calling agent's whole todo list (a `todos` argument of
    /// `{content, status}` items): the Todos panel shows each frame's latest.
    Todos,
}

impl ToolPresentation {
    pub fn is_generic(&self) -> bool {
        *self == ToolPresentation::Generic
    }
}

/// Where a catalogue entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ToolKind {
    /// Registered in the `ToolRegistry`.
    Registry,
    /// Built by the session driver outside the registry (`ChatSessionHandler::synthetic_tools`).
    Synthetic,
    /// Offered by an MCP server, named `mcp__<server>__<tool>`.
    Mcp,
    /// Seen offered to a model at least once (`known_tools`), from a source
    /// the catalogue does not list itself (a plugin, a provider).
    Discovered,
}

/// One catalogue entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// `None` for tools the spec leaves uncategorised (most synthetic ones, MCP).
    pub category: Option<ToolCategory>,
    pub kind: ToolKind,
    pub sub_agents_only: bool,
    pub root_agent_only: bool,
}

/// The whole catalogue: built-in (registry + synthetic) and MCP tools.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AllTools {
    pub built_in: Vec<ToolInfo>,
    pub mcp: Vec<ToolInfo>,
}

impl AllTools {
    /// Every tool, built-in first, in catalogue order.
    pub fn iter(&self) -> impl Iterator<Item = &ToolInfo> {
        self.built_in.iter().chain(self.mcp.iter())
    }
}

/// The persisted status of a tool call (`chat_llm_tools.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    Running,
    Pending,
    Done,
    Failed,
    Cancelled,
    Rejected,
}

impl ToolCallStatus {
    /// Every status, in declaration order.
    pub const ALL: [Self; 6] = [
        Self::Running,
        Self::Pending,
        Self::Done,
        Self::Failed,
        Self::Cancelled,
        Self::Rejected,
    ];

    /// The wire and database text (`chat_llm_tools.status`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallStatus::Running => "running",
            ToolCallStatus::Pending => "pending",
            ToolCallStatus::Done => "done",
            ToolCallStatus::Failed => "failed",
            ToolCallStatus::Cancelled => "cancelled",
            ToolCallStatus::Rejected => "rejected",
        }
    }

    /// Parses the wire/database text; `None` for anything else (case-sensitive).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "running" => ToolCallStatus::Running,
            "pending" => ToolCallStatus::Pending,
            "done" => ToolCallStatus::Done,
            "failed" => ToolCallStatus::Failed,
            "cancelled" => ToolCallStatus::Cancelled,
            "rejected" => ToolCallStatus::Rejected,
            _ => return None,
        })
    }

    /// Terminal statuses never change again.
    pub fn is_terminal(self) -> bool {
        match self {
            ToolCallStatus::Running | ToolCallStatus::Pending => false,
            ToolCallStatus::Done
            | ToolCallStatus::Failed
            | ToolCallStatus::Cancelled
            | ToolCallStatus::Rejected => true,
        }
    }
}

impl std::fmt::Display for ToolCallStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status text that names no [`ToolCallStatus`] (a damaged row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownToolCallStatus(pub String);

impl std::fmt::Display for UnknownToolCallStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown tool call status {:?}", self.0)
    }
}

impl std::error::Error for UnknownToolCallStatus {}

impl std::str::FromStr for ToolCallStatus {
    type Err = UnknownToolCallStatus;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| UnknownToolCallStatus(s.to_string()))
    }
}

/// What the store decodes its text column with.
impl TryFrom<String> for ToolCallStatus {
    type Error = UnknownToolCallStatus;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}
