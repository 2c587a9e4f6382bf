//! Permission groups (`permission_groups`) and their approval rules
//! (`approval_rules`). This stores rules; evaluating them is the approval
//! crate's pure function. The built-in `default` group cannot be deleted.

use sqlx::FromRow;
use sqlx::sqlite::SqlitePool;

use crate::columns::{expect_one, now_ms, text_column};
use crate::error::{Result, StoreError};

/// Name of the built-in group used when a session names no other.
pub const DEFAULT_GROUP: &str = "default";

/// What a matching rule does, stored in `approval_rules.action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleAction {
    /// Run without asking.
    Allow,
    /// Ask a human first.
    Require,
    /// Never run (and hide the tool from the model).
    Deny,
}

impl RuleAction {
    /// The column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Require => "require",
            Self::Deny => "deny",
        }
    }

    /// Parses the column text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "allow" => Ok(Self::Allow),
            "require" => Ok(Self::Require),
            "deny" => Ok(Self::Deny),
            other => Err(StoreError::Invalid(format!(
                "unknown rule action {other:?}"
            ))),
        }
    }
}

text_column!(RuleAction);

/// A stored permission group.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct PermissionGroupRow {
    /// Unique name.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Built-in groups cannot be deleted.
    pub builtin: bool,
    /// Unix millis.
    pub created_at: i64,
}

/// A rule to add (or the new content of an existing rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApprovalRule {
    /// Owning group.
    pub group_name: String,
    /// Only for this agent; `None` for any.
    pub agent_id: Option<String>,
    /// Only for tools from this source; `None` for any.
    pub source: Option<String>,
    /// Tool name pattern (`*` for all).
    pub tool_pattern: String,
    /// Path pattern; `None` for any path.
    pub path_pattern: Option<String>,
    /// What a match does.
    pub action: RuleAction,
    /// Why the rule exists.
    pub note: Option<String>,
    /// Higher first.
    pub priority: i64,
}

/// A stored rule.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ApprovalRuleRow {
    /// Row id.
    pub id: i64,
    /// Owning group.
    pub group_name: String,
    /// Agent filter.
    pub agent_id: Option<String>,
    /// Source filter.
    pub source: Option<String>,
    /// Tool name pattern.
    pub tool_pattern: String,
    /// Path pattern.
    pub path_pattern: Option<String>,
    /// What a match does.
    pub action: RuleAction,
    /// Why the rule exists.
    pub note: Option<String>,
    /// Higher first.
    pub priority: i64,
    /// Unix millis.
    pub created_at: i64,
}

/// Repository for permission groups and approval rules.
#[derive(Debug, Clone)]
pub struct ApprovalRepo {
    pool: SqlitePool,
}

impl ApprovalRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Every group, sorted by name.
    pub async fn list_groups(&self) -> Result<Vec<PermissionGroupRow>> {
        let rows = sqlx::query_as("SELECT * FROM permission_groups ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// The group with this name, if any.
    pub async fn get_group(&self, name: &str) -> Result<Option<PermissionGroupRow>> {
        let row = sqlx::query_as("SELECT * FROM permission_groups WHERE name = ?")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Creates a (non-built-in) group.
    pub async fn create_group(&self, name: &str, description: &str) -> Result<PermissionGroupRow> {
        let row = sqlx::query_as(
            "INSERT INTO permission_groups (name, description, builtin, created_at)
             VALUES (?, ?, 0, ?) RETURNING *",
        )
        .bind(name)
        .bind(description)
        .bind(now_ms())
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// Changes a group's description.
    pub async fn set_group_description(&self, name: &str, description: &str) -> Result<()> {
        let done = sqlx::query("UPDATE permission_groups SET description = ? WHERE name = ?")
            .bind(description)
            .bind(name)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "permission group", name)
    }

    /// Deletes a group with its rules; its sessions fall back to `default`.
    /// Built-in groups are refused. Returns whether the group existed.
    pub async fn delete_group(&self, name: &str) -> Result<bool> {
        if let Some(group) = self.get_group(name).await?
            && group.builtin
        {
            return Err(StoreError::Invalid(format!(
                "permission group {name:?} is built in and cannot be deleted"
            )));
        }
        let done = sqlx::query("DELETE FROM permission_groups WHERE name = ? AND builtin = 0")
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Adds a rule to its group.
    pub async fn add_rule(&self, rule: &NewApprovalRule) -> Result<ApprovalRuleRow> {
        let row = sqlx::query_as(
            "INSERT INTO approval_rules
               (group_name, agent_id, source, tool_pattern, path_pattern, action, note,
                priority, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(&rule.group_name)
        .bind(&rule.agent_id)
        .bind(&rule.source)
        .bind(&rule.tool_pattern)
        .bind(&rule.path_pattern)
        .bind(rule.action)
        .bind(&rule.note)
        .bind(rule.priority)
        .bind(now_ms())
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// The rule with this id, if any.
    pub async fn get_rule(&self, id: i64) -> Result<Option<ApprovalRuleRow>> {
        let row = sqlx::query_as("SELECT * FROM approval_rules WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// A group's rules, highest priority first, then oldest first.
    pub async fn list_rules(&self, group_name: &str) -> Result<Vec<ApprovalRuleRow>> {
        let rows = sqlx::query_as(
            "SELECT * FROM approval_rules WHERE group_name = ? ORDER BY priority DESC, id",
        )
        .bind(group_name)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// Every rule of every group, by group then priority.
    pub async fn list_all_rules(&self) -> Result<Vec<ApprovalRuleRow>> {
        let rows =
            sqlx::query_as("SELECT * FROM approval_rules ORDER BY group_name, priority DESC, id")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows)
    }

    /// Replaces a rule's content (its id and created_at stay).
    pub async fn update_rule(&self, id: i64, rule: &NewApprovalRule) -> Result<ApprovalRuleRow> {
        let row: Option<ApprovalRuleRow> = sqlx::query_as(
            "UPDATE approval_rules SET
               group_name = ?, agent_id = ?, source = ?, tool_pattern = ?, path_pattern = ?,
               action = ?, note = ?, priority = ?
             WHERE id = ? RETURNING *",
        )
        .bind(&rule.group_name)
        .bind(&rule.agent_id)
        .bind(&rule.source)
        .bind(&rule.tool_pattern)
        .bind(&rule.path_pattern)
        .bind(rule.action)
        .bind(&rule.note)
        .bind(rule.priority)
        .bind(id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next();
        row.ok_or_else(|| StoreError::not_found("approval rule", id))
    }

    /// Deletes a rule. Returns whether it existed.
    pub async fn delete_rule(&self, id: i64) -> Result<bool> {
        let done = sqlx::query("DELETE FROM approval_rules WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::RuleAction;

    #[test]
    fn action_text_round_trips() {
        for a in [RuleAction::Allow, RuleAction::Require, RuleAction::Deny] {
            assert_eq!(RuleAction::parse(a.as_str()).unwrap(), a);
        }
        assert!(RuleAction::parse("ask").is_err());
    }
}
