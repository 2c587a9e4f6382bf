//! The rule model: [`Action`], [`Rule`] and the [`RulesSnapshot`] the gate
//! evaluates against, loaded from the store by [`load_snapshot`].
//!
//! Order (the one `ApprovalRepo::list_rules` uses): the session's group's
//! rules, then `default`'s, each by priority (higher first) then id (lower,
//! i.e. older, first). The first rule that matches decides.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use skald_core_api::ToolTraits;
use skald_store::{ApprovalRuleRow, DEFAULT_GROUP, RuleAction, Store};

use crate::call::CallContext;
use crate::decision::RuleRef;
use crate::error::{ApprovalError, Result};
use crate::pattern::{PathPattern, ToolPattern};

/// What a rule (or a decision) does with a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Run without asking.
    Allow,
    /// Ask a human first.
    Require,
    /// Never run; hidden from the model when it matches by name.
    Deny,
}

impl Action {
    /// `allow`, `require` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Require => "require",
            Action::Deny => "deny",
        }
    }

    /// Require and deny rules match every spelling of a path; allow rules
    /// only the canonical one (see [`PathPattern`]).
    fn is_restrictive(self) -> bool {
        match self {
            Action::Allow => false,
            Action::Require | Action::Deny => true,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<RuleAction> for Action {
    fn from(a: RuleAction) -> Self {
        match a {
            RuleAction::Allow => Action::Allow,
            RuleAction::Require => Action::Require,
            RuleAction::Deny => Action::Deny,
        }
    }
}

impl From<Action> for RuleAction {
    fn from(a: Action) -> Self {
        match a {
            Action::Allow => RuleAction::Allow,
            Action::Require => RuleAction::Require,
            Action::Deny => RuleAction::Deny,
        }
    }
}

/// One parsed approval rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Row id (`approval_rules.id`).
    pub id: i64,
    /// Owning permission group.
    pub group: String,
    /// Only for calls by this agent; `None` for any.
    pub agent_id: Option<String>,
    /// Only for tools from this source; `None` for any.
    pub source: Option<String>,
    /// Which tools.
    pub tool_pattern: ToolPattern,
    /// Which paths; `None` for any call, with or without a path.
    pub path_pattern: Option<PathPattern>,
    /// What a match does.
    pub action: Action,
    /// Why the rule exists.
    pub note: Option<String>,
    /// Higher first.
    pub priority: i64,
}

impl Rule {
    /// A rule for any agent, source and path, with priority 0.
    pub fn new(
        id: i64,
        group: impl Into<String>,
        tool_pattern: &str,
        action: Action,
    ) -> Result<Self> {
        Ok(Self {
            id,
            group: group.into(),
            agent_id: None,
            source: None,
            tool_pattern: ToolPattern::parse(tool_pattern)?,
            path_pattern: None,
            action,
            note: None,
            priority: 0,
        })
    }

    /// Restricts the rule to paths matching `pattern`.
    pub fn with_path(mut self, pattern: &str) -> Result<Self> {
        self.path_pattern = Some(PathPattern::parse(pattern)?);
        Ok(self)
    }

    /// Sets the priority.
    pub fn with_priority(mut self, priority: i64) -> Self {
        self.priority = priority;
        self
    }

    /// Restricts the rule to one agent.
    pub fn with_agent(mut self, agent_id: impl Into<String>) -> Self {
        self.agent_id = Some(agent_id.into());
        self
    }

    /// Restricts the rule to one tool source.
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Parses a stored row. A bad pattern is [`ApprovalError::InvalidStoredRule`].
    pub fn from_row(row: &ApprovalRuleRow) -> Result<Self> {
        let invalid = |e: ApprovalError| ApprovalError::InvalidStoredRule {
            id: row.id,
            reason: e.to_string(),
        };
        Ok(Self {
            id: row.id,
            group: row.group_name.clone(),
            agent_id: row.agent_id.clone(),
            source: row.source.clone(),
            tool_pattern: ToolPattern::parse(&row.tool_pattern).map_err(invalid)?,
            path_pattern: row
                .path_pattern
                .as_deref()
                .map(PathPattern::parse)
                .transpose()
                .map_err(invalid)?,
            action: row.action.into(),
            note: row.note.clone(),
            priority: row.priority,
        })
    }

    /// Whether this is the catch-all: `*` with no path, agent or source.
    pub fn is_catch_all(&self) -> bool {
        self.tool_pattern == ToolPattern::Any
            && self.path_pattern.is_none()
            && self.agent_id.is_none()
            && self.source.is_none()
    }

    /// Whether the rule applies to `call`.
    pub fn matches(&self, call: &CallContext) -> bool {
        self.matches_who(call.agent_id(), call.source())
            && self.tool_pattern.matches(call.tool(), call.traits())
            && self
                .path_pattern
                .as_ref()
                .is_none_or(|p| p.matches_call(call, self.action.is_restrictive()))
    }

    /// Whether the rule applies to `tool` (declaring `traits`) by name alone, as the visibility
    /// filter asks: rules with a path pattern never do, nor do rules with a
    /// source (the filter does not know a definition's source).
    pub fn matches_name(&self, tool: &str, traits: ToolTraits, agent_id: Option<&str>) -> bool {
        self.path_pattern.is_none()
            && self.source.is_none()
            && self.matches_who(agent_id, None)
            && self.tool_pattern.matches(tool, traits)
    }

    fn matches_who(&self, agent_id: Option<&str>, source: Option<&str>) -> bool {
        let agent_ok = self.agent_id.as_deref().is_none_or(|a| agent_id == Some(a));
        let source_ok = self.source.as_deref().is_none_or(|s| source == Some(s));
        agent_ok && source_ok
    }

    /// The reference a decision carries.
    pub fn to_ref(&self) -> RuleRef {
        RuleRef {
            id: self.id,
            group: self.group.clone(),
            tool_pattern: self.tool_pattern.to_string(),
            path_pattern: self.path_pattern.as_ref().map(|p| p.as_str().to_string()),
            action: self.action,
        }
    }
}

/// Every group's rules, in evaluation order, at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RulesSnapshot {
    groups: BTreeMap<String, Vec<Rule>>,
}

