//! The crate's single error type.
//!
//! None of these errors ever reaches a tool call as "allow": the gate turns a
//! failure to load or parse rules into [`Decision::require_load_failure`].
//!
//! [`Decision::require_load_failure`]: crate::Decision::require_load_failure

use skald_store::StoreError;

use crate::decision::RuleRef;

/// Shorthand for this crate's results.
pub type Result<T, E = ApprovalError> = std::result::Result<T, E>;

/// Everything that can go wrong while loading, validating or seeding rules.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    /// Reading or writing rules through the store failed.
    #[error("approval store error: {0}")]
    Store(#[from] StoreError),

    /// A tool pattern is not `name`, `prefix*`, `*` or a known `@class`.
    #[error("invalid tool pattern {pattern:?}: {reason}")]
    InvalidToolPattern {
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A path pattern is empty or has a `*` anywhere but at the end.
    #[error("invalid path pattern {pattern:?}: {reason}")]
    InvalidPathPattern {
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A rule is not acceptable as a whole (empty group, empty agent, ...).
    #[error("invalid rule: {0}")]
    InvalidRule(String),

    /// A second catch-all rule (`*`, no path, agent or source) was proposed.
    #[error(
        "only one catch-all rule (`*` with no path, agent or source) may exist; rule {existing} already is one"
    )]
    DuplicateCatchAll {
        /// Id of the catch-all that already exists.
        existing: i64,
    },

    /// "Always allow" in a group other than `default` would come before a
    /// `default` deny naming the same tool (a group's rules all precede
    /// `default`'s), which it must never override.
    #[error(
        "always allow in group {group:?} would come before deny {deny} of group {:?}; add that deny to group {group:?} first",
        deny.group
    )]
    AlwaysAllowOverridesDeny {
        /// The session's group, where the rule would be saved.
        group: String,
        /// The deny it would override.
        deny: RuleRef,
    },

    /// The "always allow" rule would not decide the call it was made from:
    /// another rule comes first.
    #[error("always allow would not take effect: {decided_by} decides this call first")]
    AlwaysAllowHasNoEffect {
        /// The rule (or the reason) that decides the call instead.
        decided_by: String,
    },

    /// A stored rule could not be parsed; the whole snapshot is refused so the
    /// gate falls back to asking.
    #[error("stored approval rule {id} is invalid: {reason}")]
    InvalidStoredRule {
        /// Row id.
        id: i64,
        /// What is wrong with it.
        reason: String,
    },
}
