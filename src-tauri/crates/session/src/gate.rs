//! The approval gate hook: every tool call passes [`ApprovalGate::check`]
//! before it runs. The default, [`AllowAll`], lets everything through; the
//! approval crate plugs its rules in by implementing the trait.
//!
//! The driver owns the bookkeeping: while a [`GateDecision::Ask`] waits on a
//! person the row is `pending`; `/stop` resolves the wait as cancelled; a
//! rejection is recorded `rejected` (not an error).

use std::path::PathBuf;

use serde_json::Value;
use skald_core_api::{BoxFuture, ToolCategory};

/// What the gate is asked about: one call, with its effective arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct GateCall {
    pub session_id: String,
    pub agent_id: String,
    /// The durable tool_call_id.
    pub tool_call_id: String,
    pub name: String,
    /// Effective arguments (working directory applied).
    pub arguments: Value,
    /// `None` for tools outside the registry.
    pub category: Option<ToolCategory>,
    /// The file the call acts on, if any.
    pub path: Option<String>,
    pub working_dir: PathBuf,
}

/// A person's (or a later rule's) final answer to a call that had to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Reject { reason: String },
}

/// A question put to a person; resolves to their [`Verdict`]. Dropping it
/// (on `/stop`) withdraws the question.
pub struct PendingApproval(BoxFuture<'static, Verdict>);

impl PendingApproval {
    pub fn new(answer: impl std::future::Future<Output = Verdict> + Send + 'static) -> Self {
        Self(Box::pin(answer))
    }

    pub(crate) fn into_future(self) -> BoxFuture<'static, Verdict> {
        self.0
    }
}

impl std::fmt::Debug for PendingApproval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PendingApproval(..)")
    }
}

/// What the gate decided.
#[derive(Debug)]
pub enum GateDecision {
    Allow,
    /// Denied; the reason is told to the model.
    Reject {
        reason: String,
    },
    /// A person must answer; the row is `pending` until they do.
    Ask(PendingApproval),
}

/// Decides whether a call may run.
pub trait ApprovalGate: Send + Sync {
    fn check<'a>(&'a self, call: &'a GateCall) -> BoxFuture<'a, GateDecision>;
}

/// The default gate: every call is allowed.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl ApprovalGate for AllowAll {
    fn check<'a>(&'a self, _call: &'a GateCall) -> BoxFuture<'a, GateDecision> {
        Box::pin(std::future::ready(GateDecision::Allow))
    }
}
