//! [`ToolCatalog`]: one façade over the registry, the synthetic tools the
//! session driver injects, and MCP tools.

use std::sync::Arc;

use serde_json::Value;
use skald_core_api::{ToolCategory, ToolDescriptionLength};
use skald_protocol::{AllTools, ToolInfo, ToolKind};

use crate::{ToolRegistry, tool_names as tn};

/// Where MCP tools come from once MCP servers exist.
pub trait McpToolSource: Send + Sync {
    fn tool_infos(&self) -> Vec<ToolInfo>;
}

#[derive(Clone)]
pub struct ToolCatalog {
    registry: Arc<ToolRegistry>,
    mcp: Option<Arc<dyn McpToolSource>>,
}

impl ToolCatalog {
    pub fn new(registry: Arc<ToolRegistry>) -> Self {
        Self {
            registry,
            mcp: None,
        }
    }

    pub fn with_mcp(mut self, mcp: Arc<dyn McpToolSource>) -> Self {
        self.mcp = Some(mcp);
        self
    }

    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    /// Registry tools then synthetic tools (each sorted by name), and MCP.
    pub fn list_all(&self) -> AllTools {
        let mut built_in = self.registry.infos();
        built_in.extend(synthetic_tools());
        let mut mcp = self
            .mcp
            .as_ref()
            .map(|m| m.tool_infos())
            .unwrap_or_default();
        mcp.sort_by(|a, b| a.name.cmp(&b.name));
        AllTools { built_in, mcp }
    }

    pub fn describe_call(&self, name: &str, args: &Value, length: ToolDescriptionLength) -> String {
        self.registry.describe_call(name, args, length)
    }
}

/// Who sees a synthetic tool, as the tool itself declares it
/// (`Tool::root_agent_only` / `sub_agents_only`); the session's tests hold
/// every built tool to its entry here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    ByAll,
    RootOnly,
}

/// The core-owned tools injected outside the registry, listed up front so
/// they can be given rules before their first use. Sorted by name.
pub fn synthetic_tools() -> Vec<ToolInfo> {
    use Seen::{ByAll, RootOnly};
    let entries: [(&str, Option<ToolCategory>, Seen, &str); 11] = [
        (
            tn::ACTIVATE_TOOLS,
            Some(ToolCategory::Config),
            ByAll,
            "Activates tool groups on demand: MCP server names and/or the reserved `config` group.",
        ),
        (
            tn::ASK_USER_CLARIFICATION,
            Some(ToolCategory::Introspection),
            ByAll,
            "Asks the person a question (Markdown, optional suggested answers) and waits for the answer, which is its result; kept across restarts, withdrawn by Stop. Not offered to system agents.",
        ),
        (
            tn::EXECUTE_SUBTASK,
            None,
            ByAll,
            "Runs a sub-agent synchronously from a background session.",
        ),
        (
            tn::EXECUTE_TASK,
            Some(ToolCategory::Subagent),
            ByAll,
            "Hands a self-contained task to a task agent: mode `sync` runs it inline in a child frame and returns its final answer; `async` runs it in a background session and delivers its ending later as a `task_completed` result; `cron` runs it on a schedule in the person's time zone, results to Home.",
        ),
        (
            tn::IMAGE_GENERATE,
            Some(ToolCategory::Config),
            ByAll,
            "Generates an image with a configured image provider.",
        ),
        (
            tn::LIST_ITEMS,
            Some(ToolCategory::Introspection),
            ByAll,
            "Lists parts of Skald's own setup as JSON by type: `agents` (chat and task agents, how to call them), `cron` (cron jobs: schedule, next run, last outcome), `mcp` (servers, status, tools).",
        ),
        (
            tn::NOTIFY,
            Some(ToolCategory::Introspection),
            ByAll,
            "Background and system agents only: queues a structured notification (source, summary, event_type, event_time, refs) for the person's Home conversation.",
        ),
        (
            tn::READ_NOTIFICATION,
            Some(ToolCategory::Introspection),
            RootOnly,
            "Root agent only: background notifications arrive as completed calls of it (a JSON list), batched within 200 ms into the Home conversation.",
        ),
        (
            tn::SHOW_FILE_TO_USER,
            Some(ToolCategory::Filesystem),
            ByAll,
            "Opens a file in the person's file viewer (Markdown, code, images, SVG, PDF, LaTeX source, HTML); files under secrets/ are refused.",
        ),
        (
            tn::UPDATE_SCRATCHPAD,
            Some(ToolCategory::Introspection),
            ByAll,
            "Writes one entry (key, value) of the session's shared, persisted scratchpad, injected into every agent's requests after the static prompt; an empty value deletes. The person edits it in the Scratchpad panel.",
        ),
        (
            tn::WRITE_TODOS,
            Some(ToolCategory::Introspection),
            ByAll,
            "Keeps the calling agent's private todo list; re-send the whole list with statuses on every call.",
        ),
    ];
    entries
        .into_iter()
        .map(|(name, category, seen, description)| ToolInfo {
            name: name.to_string(),
            description: description.to_string(),
            category,
            kind: ToolKind::Synthetic,
            sub_agents_only: false,
            root_agent_only: seen == RootOnly,
        })
        .collect()
}
