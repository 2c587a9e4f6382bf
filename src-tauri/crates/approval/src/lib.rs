//! Skald's approval rules engine: nothing the agent does escapes the
//! person's rules.
//!
//! - [`Rule`]s live in permission groups in the store; [`load_snapshot`]
//!   reads them into a [`RulesSnapshot`].
//! - [`evaluate`] is a pure function of (snapshot, [`CallContext`],
//!   [`RunContext`]) returning a [`Decision`]: the session's group, then
//!   `default`, each by priority (higher first) then id; the first match
//!   wins; no match asks. RunContext fast paths turn a `require` into
//!   `allow`; [`decide`] adds the person's [`Bypasses`]. A `deny` is final.
//! - [`visible_tool_defs`] hides the tools a group denies by name from the
//!   model; MCP tools always stay offered.
//! - [`seed_default_rules`] seeds the built-in rules, idempotently;
//!   [`validate_new_rule`] guards every new rule; [`edited_rule`] keeps the
//!   filters an edit does not carry.
//! - [`always_allow_rule`] builds the rule "always allow" saves from an
//!   approval: the tool, limited to the call's directory, placed to beat the
//!   seeded `require`s and never a deny.
//!
//! Paths are matched after `canonicalize_for_policy`, relative to the working
//! directory, so `..` and symlinks cannot dodge a rule. This crate never runs
//! a tool, never touches the UI, and does no I/O while deciding: the only
//! disk access is canonicalising a call's path when its [`CallContext`] is
//! built (and the store access of loading and seeding).

#![warn(missing_docs)]

mod always_allow;
mod bypass;
mod call;
mod decision;
mod edit;
mod error;
mod evaluate;
mod kept;
mod paths;
mod pattern;
mod preview;
mod rule;
mod run_context;
mod seed;
mod visibility;

pub use always_allow::{ALWAYS_ALLOW_NOTE, ALWAYS_ALLOW_PRIORITY, always_allow_rule};
pub use bypass::{Bypass, BypassScope, Bypasses, Expiry, Now};
pub use call::{CallContext, CallPath};
pub use decision::{Basis, Decision, FastPath, RuleRef};
pub use edit::{edited_rule, with_deny_precedence};
pub use error::{ApprovalError, Result};
pub use evaluate::{decide, evaluate};
pub use kept::{KeptPreview, MAX_KEPT_PREVIEW_BYTES, kept_preview};
pub use pattern::{PathPattern, ToolClass, ToolPattern};
pub use preview::{MAX_PREVIEW_BYTES, WritePreview, predict_write};
pub use rule::{Action, Rule, RulesSnapshot, load_snapshot};
pub use run_context::RunContext;
pub use seed::{
    CATCH_ALL_PRIORITY, MEMORY_ALLOW_PRIORITY, SECRETS_DENY_PRIORITY, SEED_MARKER_KEY, SEED_RULES,
    SeedReport, SeedRule, TOOL_RULE_PRIORITY, seed_default_rules, validate_new_rule,
    validate_rule_update,
};
pub use visibility::{
    is_hidden, tool_def_name, visible_tool_defs, visible_tool_defs_for_agent,
    visible_tool_defs_with_traits,
};
