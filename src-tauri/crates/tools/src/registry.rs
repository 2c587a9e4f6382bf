//! [`ToolRegistry`]: the built-in tools keyed by name.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use skald_core_api::{
    RestartHint, Tool, ToolCategory, ToolDescriptionLength, ToolError, ToolExecution, ToolResult,
    truncate_label,
};
use skald_protocol::{ToolInfo, ToolKind};

#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: HashMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Inserts `tool` keyed by its name, replacing any tool of that name.
    pub fn register(&mut self, tool: impl Tool + 'static) {
        self.register_arc(Arc::new(tool));
    }

    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.name().to_string(), tool);
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Every tool, sorted by name.
    pub fn all(&self) -> Vec<Arc<dyn Tool>> {
        self.sorted().into_iter().cloned().collect()
    }

    /// Tools sorted by name, so every listing and request is deterministic.
    fn sorted(&self) -> Vec<&Arc<dyn Tool>> {
        let mut v: Vec<_> = self.tools.values().collect();
        v.sort_by(|a, b| a.name().cmp(b.name()));
        v
    }

    fn definitions(&self, keep: impl Fn(&dyn Tool) -> bool) -> Vec<Value> {
        self.sorted()
            .into_iter()
            .filter(|t| keep(t.as_ref()))
            .map(|t| t.openai_definition())
            .collect()
    }

    /// Definitions for the root agent: every tool but the sub-agent-only ones.
    pub fn openai_definitions(&self) -> Vec<Value> {
        self.definitions(|t| !t.sub_agents_only())
    }

    /// Definitions of the tools only sub-agents see.
    pub fn openai_definitions_sub_agents_only(&self) -> Vec<Value> {
        self.definitions(|t| t.sub_agents_only())
    }

    /// Root definitions without the lazy Config group.
    pub fn openai_definitions_excluding_config(&self) -> Vec<Value> {
        self.definitions(|t| !t.sub_agents_only() && t.category() != ToolCategory::Config)
    }

    /// The lazy Config group, offered after `activate_tools(["config"])`.
    pub fn openai_definitions_config_only(&self) -> Vec<Value> {
        self.definitions(|t| !t.sub_agents_only() && t.category() == ToolCategory::Config)
    }

    /// Names a sub-agent's configuration filters out.
    pub fn root_agent_only_names(&self) -> Vec<String> {
        self.sorted()
            .into_iter()
            .filter(|t| t.root_agent_only())
            .map(|t| t.name().to_string())
            .collect()
    }

    /// `(name, description)` of every registered tool, sorted by name.
    pub fn list_all(&self) -> Vec<(String, String)> {
        self.sorted()
            .into_iter()
            .map(|t| (t.name().to_string(), t.description().to_string()))
            .collect()
    }

    /// Catalogue entries of every registered tool, sorted by name.
    pub fn infos(&self) -> Vec<ToolInfo> {
        self.sorted()
            .into_iter()
            .map(|t| tool_info(t.as_ref(), ToolKind::Registry))
            .collect()
    }

    /// `None` for MCP, synthetic and unknown tools.
    pub fn category_of(&self, name: &str) -> Option<ToolCategory> {
        self.tools.get(name).map(|t| t.category())
    }

    pub fn restart_hint(&self, name: &str) -> Option<RestartHint> {
        self.tools.get(name).map(|t| t.restart_hint())
    }

    /// Runs a tool to completion, uncancellably. Prefer [`ToolRegistry::run`].
    pub async fn dispatch(&self, name: &str, args: Value) -> ToolResult {
        match self.tools.get(name) {
            Some(tool) => tool.execute_async(args).await,
            None => Err(ToolError::UnknownTool(name.to_string())),
        }
    }

    /// Starts a cancellable execution; `None` for names outside the registry
    /// (MCP and synthetic tools are the caller's).
    pub fn run(&self, name: &str, args: Value) -> Option<Box<dyn ToolExecution + '_>> {
        self.tools.get(name).map(|t| t.run(args))
    }

    /// Validates a call's arguments without side effects (see
    /// `Tool::check_args`); run it before the approval gate.
    pub fn check_args(&self, name: &str, args: &Value) -> Result<(), ToolError> {
        match self.tools.get(name) {
            Some(tool) => tool.check_args(args),
            None => Err(ToolError::UnknownTool(name.to_string())),
        }
    }

    /// Arguments as they will run in `workdir` (see `Tool::effective_args`).
    pub fn effective_args(&self, name: &str, args: Value, workdir: &Path) -> Value {
        // `null` (no arguments, as some models send) means `{}` to every
        // tool, so it must get the same defaults, working directory included.
        let args = if args.is_null() {
            Value::Object(Default::default())
        } else {
            args
        };
        match self.tools.get(name) {
            Some(t) => t.effective_args(args, workdir),
            None => args,
        }
    }

    /// A human label for a call, within the length's limit: the tool's own
    /// `describe`, else (a tool outside the registry) its name. Session and
    /// MCP tools are labelled by a [`ToolSet`](crate::ToolSet) holding them.
    pub fn describe_call(&self, name: &str, args: &Value, length: ToolDescriptionLength) -> String {
        let label = match self.tools.get(name) {
            Some(tool) => tool.describe(args, length),
            None => name.to_string(),
        };
        truncate_label(&label, length.max_chars())
    }

    /// The single viewable file a call acts on, if any.
    pub fn target_path(&self, name: &str, args: &Value) -> Option<String> {
        self.tools.get(name).and_then(|tool| tool.target_path(args))
    }
}

/// The catalogue entry of `tool`, as the tool itself declares it.
pub fn tool_info(tool: &dyn Tool, kind: ToolKind) -> ToolInfo {
    ToolInfo {
        name: tool.name().to_string(),
        description: tool.description().to_string(),
        category: Some(tool.category()),
        kind,
        sub_agents_only: tool.sub_agents_only(),
        root_agent_only: tool.root_agent_only(),
    }
}
