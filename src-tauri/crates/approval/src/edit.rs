//! Editing a stored rule through a form that may not carry every field.

use skald_store::{ApprovalRuleRow, NewApprovalRule, RuleAction};

/// The content rule `existing` gets from `edited`: the agent and source
/// filters it does not set are kept from `existing`. The rule editor does not
/// show those filters, so an unset one means "not edited"; dropping it would
/// silently widen the rule to every agent or source.
pub fn edited_rule(existing: &ApprovalRuleRow, edited: NewApprovalRule) -> NewApprovalRule {
    NewApprovalRule {
        agent_id: edited.agent_id.or_else(|| existing.agent_id.clone()),
        source: edited.source.or_else(|| existing.source.clone()),
        ..edited
    }
}

/// `rule` with the priority it needs to take effect: a deny the person adds
/// (or edits) comes before every allow already in its group — an earlier
/// "always allow" included — or it would silently lose to them, first match
/// winning. Other actions, and denies already ahead, are unchanged.
/// `except_id` is the rule being edited (its own old row does not count).
pub fn with_deny_precedence(
    rule: NewApprovalRule,
    existing: &[ApprovalRuleRow],
    except_id: Option<i64>,
) -> NewApprovalRule {
    if rule.action != RuleAction::Deny {
        return rule;
    }
    let highest_allow = existing
        .iter()
        .filter(|r| Some(r.id) != except_id)
        .filter(|r| r.group_name == rule.group_name && r.action == RuleAction::Allow)
        .map(|r| r.priority)
        .max();
    match highest_allow {
        Some(p) if p >= rule.priority => NewApprovalRule {
            priority: p.saturating_add(1),
            ..rule
        },
        _ => rule,
    }
}

#[cfg(test)]
mod tests {
    use skald_store::RuleAction;

    use super::*;

    fn row(agent: Option<&str>, source: Option<&str>) -> ApprovalRuleRow {
        ApprovalRuleRow {
            id: 7,
            group_name: "dev".to_string(),
            agent_id: agent.map(str::to_string),
            source: source.map(str::to_string),
            tool_pattern: "read_file".to_string(),
            path_pattern: None,
            action: RuleAction::Deny,
            note: None,
            priority: 0,
            created_at: 0,
        }
    }

    fn edit(agent: Option<&str>, source: Option<&str>) -> NewApprovalRule {
        NewApprovalRule {
            group_name: "ops".to_string(),
            agent_id: agent.map(str::to_string),
            source: source.map(str::to_string),
            tool_pattern: "write_file".to_string(),
            path_pattern: Some("src/*".to_string()),
            action: RuleAction::Allow,
            note: Some("n".to_string()),
            priority: 3,
        }
    }

    #[test]
    fn unset_filters_are_kept_from_the_stored_rule() {
        let got = edited_rule(&row(Some("a1"), Some("mcp")), edit(None, None));
        assert_eq!(got.agent_id.as_deref(), Some("a1"));
        assert_eq!(got.source.as_deref(), Some("mcp"));
        // Everything the form does carry is the edit's.
        assert_eq!(
            got,
            NewApprovalRule {
                agent_id: Some("a1".to_string()),
                source: Some("mcp".to_string()),
                ..edit(None, None)
            }
        );
    }

    #[test]
    fn filters_the_edit_sets_win() {
        let got = edited_rule(
            &row(Some("a1"), Some("mcp")),
            edit(Some("a2"), Some("builtin")),
        );
        assert_eq!(got.agent_id.as_deref(), Some("a2"));
        assert_eq!(got.source.as_deref(), Some("builtin"));
    }

    #[test]
    fn a_rule_without_filters_stays_without() {
        assert_eq!(
            edited_rule(&row(None, None), edit(None, None)),
            edit(None, None)
        );
    }

    /// A stored rule of `group` with `action` at `priority`.
    fn ranked(id: i64, group: &str, action: RuleAction, priority: i64) -> ApprovalRuleRow {
        ApprovalRuleRow {
            id,
            group_name: group.to_string(),
            action,
            priority,
            ..row(None, None)
        }
    }

    #[test]
    fn a_deny_goes_ahead_of_its_groups_allows_only() {
        let rules = [
            ranked(1, "default", RuleAction::Allow, 500),
            ranked(2, "default", RuleAction::Require, 800),
            ranked(3, "other", RuleAction::Allow, 900),
        ];
        let priority_of = |action, priority, except_id| {
            let rule = NewApprovalRule {
                group_name: "default".to_string(),
                action,
                priority,
                ..edit(None, None)
            };
            with_deny_precedence(rule, &rules, except_id).priority
        };
        for (action, priority, except_id, want) in [
            (RuleAction::Deny, 100, None, 501),
            (RuleAction::Deny, 700, None, 700),
            (RuleAction::Allow, 100, None, 100),
            (RuleAction::Require, 100, None, 100),
            // Editing rule 1 itself into a deny: its own old row does not count.
            (RuleAction::Deny, 100, Some(1), 100),
        ] {
            assert_eq!(
                priority_of(action, priority, except_id),
                want,
                "{action:?} at {priority}"
            );
        }
    }
}
