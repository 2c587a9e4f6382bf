//! [`ToolSet`]: the tools of one round, assembled from sources — the
//! built-in [`ToolRegistry`], the session's InterfaceTools (built for one
//! session or frame with what they need captured), MCP — and the one place
//! that both offers definitions and dispatches calls. The driver, crash
//! resume, the approval gate (category, source, target path, traits) and
//! labels all ask the set, so a tool the model can call is a tool every part
//! of Skald knows, and nothing is a special case by name.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use skald_core_api::{
    BoxFuture, CallRoute, RestartHint, Tool, ToolCategory, ToolDef, ToolDescriptionLength,
    ToolError, ToolExecution, ToolName, ToolPresentation, ToolTraits, truncate_label,
};

use crate::ToolRegistry;

/// Where a tool of the set comes from (`known_tools.source`, rule filters).
pub mod source {
    pub const BUILTIN: &str = "builtin";
    pub const SYNTHETIC: &str = "synthetic";
    pub const MCP: &str = "mcp";
    /// Tools that only label stored calls, never offered to any model: a
    /// background task's delivered ending, a legacy alias.
    pub const HISTORY: &str = "history";
}

/// A provider of tools for one round.
pub trait ToolSource: Send + Sync {
    /// `builtin`, `synthetic`, `mcp`.
    fn source(&self) -> &str;
    /// The tools it offers now.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// Waits, as long as the source allows, until the tools of `groups`
    /// (the grants of the turn about to start) can be listed: an MCP server
    /// still connecting. The default has nothing to wait for.
    fn prepare<'a>(&'a self, _groups: &'a [String]) -> BoxFuture<'a, ()> {
        Box::pin(std::future::ready(()))
    }
}

impl ToolSource for ToolRegistry {
    fn source(&self) -> &str {
        source::BUILTIN
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.all()
    }
}

/// Labels and the viewable path of a call: what a card needs, from a
/// round's [`ToolSet`] or, where no round runs (history, the Inbox), the
/// registry.
pub trait CallLabels {
    fn describe_call(&self, name: &str, args: &Value, length: ToolDescriptionLength) -> String;
    fn target_path(&self, name: &str, args: &Value) -> Option<String>;
    /// What the tool declares it does to files (default for unknown names).
    fn traits_of(&self, name: &str) -> ToolTraits;
    /// How the tool wants its calls shown (generic for unknown names).
    fn presentation_of(&self, name: &str) -> ToolPresentation;
}

impl CallLabels for ToolRegistry {
    fn describe_call(&self, name: &str, args: &Value, length: ToolDescriptionLength) -> String {
        ToolRegistry::describe_call(self, name, args, length)
    }
    fn target_path(&self, name: &str, args: &Value) -> Option<String> {
        ToolRegistry::target_path(self, name, args)
    }
    fn traits_of(&self, name: &str) -> ToolTraits {
        self.get(name).map(|t| t.traits()).unwrap_or_default()
    }
    fn presentation_of(&self, name: &str) -> ToolPresentation {
        self.get(name).map(|t| t.presentation()).unwrap_or_default()
    }
}

impl CallLabels for ToolSet {
    fn describe_call(&self, name: &str, args: &Value, length: ToolDescriptionLength) -> String {
        ToolSet::describe_call(self, name, args, length)
    }
    fn target_path(&self, name: &str, args: &Value) -> Option<String> {
        ToolSet::target_path(self, name, args)
    }
    fn traits_of(&self, name: &str) -> ToolTraits {
        ToolSet::traits_of(self, name)
    }
    fn presentation_of(&self, name: &str) -> ToolPresentation {
        ToolSet::presentation_of(self, name)
    }
}

/// Who a round is assembled for: what decides which tools are offered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Audience {
    /// 0 for the root agent, ≥ 1 for sub-agents.
    pub depth: u32,
    /// Whether the lazy Config group was activated (`activate_tools`).
    pub config_granted: bool,
}

#[derive(Clone)]
struct Entry {
    tool: Arc<dyn Tool>,
    source: String,
}

/// The tools of one round, by name. Later sources replace earlier ones of
/// the same name (a session's tool can stand in for a built-in).
///
/// Beside what the round offers, the set holds the session's tools this
/// frame is not offered (another kind of agent's, a background session's,
/// a task's delivered ending): a stored or stray call of one still gets its
/// label and path from the tool itself. Those are never offered, run,
/// checked or gated here.
#[derive(Clone, Default)]
pub struct ToolSet {
    entries: BTreeMap<String, Entry>,
    described: BTreeMap<String, Entry>,
}

