//! "Always allow this": the rule an approval card saves, built from the call
//! as the gate sees it. The rule must
//!
//! - really decide the call it was made from (a rule that loses to a seeded
//!   `require` is a button that does nothing);
//! - cover no more than the call's directory and below, as an absolute
//!   pattern, so it neither reaches the rest of the disk nor follows the
//!   group into other sessions' working directories;
//! - never let through a call that a deny rule stops.
//!
//! [`always_allow_rule`] is pure: the call's path was canonicalised when its
//! [`CallContext`] was built.

use std::path::Path;

use skald_core_api::ToolTraits;
use skald_store::{DEFAULT_GROUP, NewApprovalRule, RuleAction};

use crate::call::CallContext;
use crate::error::{ApprovalError, Result};
use crate::evaluate::evaluate;
use crate::pattern::{PathPattern, ToolPattern};
use crate::rule::{Action, Rule, RulesSnapshot};
use crate::run_context::RunContext;
use crate::seed::{MEMORY_ALLOW_PRIORITY, SECRETS_DENY_PRIORITY, TOOL_RULE_PRIORITY};

/// Priority of an "always allow" rule: above the seeded per-tool rules, so
/// it beats their `require` (`execute_cmd`, `restart`), and below the seeded
/// `memory/` allow and `secrets/` deny, so the deny still comes first. It is
/// lowered further below any deny of the group that names the same tool.
pub const ALWAYS_ALLOW_PRIORITY: i64 = 500;

const _: () = assert!(
    TOOL_RULE_PRIORITY < ALWAYS_ALLOW_PRIORITY
        && ALWAYS_ALLOW_PRIORITY < MEMORY_ALLOW_PRIORITY
        && MEMORY_ALLOW_PRIORITY < SECRETS_DENY_PRIORITY
);

/// The note stored with an "always allow" rule.
pub const ALWAYS_ALLOW_NOTE: &str = "always allow, from an approval";

/// Stands for the rule's id before it is saved. The store gives a new rule an
/// id above every existing one, so among equal priorities it sorts last, as
/// this does.
const UNSAVED_ID: i64 = i64::MAX;

/// The rule "always allow" saves for `call` in the session's group
/// (`ctx.permission_group`), given the current `rules`.
///
/// - Tool: the call's tool, by exact name.
/// - Path: a call with a path gets the absolute canonical directory of its
///   target and below (`<dir>/*`): the file's directory, or for
///   `list_files` / `grep_files` the searched path itself. A target directly
///   under the filesystem root gets exactly that path instead of `/*`, and
///   the root itself is refused. A call without a path gets a tool-only
///   rule.
/// - Priority: [`ALWAYS_ALLOW_PRIORITY`], lowered below every deny of the
///   group whose tool pattern names the tool. Whether such a deny's paths
///   meet the rule's cannot be settled without the disk (symlinks and case
///   variants reach a deny by other spellings), so any deny naming the tool
///   counts.
///
/// Errors:
/// - [`ApprovalError::AlwaysAllowOverridesDeny`]: the group is not `default`
///   and a `default` deny names the tool. A group's own rules all come before
///   `default`'s, so no priority keeps that deny first; the group must carry
///   its own copy of the deny.
/// - [`ApprovalError::AlwaysAllowHasNoEffect`]: another rule would still
///   decide this call first (e.g. a person's own `require` above
///   [`ALWAYS_ALLOW_PRIORITY`]).
/// - [`ApprovalError::InvalidToolPattern`] / [`ApprovalError::InvalidPathPattern`]:
///   the tool name or the directory cannot be written as an exact pattern
///   (a `*` or `@class` in the name, a `*` or non-UTF-8 in the path, the
///   filesystem root).
pub fn always_allow_rule(
    rules: &RulesSnapshot,
    call: &CallContext,
    ctx: &RunContext,
) -> Result<NewApprovalRule> {
    let group = ctx.permission_group.as_str();
    let tool = call.tool();
    if ToolPattern::parse(tool)? != ToolPattern::Exact(tool.to_string()) {
        return Err(ApprovalError::InvalidToolPattern {
            pattern: tool.to_string(),
            reason: "the tool name would name more than this tool as a pattern".to_string(),
        });
    }
    if group != DEFAULT_GROUP
        && let Some(deny) = uncovered_default_deny(rules, group, tool, call.traits())
    {
        return Err(ApprovalError::AlwaysAllowOverridesDeny {
            group: group.to_string(),
            deny: deny.to_ref(),
        });
    }
    let priority = denies_naming(rules, group, tool, call.traits())
        .into_iter()
        .map(|d| d.priority.saturating_sub(1))
        .fold(ALWAYS_ALLOW_PRIORITY, i64::min);
    let new = NewApprovalRule {
        group_name: group.to_string(),
        agent_id: None,
        source: None,
        tool_pattern: tool.to_string(),
        path_pattern: path_scope(call)?,
        action: RuleAction::Allow,
        note: Some(ALWAYS_ALLOW_NOTE.to_string()),
        priority,
    };
    check_decides(rules, call, ctx, &new)?;
    Ok(new)
}

