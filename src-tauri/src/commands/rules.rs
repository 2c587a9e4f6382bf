//! Permission groups and approval rules: thin CRUD over the store, validated
//! by the approval crate (one catch-all, known patterns) before saving.

use skald_approval::edited_rule;
use skald_protocol::{ErrorCode, GroupView, IpcError, RuleActionView, RuleInput, RuleView};
use skald_store::{ApprovalRuleRow, NewApprovalRule, RuleAction, StoreError};

use crate::AppState;

fn storage(e: StoreError) -> IpcError {
    match e {
        StoreError::NotFound { .. } => IpcError::new(ErrorCode::NotFound, e.to_string()),
        StoreError::Invalid(_) => IpcError::new(ErrorCode::InvalidInput, e.to_string()),
        other => IpcError::new(ErrorCode::Storage, other.to_string()),
    }
}

fn invalid(e: impl std::fmt::Display) -> IpcError {
    IpcError::new(ErrorCode::InvalidInput, e.to_string())
}

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

pub(crate) fn rule_view(r: ApprovalRuleRow) -> RuleView {
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

/// The rule a form describes. `RuleInput` has no agent or source, so those
/// are unset here; an update keeps the stored rule's (`edited_rule`).
fn new_rule(input: RuleInput) -> NewApprovalRule {
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

#[tauri::command]
pub async fn list_groups(state: tauri::State<'_, AppState>) -> Result<Vec<GroupView>, IpcError> {
    let rows = state
        .store
        .approval()
        .list_groups()
        .await
        .map_err(storage)?;
    Ok(rows
        .into_iter()
        .map(|g| GroupView {
            name: g.name,
            description: g.description,
            builtin: g.builtin,
        })
        .collect())
}

/// Creates a group, optionally copying every rule of `copy_from`.
#[tauri::command]
pub async fn create_group(
    state: tauri::State<'_, AppState>,
    name: String,
    description: String,
    copy_from: Option<String>,
) -> Result<GroupView, IpcError> {
    let name = name.trim().to_string();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(invalid(
            "a group name uses letters, digits, `-` and `_` only",
        ));
    }
    let repo = state.store.approval();
    let g = repo
        .create_group(&name, description.trim())
        .await
        .map_err(storage)?;
    if let Some(src) = copy_from {
        for r in repo.list_rules(&src).await.map_err(storage)? {
            // Catch-alls stay with their group: only one may exist.
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
            repo.add_rule(&copy).await.map_err(storage)?;
        }
    }
    state.invalidate_rules();
    Ok(GroupView {
        name: g.name,
        description: g.description,
        builtin: g.builtin,
    })
}

#[tauri::command]
pub async fn delete_group(
    state: tauri::State<'_, AppState>,
    name: String,
) -> Result<bool, IpcError> {
    let deleted = state
        .store
        .approval()
        .delete_group(&name)
        .await
        .map_err(storage)?;
    state.invalidate_rules();
    Ok(deleted)
}

#[tauri::command]
pub async fn list_rules(
    state: tauri::State<'_, AppState>,
    group: String,
) -> Result<Vec<RuleView>, IpcError> {
    let rows = state
        .store
        .approval()
        .list_rules(&group)
        .await
        .map_err(storage)?;
    Ok(rows.into_iter().map(rule_view).collect())
}

#[tauri::command]
pub async fn add_rule(
    state: tauri::State<'_, AppState>,
    input: RuleInput,
) -> Result<RuleView, IpcError> {
    let row = state
        .approvals
        .add_rule(&new_rule(input))
        .await
        .map_err(invalid)?;
    Ok(rule_view(row))
}

#[tauri::command]
pub async fn update_rule(
    state: tauri::State<'_, AppState>,
    id: i64,
    input: RuleInput,
) -> Result<RuleView, IpcError> {
    // The form carries no agent or source: keep the stored rule's.
    let existing = state
        .store
        .approval()
        .get_rule(id)
        .await
        .map_err(storage)?
        .ok_or_else(|| IpcError::new(ErrorCode::NotFound, format!("no approval rule {id}")))?;
    let row = state
        .approvals
        .update_rule(id, &edited_rule(&existing, new_rule(input)))
        .await
        .map_err(invalid)?;
    Ok(rule_view(row))
}

#[tauri::command]
pub async fn delete_rule(state: tauri::State<'_, AppState>, id: i64) -> Result<bool, IpcError> {
    state.approvals.delete_rule(id).await.map_err(invalid)
}