impl ToolSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Assembles a set from `sources`, in order.
    pub fn from_sources(sources: &[&dyn ToolSource]) -> Self {
        let mut set = Self::new();
        for s in sources {
            set.add_source(*s);
        }
        set
    }

    pub fn add_source(&mut self, source: &dyn ToolSource) {
        for tool in source.tools() {
            self.add(tool, source.source());
        }
    }

    /// Adds one tool (an InterfaceTool built for this session or frame).
    pub fn add(&mut self, tool: Arc<dyn Tool>, source: &str) {
        self.described.remove(tool.name());
        self.entries.insert(
            tool.name().to_string(),
            Entry {
                tool,
                source: source.to_string(),
            },
        );
    }

    /// Adds a tool this round does not offer, only to label its calls; a
    /// tool of that name the round offers wins.
    pub fn add_described(&mut self, tool: Arc<dyn Tool>, source: &str) {
        if self.entries.contains_key(tool.name()) {
            return;
        }
        self.described.insert(
            tool.name().to_string(),
            Entry {
                tool,
                source: source.to_string(),
            },
        );
    }

    /// Every tool of the set, offered this round or only described, with
    /// its source, sorted by name.
    pub fn every_tool(&self) -> Vec<(&Arc<dyn Tool>, &str)> {
        let mut all: Vec<_> = self
            .entries
            .values()
            .chain(self.described.values())
            .map(|e| (&e.tool, e.source.as_str()))
            .collect();
        all.sort_by(|a, b| a.0.name().cmp(b.0.name()));
        all
    }

    /// The tool that labels a call: the offered one, else a described one.
    fn labeller(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.get(name)
            .or_else(|| self.described.get(name).map(|e| &e.tool))
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.entries.get(name).map(|e| &e.tool)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    /// What the model is offered, sorted by name: sub-agent-only tools for
    /// sub-agents, root-only tools for the root, the Config group only once
    /// granted. (The approval visibility filter runs after this.)
    pub fn definitions(&self, audience: Audience) -> Vec<ToolDef> {
        self.entries
            .values()
            .map(|e| e.tool.as_ref())
            .filter(|t| {
                let depth_ok = if audience.depth == 0 {
                    !t.sub_agents_only()
                } else {
                    !t.root_agent_only()
                };
                depth_ok && (audience.config_granted || t.category() != ToolCategory::Config)
            })
            .map(|t| t.definition())
            .collect()
    }

    /// The source of a tool in the set; for an unknown name, `mcp` if it is
    /// spelled as an MCP tool (its server may be gone), else `None`.
    pub fn source_of(&self, name: &str) -> Option<String> {
        match self.entries.get(name) {
            Some(e) => Some(e.source.clone()),
            None => ToolName::parse(name)
                .mcp_server()
                .map(|_| source::MCP.to_string()),
        }
    }

    /// The catalogue category; `None` for MCP tools (the spec's
    /// `category_of`), which rules match by name and source instead.
    pub fn category_of(&self, name: &str) -> Option<ToolCategory> {
        self.entries
            .get(name)
            .filter(|e| e.source != source::MCP)
            .map(|e| e.tool.category())
    }

    pub fn traits_of(&self, name: &str) -> ToolTraits {
        self.get(name).map(|t| t.traits()).unwrap_or_default()
    }

    pub fn presentation_of(&self, name: &str) -> ToolPresentation {
        self.labeller(name)
            .map(|t| t.presentation())
            .unwrap_or_default()
    }

    /// How the driver runs a call (the tool's declaration); a name not in
    /// the set is an execution, which fails as an unknown tool.
    pub fn route_of(&self, name: &str, args: &Value) -> CallRoute {
        self.get(name).map_or(CallRoute::Execute, |t| t.route(args))
    }

    pub fn restart_hint(&self, name: &str) -> Option<RestartHint> {
        self.get(name).map(|t| t.restart_hint())
    }

    /// Starts a cancellable execution; `None` for a name not in the set.
    pub fn run(&self, name: &str, args: Value) -> Option<Box<dyn ToolExecution + '_>> {
        self.get(name).map(|t| t.run(args))
    }

    /// Validates arguments without side effects, before the gate.
    pub fn check_args(&self, name: &str, args: &Value) -> Result<(), ToolError> {
        match self.get(name) {
            Some(t) => t.check_args(args),
            None => Err(ToolError::UnknownTool(name.to_string())),
        }
    }

    /// Arguments as they will run in `workdir`; `null` means `{}`.
    pub fn effective_args(&self, name: &str, args: Value, workdir: &Path) -> Value {
        let args = if args.is_null() {
            Value::Object(Default::default())
        } else {
            args
        };
        match self.get(name) {
            Some(t) => t.effective_args(args, workdir),
            None => args,
        }
    }

    /// The label of any call: its tool's own `describe` (offered this
    /// round or not), else — a tool since removed — its name.
    pub fn describe_call(&self, name: &str, args: &Value, length: ToolDescriptionLength) -> String {
        let label = match self.labeller(name) {
            Some(t) => t.describe(args, length),
            None => name.to_string(),
        };
        truncate_label(&label, length.max_chars())
    }

    /// The single viewable file a call acts on, if any, from its tool.
    pub fn target_path(&self, name: &str, args: &Value) -> Option<String> {
        self.labeller(name).and_then(|t| t.target_path(args))
    }
}