/// The deny rules of `group` itself whose tool pattern names `tool`.
fn denies_naming<'a>(
    rules: &'a RulesSnapshot,
    group: &str,
    tool: &str,
    traits: ToolTraits,
) -> Vec<&'a Rule> {
    rules
        .iter()
        .filter(|r| {
            r.group == group && r.action == Action::Deny && r.tool_pattern.matches(tool, traits)
        })
        .collect()
}

/// A `default` deny naming `tool` that `group` has no copy of (same
/// patterns, filters no narrower). Such a copy names the tool too, so the
/// priority chosen puts it before the new rule.
fn uncovered_default_deny<'a>(
    rules: &'a RulesSnapshot,
    group: &str,
    tool: &str,
    traits: ToolTraits,
) -> Option<&'a Rule> {
    let own = denies_naming(rules, group, tool, traits);
    denies_naming(rules, DEFAULT_GROUP, tool, traits)
        .into_iter()
        .find(|d| {
            !own.iter().any(|g| {
                g.tool_pattern == d.tool_pattern
                    && g.path_pattern == d.path_pattern
                    && g.agent_id
                        .as_ref()
                        .is_none_or(|a| d.agent_id.as_ref() == Some(a))
                    && g.source
                        .as_ref()
                        .is_none_or(|s| d.source.as_ref() == Some(s))
            })
        })
}

/// The path pattern of the rule: the target's directory and below, absolute.
fn path_scope(call: &CallContext) -> Result<Option<String>> {
    let Some(path) = call.path() else {
        return Ok(None);
    };
    let target = path.canonical();
    if is_root(target) {
        // No pattern names `/` alone (`/` and `/*` are every path).
        return Err(ApprovalError::InvalidPathPattern {
            pattern: utf8(target)?.to_string(),
            reason: "a rule for the filesystem root would cover every path".to_string(),
        });
    }
    // A directory tool's path names the directory it works in, not a file, so
    // the rule covers that directory rather than its parent.
    let dir = if call.traits().path_defaults_to_workdir {
        target
    } else {
        target.parent().unwrap_or(target)
    };
    // `/*` would be every path on disk.
    let text = if is_root(dir) {
        utf8(target)?.to_string()
    } else {
        format!("{}/*", utf8(dir)?)
    };
    PathPattern::parse(&text)?;
    Ok(Some(text))
}

fn is_root(dir: &Path) -> bool {
    dir.parent().is_none()
}

fn utf8(p: &Path) -> Result<&str> {
    p.to_str().ok_or_else(|| ApprovalError::InvalidPathPattern {
        pattern: p.to_string_lossy().into_owned(),
        reason: "not valid UTF-8".to_string(),
    })
}

/// Fails unless `new`, added to `rules`, is the rule that decides `call`.
fn check_decides(
    rules: &RulesSnapshot,
    call: &CallContext,
    ctx: &RunContext,
    new: &NewApprovalRule,
) -> Result<()> {
    let mut rule = Rule::new(
        UNSAVED_ID,
        &new.group_name,
        &new.tool_pattern,
        Action::Allow,
    )?
    .with_priority(new.priority);
    if let Some(p) = &new.path_pattern {
        rule = rule.with_path(p)?;
    }
    let with_new = RulesSnapshot::new(rules.iter().cloned().chain([rule]));
    let decision = evaluate(&with_new, call, ctx);
    match &decision.rule {
        Some(r) if r.id == UNSAVED_ID && decision.action == Action::Allow => Ok(()),
        Some(r) => Err(ApprovalError::AlwaysAllowHasNoEffect {
            decided_by: format!("{r} ({})", r.action),
        }),
        None => Err(ApprovalError::AlwaysAllowHasNoEffect {
            decided_by: decision.reason,
        }),
    }
}