impl RulesSnapshot {
    /// Groups `rules` and orders each group by priority (higher first), then id.
    pub fn new(rules: impl IntoIterator<Item = Rule>) -> Self {
        let mut groups: BTreeMap<String, Vec<Rule>> = BTreeMap::new();
        for rule in rules {
            groups.entry(rule.group.clone()).or_default().push(rule);
        }
        for list in groups.values_mut() {
            list.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.id.cmp(&b.id)));
        }
        Self { groups }
    }

    /// A snapshot with no rules (every call is asked about).
    pub fn empty() -> Self {
        Self::default()
    }

    /// The rules a session in `group` is evaluated against, in order: the
    /// group's own, then `default`'s (once, when the group is `default`). An
    /// unknown group has no rules of its own.
    pub fn ordered(&self, group: &str) -> impl Iterator<Item = &Rule> {
        let own = self.groups.get(group).map(Vec::as_slice).unwrap_or(&[]);
        let fallback = if group == DEFAULT_GROUP {
            &[][..]
        } else {
            self.groups
                .get(DEFAULT_GROUP)
                .map(Vec::as_slice)
                .unwrap_or(&[])
        };
        own.iter().chain(fallback)
    }

    /// The first rule of `group`'s order that matches `call`.
    pub fn first_match(&self, group: &str, call: &CallContext) -> Option<&Rule> {
        self.ordered(group).find(|r| r.matches(call))
    }

    /// Every rule, by group name then evaluation order.
    pub fn iter(&self) -> impl Iterator<Item = &Rule> {
        self.groups.values().flatten()
    }

    /// How many rules there are in all.
    pub fn len(&self) -> usize {
        self.groups.values().map(Vec::len).sum()
    }

    /// Whether there are no rules at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Loads every group's rules from the store. Any failure (the store, or a
/// stored rule that does not parse) is an error: the gate must then decide
/// with [`crate::Decision::require_load_failure`].
pub async fn load_snapshot(store: &Store) -> Result<RulesSnapshot> {
    let rows = store.approval().list_all_rules().await?;
    let rules = rows
        .iter()
        .map(Rule::from_row)
        .collect::<Result<Vec<_>>>()?;
    Ok(RulesSnapshot::new(rules))
}
