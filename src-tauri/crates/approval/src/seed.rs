//! The built-in rules seeded into `default` on every start, and the
//! validation every new rule passes (the UI calls [`validate_new_rule`]).
//!
//! Seeding is idempotent and respects the person: each seed has a stable key,
//! and the keys already applied are recorded in the setting
//! [`SEED_MARKER_KEY`] (a JSON array). A seed is inserted once, ever; after
//! that the person may edit or delete the rule and it stays as they left it.
//! A seed added by a later version is inserted on the next start. If a
//! crash lands between inserting a rule and recording its key, the next start
//! finds the identical rule and only records the key, so no copy is made.

use std::collections::BTreeSet;

use serde_json::Value;
use skald_store::{ApprovalRuleRow, DEFAULT_GROUP, NewApprovalRule, Store};
use skald_tools::tool_names as tn;

use crate::error::{ApprovalError, Result};
use crate::pattern::{PathPattern, ToolClass, ToolPattern};
use crate::rule::Action;

/// Setting holding the keys of the seeds already applied.
pub const SEED_MARKER_KEY: &str = "approval.seeded_rules";

/// Priority of the seeded catch-all: below everything else.
pub const CATCH_ALL_PRIORITY: i64 = -1000;

/// Priority of the seeded `secrets/` deny: above everything else seeded.
pub const SECRETS_DENY_PRIORITY: i64 = 1000;

/// Priority of the seeded `memory/` write allow: just below the secrets deny.
pub const MEMORY_ALLOW_PRIORITY: i64 = 900;

/// Priority of the seeded per-tool rules.
pub const TOOL_RULE_PRIORITY: i64 = 100;

/// One built-in rule of the `default` group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedRule {
    /// Stable key recorded once the seed is applied.
    pub key: &'static str,
    /// Tool pattern.
    pub tool_pattern: &'static str,
    /// Path pattern.
    pub path_pattern: Option<&'static str>,
    /// What it does.
    pub action: Action,
    /// Priority in `default`.
    pub priority: i64,
    /// The note stored with it.
    pub note: &'static str,
}

const fn seed(
    key: &'static str,
    tool: &'static str,
    action: Action,
    note: &'static str,
) -> SeedRule {
    SeedRule {
        key,
        tool_pattern: tool,
        path_pattern: None,
        action,
        priority: TOOL_RULE_PRIORITY,
        note,
    }
}

const HARMLESS: &str = "Seeded: harmless bookkeeping tool, runs without asking.";

/// The seeds, in insertion order.
pub const SEED_RULES: [SeedRule; 14] = [
    SeedRule {
        key: "fs-secrets-deny",
        tool_pattern: ToolClass::FsAny.as_pattern(),
        path_pattern: Some("secrets/*"),
        action: Action::Deny,
        priority: SECRETS_DENY_PRIORITY,
        note: "Seeded: file tools never touch secrets/ (use list_secrets / set_secret).",
    },
    SeedRule {
        key: "fs-memory-write-allow",
        tool_pattern: ToolClass::FsWrite.as_pattern(),
        path_pattern: Some("memory/*"),
        action: Action::Allow,
        priority: MEMORY_ALLOW_PRIORITY,
        note: "Seeded: the agent's memory/ is writable without asking.",
    },
    seed(
        "execute-cmd-require",
        tn::EXECUTE_CMD,
        Action::Require,
        "Seeded: shell commands are always asked about.",
    ),
    seed(
        "restart-require",
        tn::RESTART,
        Action::Require,
        "Seeded: restarting is always asked about.",
    ),
    seed(
        "write-todos-allow",
        tn::WRITE_TODOS,
        Action::Allow,
        HARMLESS,
    ),
    seed("notify-allow", tn::NOTIFY, Action::Allow, HARMLESS),
    seed(
        "activate-tools-allow",
        tn::ACTIVATE_TOOLS,
        Action::Allow,
        HARMLESS,
    ),
    seed(
        "show-file-allow",
        tn::SHOW_FILE_TO_USER,
        Action::Allow,
        HARMLESS,
    ),
    seed(
        "update-scratchpad-allow",
        tn::UPDATE_SCRATCHPAD,
        Action::Allow,
        HARMLESS,
    ),
    seed(
        "ask-user-clarification-allow",
        tn::ASK_USER_CLARIFICATION,
        Action::Allow,
        HARMLESS,
    ),
    SeedRule {
        key: "catch-all-require",
        tool_pattern: "*",
        path_pattern: None,
        action: Action::Require,
        priority: CATCH_ALL_PRIORITY,
        note: "Seeded: anything no other rule covers is asked about.",
    },
    // Later seeds go last, so the ids of the earlier ones stay as they were.
    seed(
        "read-notification-allow",
        tn::READ_NOTIFICATION,
        Action::Allow,
        HARMLESS,
    ),
    // Delegating is not an action on the machine: the sub-agent's own calls
    // pass the gate one by one, so asking before the hand-off asks twice.
    seed(
        "execute-task-allow",
        tn::EXECUTE_TASK,
        Action::Allow,
        "Seeded: handing a task to a sub-agent runs without asking; the sub-agent's own calls are gated.",
    ),
    seed("list-items-allow", tn::LIST_ITEMS, Action::Allow, HARMLESS),
];

