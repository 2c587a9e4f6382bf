//! [`Decision`]: what the gate decided about one call, which rule made it,
//! on what basis, and the sentence shown to the person and stored with the
//! tool call ("allowed by rule 12: @fs_read docs/*").

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::bypass::BypassScope;
use crate::rule::{Action, Rule};

/// The rule behind a decision, as stored with the tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleRef {
    /// Row id.
    pub id: i64,
    /// Owning group.
    pub group: String,
    /// Tool pattern as written.
    pub tool_pattern: String,
    /// Path pattern as written.
    pub path_pattern: Option<String>,
    /// What the rule says.
    pub action: Action,
}

impl fmt::Display for RuleRef {
    /// `rule 12: @fs_read docs/*`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule {}: {}", self.id, self.tool_pattern)?;
        if let Some(path) = &self.path_pattern {
            write!(f, " {path}")?;
        }
        Ok(())
    }
}

/// Which RunContext fast path turned a `require` into `allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FastPath {
    /// A read under the working directory's `docs/`.
    Docs,
    /// A read under the working directory's `skills/`.
    Skills,
    /// A read under the working directory.
    WorkingDir,
    /// A read under an `allow_fs_reads` entry.
    AllowFsReads,
    /// A read or write under an `allow_fs_writes` entry.
    AllowFsWrites,
}

impl FastPath {
    fn describe(self) -> &'static str {
        match self {
            FastPath::Docs => "read under docs/",
            FastPath::Skills => "read under skills/",
            FastPath::WorkingDir => "read under the working directory",
            FastPath::AllowFsReads => "read under an allow_fs_reads entry",
            FastPath::AllowFsWrites => "access under an allow_fs_writes entry",
        }
    }
}

/// What the decision rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "camelCase")]
pub enum Basis {
    /// The first matching rule, as is.
    Rule,
    /// No rule matched: ask.
    NoRuleMatched,
    /// A `require` turned into `allow` by a RunContext fast path.
    RunContext(FastPath),
    /// A `require` turned into `allow` by a human's bypass.
    Bypass(BypassScope),
    /// The rules could not be loaded: ask.
    LoadFailure,
}

/// The gate's verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// What happens to the call.
    pub action: Action,
    /// The first matching rule, if any (also when a fast path or a bypass
    /// turned its `require` into `allow`).
    pub rule: Option<RuleRef>,
    /// What the decision rests on.
    pub basis: Basis,
    /// One human sentence, e.g. "allowed by rule 12: @fs_read docs/*".
    pub reason: String,
}

impl Decision {
    /// The decision of a matching rule.
    pub fn from_rule(rule: &Rule) -> Self {
        let rule = rule.to_ref();
        let verb = match rule.action {
            Action::Allow => "allowed",
            Action::Require => "asked",
            Action::Deny => "denied",
        };
        Self {
            action: rule.action,
            reason: format!("{verb} by {rule}"),
            rule: Some(rule),
            basis: Basis::Rule,
        }
    }

    /// No rule matched: ask.
    pub fn no_rule_matched() -> Self {
        Self {
            action: Action::Require,
            rule: None,
            basis: Basis::NoRuleMatched,
            reason: "no rule matched: asking".to_string(),
        }
    }

    /// The rules could not be loaded: ask.
    pub fn require_load_failure() -> Self {
        Self {
            action: Action::Require,
            rule: None,
            basis: Basis::LoadFailure,
            reason: "approval rules could not be loaded: asking".to_string(),
        }
    }

    /// This `require` turned into `allow` on `basis`, described as `how`.
    pub(crate) fn allowed_instead(self, basis: Basis, how: &str) -> Self {
        let asked = match &self.rule {
            Some(rule) => format!("{rule} asks"),
            None => "no rule matched".to_string(),
        };
        Self {
            action: Action::Allow,
            reason: format!("allowed by {how} ({asked})"),
            rule: self.rule,
            basis,
        }
    }

    /// This `require` turned into `allow` by a RunContext fast path.
    pub(crate) fn allowed_by_fast_path(self, fast: FastPath) -> Self {
        let how = format!("the run context: {}", fast.describe());
        self.allowed_instead(Basis::RunContext(fast), &how)
    }
}
