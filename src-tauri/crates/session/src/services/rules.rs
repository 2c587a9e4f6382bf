//! Permission groups and approval rules: CRUD over the store, validated by
//! the approval crate (one catch-all per group, known patterns) before
//! saving; every change invalidates the gate's cached rules.

use skald_approval::{CallContext, edited_rule};
use skald_protocol::{GroupView, RuleActionView, RuleInput, RuleView};
use skald_store::{ApprovalRuleRow, NewApprovalRule, PermissionGroupRow, RuleAction};

use super::ServiceError;
use crate::assemble::arguments_value;
use crate::{ApprovalManager, ChatSessionHandler};

fn action_view(a: RuleAction) -> RuleActionView {
    match a {
        RuleAction::Allow => RuleActionView::Allow,
        RuleAction::Require => RuleActionView::Require,
        RuleAction::Deny => RuleActionView::Deny,
    }
}

fn action_row(a: RuleActionView) -> RuleAction {
    match a {
        RuleActionView::Allow => RuleAction::Allow,
        RuleActionView::Require => RuleAction::Require,
        RuleActionView::Deny => RuleAction::Deny,
    }
}

/// A stored rule as the UI shows it.
pub fn rule_view(r: ApprovalRuleRow) -> RuleView {
    RuleView {
        id: r.id,
        group: r.group_name,
        agent_id: r.agent_id,
        source: r.source,
        tool_pattern: r.tool_pattern,
        path_pattern: r.path_pattern,
        action: action_view(r.action),
        note: r.note,
        priority: r.priority,
    }
}

fn group_view(g: PermissionGroupRow) -> GroupView {
    GroupView {
        name: g.name,
        description: g.description,
        builtin: g.builtin,
    }
}

/// The rule a form describes. `RuleInput` has no agent or source, so those
/// are unset here; an update keeps the stored rule's (`edited_rule`).
pub fn new_rule(input: RuleInput) -> NewApprovalRule {
    let trim = |s: Option<String>| s.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    NewApprovalRule {
        group_name: input.group.trim().to_string(),
        agent_id: None,
        source: None,
        tool_pattern: input.tool_pattern.trim().to_string(),
        path_pattern: trim(input.path_pattern),
        action: action_row(input.action),
        note: trim(input.note),
        priority: input.priority,
    }
}

pub async fn list_groups(approvals: &ApprovalManager) -> Result<Vec<GroupView>, ServiceError> {
    let rows = approvals.store().approval().list_groups().await?;
    Ok(rows.into_iter().map(group_view).collect())
}

/// Creates a group, optionally copying every rule of `copy_from` (its
/// catch-all excepted: only one may exist per group).
pub async fn create_group(
    approvals: &ApprovalManager,
    name: &str,
    description: &str,
    copy_from: Option<&str>,
) -> Result<GroupView, ServiceError> {
    let name = name.trim().to_string();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ServiceError::invalid(
            "a group name uses letters, digits, `-` and `_` only",
        ));
    }
    let repo = approvals.store().approval();
    let g = repo.create_group(&name, description.trim()).await?;
    if let Some(src) = copy_from {
        for r in repo.list_rules(src).await? {
            if r.tool_pattern == "*" && r.path_pattern.is_none() {
                continue;
            }
            let copy = NewApprovalRule {
                group_name: name.clone(),
                agent_id: r.agent_id,
                source: r.source,
                tool_pattern: r.tool_pattern,
                path_pattern: r.path_pattern,
                action: r.action,
                note: r.note,
                priority: r.priority,
            };
            repo.add_rule(&copy).await?;
        }
    }
    approvals.invalidate_rules();
    Ok(group_view(g))
}

pub async fn delete_group(approvals: &ApprovalManager, name: &str) -> Result<bool, ServiceError> {
    let deleted = approvals.store().approval().delete_group(name).await?;
    approvals.invalidate_rules();
    Ok(deleted)
}

pub async fn list_rules(
    approvals: &ApprovalManager,
    group: &str,
) -> Result<Vec<RuleView>, ServiceError> {
    let rows = approvals.store().approval().list_rules(group).await?;
    Ok(rows.into_iter().map(rule_view).collect())
}

pub async fn add_rule(
    approvals: &ApprovalManager,
    input: RuleInput,
) -> Result<RuleView, ServiceError> {
    Ok(rule_view(approvals.add_rule(&new_rule(input)).await?))
}

/// Replaces rule `id` with the form's content, keeping the stored rule's
/// agent and source (the form carries neither).
pub async fn update_rule(
    approvals: &ApprovalManager,
    id: i64,
    input: RuleInput,
) -> Result<RuleView, ServiceError> {
    let existing = approvals
        .store()
        .approval()
        .get_rule(id)
        .await?
        .ok_or_else(|| ServiceError::NotFound(format!("no approval rule {id}")))?;
    let row = approvals
        .update_rule(id, &edited_rule(&existing, new_rule(input)))
        .await?;
    Ok(rule_view(row))
}

pub async fn delete_rule(approvals: &ApprovalManager, id: i64) -> Result<bool, ServiceError> {
    Ok(approvals.delete_rule(id).await?)
}

/// The rule "always allow" would save for a stored call (see
/// `skald_approval::always_allow_rule`), over the rules and RunContext the
/// gate decides with. The call is judged as its own round judged it: its
/// traits, category and source come from the tools of the frame it was made
/// in (a session tool declared as a writer is scoped like `write_file`),
/// never from its name.
pub async fn always_allow_rule(
    sessions: &ChatSessionHandler,
    approvals: &ApprovalManager,
    tool_call_id: &str,
) -> Result<NewApprovalRule, ServiceError> {
    let call = approvals
        .store()
        .tool_calls()
        .get(tool_call_id)
        .await?
        .ok_or_else(|| ServiceError::NotFound(format!("no tool call {tool_call_id}")))?;
    let (tools, agent) = sessions.tools_of_call(&call).await?;
    let rules = approvals.rules().await?;
    let ctx = approvals
        .run_context(&call.session_id, None)
        .await?
        .canonicalized();
    let args = arguments_value(&call.arguments);
    let mut cc =
        CallContext::for_run_with_traits(&call.name, tools.traits_of(&call.name), &args, &ctx)
            .with_agent(agent);
    if let Some(source) = tools.source_of(&call.name) {
        cc = cc.with_source(source);
    }
    if let Some(category) = tools.category_of(&call.name) {
        cc = cc.with_category(category);
    }
    Ok(skald_approval::always_allow_rule(&rules, &cc, &ctx)?)
}
