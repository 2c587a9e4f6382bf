//! Tool visibility: a tool whose first rule match by name is `deny` is not
//! offered to the model at all — root agent, sub-agents and the lazy config
//! group alike. Rules with a path pattern (or a source) do not count here: a
//! path-specific deny is enforced at execution, and the tool stays offered.
//! MCP tools (`mcp__…`) are always offered; the gate governs them when called.

use serde_json::Value;
use skald_core_api::{DefView, ToolName, ToolTraits};
use skald_tools::builtin_traits;

use crate::rule::{Action, RulesSnapshot};
use crate::run_context::RunContext;

/// The name of an OpenAI-style tool definition (`function.name`, or a flat
/// `name`).
pub fn tool_def_name(def: &Value) -> Option<&str> {
    def.def_name()
}

/// Whether `tool`, declaring `traits` (for class rules like `@fs_write`),
/// is hidden from the model for a session in `group` (and, for
/// agent-specific rules, for `agent_id`).
pub fn is_hidden(
    tool: &str,
    traits: ToolTraits,
    rules: &RulesSnapshot,
    group: &str,
    agent_id: Option<&str>,
) -> bool {
    if ToolName::parse(tool).mcp_server().is_some() {
        return false;
    }
    rules
        .ordered(group)
        .find(|r| r.matches_name(tool, traits, agent_id))
        .is_some_and(|r| r.action == Action::Deny)
}

/// `defs` without the tools the session's group denies by name. Order is
/// kept; a definition without a name is kept (it cannot be called by name).
/// Agent-specific rules are not applied (see [`visible_tool_defs_for_agent`]).
pub fn visible_tool_defs<D: DefView>(
    defs: Vec<D>,
    rules: &RulesSnapshot,
    ctx: &RunContext,
) -> Vec<D> {
    visible_tool_defs_for_agent(defs, rules, ctx, None)
}

/// [`visible_tool_defs`] for one agent, so rules restricted to that agent
/// apply too. Class rules see the built-in tools' declared traits.
pub fn visible_tool_defs_for_agent<D: DefView>(
    defs: Vec<D>,
    rules: &RulesSnapshot,
    ctx: &RunContext,
    agent_id: Option<&str>,
) -> Vec<D> {
    visible_tool_defs_with_traits(defs, rules, ctx, agent_id, builtin_traits)
}

/// [`visible_tool_defs_for_agent`] with each tool's traits from `traits_of`
/// (the round's `ToolSet`), so a session tool declared as a writer is
/// hidden by an `@fs_write` deny like `write_file`.
pub fn visible_tool_defs_with_traits<D: DefView>(
    defs: Vec<D>,
    rules: &RulesSnapshot,
    ctx: &RunContext,
    agent_id: Option<&str>,
    traits_of: impl Fn(&str) -> ToolTraits,
) -> Vec<D> {
    defs.into_iter()
        .filter(|def| {
            def.def_name().is_none_or(|name| {
                !is_hidden(
                    name,
                    traits_of(name),
                    rules,
                    &ctx.permission_group,
                    agent_id,
                )
            })
        })
        .collect()
}