impl SeedRule {
    /// The rule to insert into `default`.
    pub fn to_new_rule(&self) -> NewApprovalRule {
        NewApprovalRule {
            group_name: DEFAULT_GROUP.to_string(),
            agent_id: None,
            source: None,
            tool_pattern: self.tool_pattern.to_string(),
            path_pattern: self.path_pattern.map(str::to_string),
            action: self.action.into(),
            note: Some(self.note.to_string()),
            priority: self.priority,
        }
    }
}

/// What one seeding pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeedReport {
    /// Ids of the rules inserted now.
    pub inserted: Vec<i64>,
    /// Seeds applied on an earlier start (left as the person left them).
    pub already_seeded: usize,
    /// Seeds whose identical rule already existed; only recorded.
    pub adopted: usize,
    /// Seeds refused by validation (a catch-all already exists); recorded.
    pub skipped: usize,
}

/// Seeds the built-in rules into `default`; safe to run on every start.
pub async fn seed_default_rules(store: &Store) -> Result<SeedReport> {
    // Another process starting at the same moment seeds after us and finds
    // every key recorded, so no rule is ever inserted twice.
    let _startup = store.startup_lock().await?;
    let repo = store.approval();
    let settings = store.settings();
    if repo.get_group(DEFAULT_GROUP).await?.is_none() {
        return Err(ApprovalError::InvalidRule(format!(
            "the built-in permission group {DEFAULT_GROUP:?} is missing"
        )));
    }
    let mut applied: BTreeSet<String> = match settings.get(SEED_MARKER_KEY).await? {
        Some(Value::Array(keys)) => keys
            .iter()
            .filter_map(|k| k.as_str().map(str::to_string))
            .collect(),
        _ => BTreeSet::new(),
    };
    let mut report = SeedReport::default();
    for seed in &SEED_RULES {
        if applied.contains(seed.key) {
            report.already_seeded += 1;
            continue;
        }
        let existing = repo.list_all_rules().await?;
        let new = seed.to_new_rule();
        if existing.iter().any(|row| same_rule(row, &new)) {
            report.adopted += 1;
        } else if validate_new_rule(&new, &existing).is_err() {
            report.skipped += 1;
        } else {
            report.inserted.push(repo.add_rule(&new).await?.id);
        }
        applied.insert(seed.key.to_string());
        settings
            .set(
                SEED_MARKER_KEY,
                &Value::from(applied.iter().cloned().collect::<Vec<_>>()),
            )
            .await?;
    }
    Ok(report)
}

/// Same group, filters, patterns and action (note and priority aside).
fn same_rule(row: &ApprovalRuleRow, new: &NewApprovalRule) -> bool {
    row.group_name == new.group_name
        && row.agent_id == new.agent_id
        && row.source == new.source
        && row.tool_pattern == new.tool_pattern
        && row.path_pattern == new.path_pattern
        && row.action == new.action
}

fn is_catch_all(
    tool_pattern: &str,
    path_pattern: Option<&str>,
    agent_id: Option<&str>,
    source: Option<&str>,
) -> bool {
    tool_pattern == "*" && path_pattern.is_none() && agent_id.is_none() && source.is_none()
}

/// Checks a rule before it is added: a non-empty group, non-empty agent and
/// source filters when given, parseable patterns, and at most one catch-all
/// (`*` with no path, agent or source) across every group — the seeded one
/// in `default`, evaluated last. `existing` is every stored rule.
pub fn validate_new_rule(rule: &NewApprovalRule, existing: &[ApprovalRuleRow]) -> Result<()> {
    if rule.group_name.trim().is_empty() {
        return Err(ApprovalError::InvalidRule(
            "the group name is empty".to_string(),
        ));
    }
    if rule
        .agent_id
        .as_deref()
        .is_some_and(|a| a.trim().is_empty())
    {
        return Err(ApprovalError::InvalidRule(
            "the agent filter is empty; leave it unset for any agent".to_string(),
        ));
    }
    if rule.source.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(ApprovalError::InvalidRule(
            "the source filter is empty; leave it unset for any source".to_string(),
        ));
    }
    ToolPattern::parse(&rule.tool_pattern)?;
    if let Some(path) = &rule.path_pattern {
        PathPattern::parse(path)?;
    }
    let new_is_catch_all = is_catch_all(
        &rule.tool_pattern,
        rule.path_pattern.as_deref(),
        rule.agent_id.as_deref(),
        rule.source.as_deref(),
    );
    if new_is_catch_all
        && let Some(row) = existing.iter().find(|r| {
            is_catch_all(
                &r.tool_pattern,
                r.path_pattern.as_deref(),
                r.agent_id.as_deref(),
                r.source.as_deref(),
            )
        })
    {
        return Err(ApprovalError::DuplicateCatchAll { existing: row.id });
    }
    Ok(())
}

/// [`validate_new_rule`] for replacing rule `id` (it does not conflict with
/// itself).
pub fn validate_rule_update(
    id: i64,
    rule: &NewApprovalRule,
    existing: &[ApprovalRuleRow],
) -> Result<()> {
    let others: Vec<ApprovalRuleRow> = existing.iter().filter(|r| r.id != id).cloned().collect();
    validate_new_rule(rule, &others)
}
