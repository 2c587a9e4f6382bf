//! The approval gate hook: every tool call passes [`ApprovalGate::check`]
//! before it runs. The default, [`AllowAll`], lets everything through; the
//! approval crate plugs its rules in by implementing the trait.
//!
//! The driver owns the bookkeeping: while a [`GateDecision::Ask`] waits on a
//! person the row is `pending`; `/stop` resolves the wait as cancelled; a
//! rejection is recorded `rejected` (not an error).

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use skald_core_api::{BoxFuture, Tool, ToolCategory, ToolDef, ToolPresentation, ToolTraits};
use skald_protocol::ApprovalRequest;
use skald_tools::ToolSet;

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
    /// Where the tool comes from (`builtin` for the registry), for rules
    /// with a source; `None` when unknown.
    pub source: Option<String>,
    /// The file the call acts on, if any.
    pub path: Option<String>,
    /// What the tool declares it does to files (its class for `@fs_read` /
    /// `@fs_write` rules, the fast paths and the write preview).
    pub traits: ToolTraits,
    /// How its card shows it (a command line, ...), as the tool declares.
    pub presentation: ToolPresentation,
    /// The call's labels, from the tool itself, for the approval card.
    pub label_short: String,
    pub label_full: String,
    pub working_dir: PathBuf,
    /// The round's tool, for what only it knows (the content a write would
    /// leave, for the card's diff); `None` for a name no source offers.
    pub tool: Option<CallTool>,
}

/// The tool a [`GateCall`] goes to. Compared by identity.
#[derive(Clone)]
pub struct CallTool(pub Arc<dyn Tool>);

impl std::fmt::Debug for CallTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallTool({})", self.0.name())
    }
}

impl PartialEq for CallTool {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&self.0), Arc::as_ptr(&other.0))
    }
}

/// A person's (or a later rule's) final answer to a call that had to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Approved by the person.
    Allow,
    /// Let through while it waited by a rule or a bypass added since (the
    /// reason names it): the person did not approve this call themselves.
    Allowed { reason: String },
    /// Rejected by policy; the model reads "Rejected: <reason>. …".
    Reject { reason: String },
    /// Rejected by the person; the model reads exactly
    /// "User rejected this tool call." plus " Reason: <note>" when given.
    UserReject { note: Option<String> },
}

/// A question put to a person; resolves to their [`Verdict`]. Dropping it
/// (on `/stop`) withdraws the question.
pub struct PendingApproval {
    answer: BoxFuture<'static, Verdict>,
    request: Option<Box<ApprovalRequest>>,
}

impl PendingApproval {
    pub fn new(answer: impl std::future::Future<Output = Verdict> + Send + 'static) -> Self {
        Self {
            answer: Box::pin(answer),
            request: None,
        }
    }

    /// What the person is shown: the driver emits it as
    /// `SessionEvent::ApprovalRequired` once the row is `pending`.
    pub fn with_request(mut self, request: ApprovalRequest) -> Self {
        self.request = Some(Box::new(request));
        self
    }

    pub fn request(&self) -> Option<&ApprovalRequest> {
        self.request.as_deref()
    }

    pub(crate) fn into_parts(self) -> (BoxFuture<'static, Verdict>, Option<ApprovalRequest>) {
        (self.answer, self.request.map(|r| *r))
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
    /// Run it; `reason` (when the gate has one) is shown on the card.
    Allow { reason: Option<String> },
    /// Denied; the reason is told to the model.
    Reject { reason: String },
    /// A person must answer; the row is `pending` until they do.
    Ask(PendingApproval),
}

/// Decides whether a call may run.
pub trait ApprovalGate: Send + Sync {
    fn check<'a>(&'a self, call: &'a GateCall) -> BoxFuture<'a, GateDecision>;

    /// Whether [`check`](Self::check) would ask a person about `call`, with
    /// no side effect: the driver asks about every such call of a message at
    /// once, before the first runs. Default: never (a gate that answers
    /// inside `check` is asked one call at a time).
    fn would_ask<'a>(&'a self, _call: &'a GateCall) -> BoxFuture<'a, bool> {
        Box::pin(std::future::ready(false))
    }

    /// Delivers a person's answer to a live wait on `tool_call_id`. Returns
    /// whether a turn was waiting (otherwise the caller settles the stored
    /// pending row itself). Default: nothing ever waits here.
    fn answer(&self, _tool_call_id: &str, _verdict: Verdict) -> bool {
        false
    }

    /// Whether a live turn waits on `tool_call_id`.
    fn is_waiting(&self, _tool_call_id: &str) -> bool {
        false
    }

    /// The tool definitions the session may be offered (a tool denied by
    /// name, or by a class its traits in `tools` put it in, is hidden).
    /// Default: all of them.
    fn visible_tools<'a>(
        &'a self,
        _session_id: &'a str,
        defs: Vec<ToolDef>,
        _tools: &'a ToolSet,
    ) -> BoxFuture<'a, Vec<ToolDef>> {
        Box::pin(std::future::ready(defs))
    }

    /// The session was stopped: forget its bypasses.
    fn session_stopped(&self, _session_id: &str) {}

    /// The driver wrote a change to the set of calls waiting for a person
    /// (a call now pending, or one that waited now settled) to the DB; a
    /// gate with watchers (Inbox badge, tray) tells them.
    fn waiting_changed(&self) {}
}

/// The default gate: every call is allowed.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl ApprovalGate for AllowAll {
    fn check<'a>(&'a self, _call: &'a GateCall) -> BoxFuture<'a, GateDecision> {
        Box::pin(std::future::ready(GateDecision::Allow { reason: None }))
    }
}
