//! An MCP server's tool as a Skald [`Tool`]: named `mcp__<server>__<tool>`,
//! labelled with the server's name, run through the [`McpManager`] (the
//! server's timeout; Stop drops the call, which rmcp turns into
//! `notifications/cancelled`). The approval gate sees its source, `mcp`.

use std::sync::Arc;

use serde_json::Value;
use skald_core_api::{
    BoxFuture, RestartHint, SimpleExecution, Tool, ToolCategory, ToolDescriptionLength, ToolError,
    ToolExecution, ToolName, ToolResult,
};
use skald_tools::{ToolSource, source};

use crate::McpError;
use crate::manager::McpManager;

/// One tool of one server.
pub struct McpTool {
    manager: McpManager,
    server: String,
    tool: String,
    name: String,
    description: String,
    schema: Value,
}

impl McpTool {
    pub fn new(
        manager: McpManager,
        server: &str,
        tool: &str,
        description: &str,
        schema: Value,
    ) -> Self {
        let description = if description.trim().is_empty() {
            format!("[{server}] {tool}")
        } else {
            format!("[{server}] {description}")
        };
        Self {
            manager,
            server: server.to_string(),
            tool: tool.to_string(),
            name: ToolName::mcp(server, tool).to_string(),
            description,
            schema,
        }
    }
}

pub(crate) fn tool_error(e: McpError) -> ToolError {
    match e {
        McpError::ToolFailed(msg) => ToolError::Failed(msg),
        other => ToolError::Failed(other.to_string()),
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters_schema(&self) -> Value {
        self.schema.clone()
    }

    fn describe(&self, _args: &Value, _length: ToolDescriptionLength) -> String {
        format!("{} · {}", self.server, self.tool)
    }

    /// The result's text as words (`skald tool run`, callers without blocks).
    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            self.manager
                .call(&self.server, &self.tool, args)
                .await
                .map(|out| out.text_for_model(false))
                .map_err(tool_error)
        })
    }

    /// The result with its content blocks, and the server's progress
    /// notifications reported while it runs.
    fn run<'a>(&'a self, args: Value) -> Box<dyn ToolExecution + 'a> {
        Box::new(SimpleExecution::with_progress(move |progress| {
            Box::pin(async move {
                self.manager
                    .call_with_progress(&self.server, &self.tool, args, Some(progress))
                    .await
                    .map_err(tool_error)
            })
        }))
    }

    /// Not a category of the built-in catalogue: the gate matches MCP tools
    /// by name and source (`ToolSet::category_of` answers `None` for them).
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    /// What a server's tool does is unknown: never re-run after a crash.
    fn restart_hint(&self) -> RestartHint {
        RestartHint::Reask
    }
}

/// Every ready server's tools, for each round's [`ToolSet`](skald_tools::ToolSet).
#[derive(Clone)]
pub struct McpSource {
    manager: McpManager,
}

impl McpSource {
    pub fn new(manager: McpManager) -> Self {
        Self { manager }
    }
}

impl ToolSource for McpSource {
    fn source(&self) -> &str {
        source::MCP
    }

    /// A turn waits only for the servers it was granted, each at most its
    /// timeout; a failed one is skipped (its calls say why).
    fn prepare<'a>(&'a self, groups: &'a [String]) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            for g in groups {
                if self.manager.status(g).is_some() {
                    let _ = self.manager.wait_ready(g).await;
                }
            }
        })
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut out: Vec<Arc<dyn Tool>> = Vec::new();
        for server in self.manager.names() {
            for (tool, description, schema) in self.manager.tools(&server) {
                out.push(Arc::new(McpTool::new(
                    self.manager.clone(),
                    &server,
                    &tool,
                    &description,
                    schema,
                )));
            }
        }
        out
    }
}
