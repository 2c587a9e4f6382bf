//! Labels of delegations (`execute_task`, `execute_subtask`, a delivered
//! `task_completed`, the legacy `run_subtask`), shared by those tools'
//! own `describe` so every card of a delegation reads alike, and the
//! legacy alias's own label tool.

use serde_json::Value;
use skald_core_api::{Tool, ToolCategory, ToolDescriptionLength, truncate_label};
use skald_tools::tool_names as tn;

/// `run_subtask`, the legacy name of `execute_subtask`: only labels the
/// calls of it older histories hold; never offered, never run.
pub(crate) struct LegacyRunSubtask;

impl Tool for LegacyRunSubtask {
    fn name(&self) -> &str {
        tn::RUN_SUBTASK
    }

    fn description(&self) -> &str {
        "The former name of execute_subtask."
    }

    fn parameters_schema(&self) -> Value {
        serde_json::json!({"type": "object"})
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        truncate_label(
            &describe_delegation(self.name(), "", args),
            length.max_chars(),
        )
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Subagent
    }
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The compact mark of a delegation's `mode` in its label: sync ⚡,
/// async 🚀, cron 📅 (none without a mode).
pub(crate) fn mode_mark(args: &Value) -> &'static str {
    match str_arg(args, "mode") {
        Some("sync") => " ⚡",
        Some("async") => " 🚀",
        Some("cron") => " 📅",
        _ => "",
    }
}

/// A delegation's label: `execute_task ⚡ → software-engineer: Refactor
/// auth module` — the agent, then the description (else the title).
pub(crate) fn describe_delegation(name: &str, mark: &str, args: &Value) -> String {
    let what = str_arg(args, "description").or_else(|| str_arg(args, "title"));
    match (str_arg(args, "agent_id"), what) {
        (Some(agent), Some(what)) => format!("{name}{mark} → {agent}: {what}"),
        (Some(agent), None) => format!("{name}{mark} → {agent}"),
        (None, Some(what)) => format!("{name}{mark} → {what}"),
        (None, None) => format!("{name}{mark}"),
    }
}
