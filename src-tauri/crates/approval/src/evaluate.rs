//! The gate as a pure function: [`evaluate`] (rules, then RunContext fast
//! paths) and [`decide`] (plus the person's bypasses). No I/O happens here:
//! the call's path was canonicalised when its [`CallContext`] was built, and
//! "now" is passed in.
//!
//! Deny beats ask beats allow where they meet: a `deny` is final (no fast
//! path, no bypass turns it), fast paths and bypasses only ever turn a
//! `require` into `allow`.

use crate::bypass::{Bypasses, Now};
use crate::call::CallContext;
use crate::decision::Decision;
use crate::rule::{Action, Rule, RulesSnapshot};
use crate::run_context::RunContext;

/// Decides `call` by the rules of `ctx.permission_group` then `default`
/// (first match wins; no match asks), then lets a RunContext fast path turn
/// a `require` into `allow`.
///
/// A fast path applies only to a `require` that comes from no match or from
/// the catch-all rule: a more specific `require` rule (naming the tool, a
/// class or a path) is the person asking to be asked, and is kept.
pub fn evaluate(rules: &RulesSnapshot, call: &CallContext, ctx: &RunContext) -> Decision {
    let matched = rules.first_match(&ctx.permission_group, call);
    let decision = matched.map_or_else(Decision::no_rule_matched, Decision::from_rule);
    match decision.action {
        Action::Allow | Action::Deny => decision,
        Action::Require => {
            let by_default = matched.is_none_or(Rule::is_catch_all);
            match ctx.fast_path(call).filter(|_| by_default) {
                Some(fast) => decision.allowed_by_fast_path(fast),
                None => decision,
            }
        }
    }
}

/// [`evaluate`], then the person's bypasses (live at `now`) turn a
/// remaining `require` into `allow`.
pub fn decide(
    rules: &RulesSnapshot,
    call: &CallContext,
    ctx: &RunContext,
    bypasses: &Bypasses,
    now: Now,
) -> Decision {
    bypasses.apply(evaluate(rules, call, ctx), call, now)
}
