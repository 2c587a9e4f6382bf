//! Editing a stored rule through a form that may not carry every field.

use skald_store::{ApprovalRuleRow, NewApprovalRule};

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
}
