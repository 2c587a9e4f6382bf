//! [`ToolCatalog`]: one façade over the registry, the session's own
//! (synthetic) tools, and MCP tools.

use std::sync::Arc;

use serde_json::Value;
use skald_core_api::ToolDescriptionLength;
use skald_protocol::{AllTools, ToolInfo, ToolKind};

use crate::ToolRegistry;

/// Where MCP tools come from once MCP servers exist.
pub trait McpToolSource: Send + Sync {
    fn tool_infos(&self) -> Vec<ToolInfo>;
}

#[derive(Clone)]
pub struct ToolCatalog {
    registry: Arc<ToolRegistry>,
    /// What the session driver builds besides the registry, as its tools
    /// declare themselves (`ChatSessionHandler::synthetic_tools`).
    synthetic: Vec<ToolInfo>,
    mcp: Option<Arc<dyn McpToolSource>>,
}

impl ToolCatalog {
    pub fn new(registry: Arc<ToolRegistry>) -> Self {
        Self {
            registry,
            synthetic: Vec::new(),
            mcp: None,
        }
    }

    /// Lists `tools` as synthetic (the session's own tools), so they can be
    /// given rules before their first use.
    pub fn with_synthetic(mut self, tools: Vec<ToolInfo>) -> Self {
        self.synthetic = tools
            .into_iter()
            .map(|t| ToolInfo {
                kind: ToolKind::Synthetic,
                ..t
            })
            .collect();
        self.synthetic.sort_by(|a, b| a.name.cmp(&b.name));
        self
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
        built_in.extend(self.synthetic.iter().cloned());
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
