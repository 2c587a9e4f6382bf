//! [`ApprovalManager`]: the rule-driven [`ApprovalGate`]. It decides every
//! call with `skald_approval::decide` over a cached rules snapshot, the
//! session's RunContext and the person's in-memory bypasses:
//!
//! - `allow` → the call runs (decision `allow` and its reason stored);
//! - `deny` → rejected, the reason naming the rule (never bypassed);
//! - `require` → the row's decision (`require`) and reason are stored, with
//!   the before/after previews of a file write; the wait is registered
//!   under the durable tool_call_id and the driver marks the row `pending`
//!   and emits `SessionEvent::ApprovalRequired`. [`ApprovalGate::answer`]
//!   (reached through `ChatSessionHandler::approve` / `reject`) resolves it.
//!
//! A failure to load the rules asks (`Decision::require_load_failure`). The
//! snapshot is cached until [`ApprovalManager::invalidate_rules`] (the rule
//! editing methods here call it). Bypasses live in memory only and are
//! cleared when the session is stopped.
//!
//! The RunContext of a session is its `run_context` JSON (camelCase fields
//! of `skald_approval::RunContext`; a missing or unreadable value is the
//! default), with the permission group taken from the session's
//! `permission_group` column and, when the JSON names none, the session's
//! working directory.
//!
//! Deciding a call reads that RunContext (a query and the canonicalisation
//! of its paths), which was most of the gate's cost per call: it is kept per
//! session, canonicalised, and read again at every round (`visible_tools`
//! runs once per model request), after [`CONTEXT_TTL`], and at once when it
//! is changed here. An edit from another process sharing the database (the
//! CLI) thus applies from the next round, or within [`CONTEXT_TTL`].

mod card;
mod rules;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use skald_approval::{
    Action, ApprovalError, Bypasses, CallContext, Decision, Now, RulesSnapshot, RunContext,
    SeedReport, decide, predict_write, seed_default_rules, visible_tool_defs_with_traits,
};
use skald_core_api::{BoxFuture, ToolDef};
use skald_store::Store;
use skald_tools::ToolSet;
use tokio::sync::{oneshot, watch};

pub use card::{CallCard, approval_request};
pub(crate) use card::{awaits_approval, request_of_row};

use crate::gate::{ApprovalGate, GateCall, GateDecision, PendingApproval, Verdict};

/// `chat_llm_tools.decision` of a call the rules allowed.
pub const DECISION_ALLOW: &str = "allow";
/// `chat_llm_tools.decision` of a call waiting for a person.
pub const DECISION_REQUIRE: &str = "require";

/// Seeds the built-in approval rules (idempotent). Call once on start,
/// wherever the store is opened for the session driver (the app and the CLI).
pub async fn bootstrap(store: &Store) -> Result<SeedReport, ApprovalError> {
    seed_default_rules(store).await
}

struct Waiter {
    session_id: String,
    tx: oneshot::Sender<Verdict>,
}

/// How long a session's RunContext is used without reading it again (see
/// the module docs).
pub const CONTEXT_TTL: Duration = Duration::from_secs(1);

/// How long a call a rule or bypass let through while it waited still
/// takes a person's late answer as delivered.
const LET_THROUGH_KEPT: Duration = Duration::from_secs(60);

struct Shared {
    store: Store,
    /// Sessions' canonicalised RunContexts, with when they were read.
    contexts: Mutex<HashMap<String, (Instant, RunContext)>>,
    rules: Mutex<Option<Arc<RulesSnapshot>>>,
    /// Bumped by every invalidation, so a load that raced one is not cached.
    generation: AtomicU64,
    waiters: Mutex<HashMap<String, Waiter>>,
    bypasses: Mutex<HashMap<String, Bypasses>>,
    /// Bumped whenever a call starts or stops waiting for a person, so the
    /// Inbox badge and the tray follow at once instead of on their next poll.
    changes: watch::Sender<u64>,
    /// Bumped whenever what decides a call changed (a rule, a bypass, the
    /// RunContext): every call still waiting is decided again.
    policy: watch::Sender<u64>,
    /// Calls a rule or bypass let through while they waited, with when: an
    /// answer racing that decision ("always allow" saves its rule, then
    /// approves) finds its call already on its way, not gone.
    let_through: Mutex<HashMap<String, Instant>>,
}

impl Shared {
    fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The rule-driven approval gate. Cheap to clone; clones share everything
/// (keep one in the app's state for bypasses and rule edits, and hand
/// another to `ChatSessionHandler::with_gate`).
#[derive(Clone)]
pub struct ApprovalManager {
    shared: Arc<Shared>,
}

/// Removes a wait's registration when the waiting future is dropped (`/stop`).
struct WaitGuard {
    shared: Arc<Shared>,
    id: String,
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        lock(&self.shared.waiters).remove(&self.id);
    }
}

impl ApprovalManager {
    /// A manager over `store`'s rules. Categories, labels, paths and traits
    /// come with each call, from the round's `ToolSet`.
    pub fn new(store: Store) -> Self {
        Self {
            shared: Arc::new(Shared {
                store,
                contexts: Mutex::new(HashMap::new()),
                rules: Mutex::new(None),
                generation: AtomicU64::new(0),
                waiters: Mutex::new(HashMap::new()),
                bypasses: Mutex::new(HashMap::new()),
                changes: watch::channel(0).0,
                policy: watch::channel(0).0,
                let_through: Mutex::new(HashMap::new()),
            }),
        }
    }

    // Deciding ----------------------------------------------------------------

    /// The decision for `call` (no side effects).
    pub async fn decide(&self, call: &GateCall) -> Decision {
        let rules = match self.rules().await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "approval rules cannot be loaded: asking");
                return Decision::require_load_failure();
            }
        };
        let ctx = match self
            .decision_context(&call.session_id, &call.working_dir)
            .await
        {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "the session's run context cannot be loaded: asking");
                return Decision::require_load_failure();
            }
        };
        let mut cc =
            CallContext::for_run_with_traits(&call.name, call.traits, &call.arguments, &ctx)
                .with_agent(call.agent_id.clone());
        if let Some(c) = call.category {
            cc = cc.with_category(c);
        }
        if let Some(s) = &call.source {
            cc = cc.with_source(s.clone());
        }
        let bypasses = lock(&self.shared.bypasses)
            .get(&call.session_id)
            .cloned()
            .unwrap_or_default();
        decide(&rules, &cc, &ctx, &bypasses, Now::current())
    }

    /// The session's canonicalised RunContext, as kept (see the module
    /// docs).
    async fn decision_context(
        &self,
        session_id: &str,
        working_dir: &Path,
    ) -> Result<RunContext, ApprovalError> {
        if let Some((at, ctx)) = lock(&self.shared.contexts).get(session_id)
            && at.elapsed() < CONTEXT_TTL
        {
            return Ok(ctx.clone());
        }
        let ctx = self
            .run_context(session_id, Some(working_dir))
            .await?
            .canonicalized();
        lock(&self.shared.contexts).insert(session_id.to_string(), (Instant::now(), ctx.clone()));
        Ok(ctx)
    }

    /// Forgets the kept RunContext of a session (changed, or a new round).
    pub(crate) fn forget_context(&self, session_id: &str) {
        lock(&self.shared.contexts).remove(session_id);
    }

    async fn ask(&self, call: &GateCall, reason: String) -> GateDecision {
        let repo = self.shared.store.tool_calls();
        let preview = call
            .tool
            .as_ref()
            .and_then(|t| predict_write(t.0.as_ref(), &call.arguments));
        let (old, new) = match preview {
            Some(p) => (p.old, p.new),
            None => (None, None),
        };
        if let Err(e) = repo
            .set_decision(&call.tool_call_id, Some(DECISION_REQUIRE), Some(&reason))
            .await
        {
            tracing::warn!(error = %e, "cannot store the approval decision");
        }
        if (old.is_some() || new.is_some())
            && let Err(e) = repo
                .set_previews(&call.tool_call_id, old.as_deref(), new.as_deref())
                .await
        {
            tracing::warn!(error = %e, "cannot store the write previews");
        }
        // The round's tool labelled the call (with the session's display
        // base) when the driver built the gate call.
        let card = CallCard {
            label_short: call.label_short.clone(),
            label_full: call.label_full.clone(),
            path: call.path.clone(),
            traits: call.traits,
            presentation: call.presentation,
        };
        let request = approval_request(
            card,
            &call.tool_call_id,
            &call.name,
            call.arguments.clone(),
            reason,
            old,
            new,
        );
        let (tx, rx) = oneshot::channel();
        lock(&self.shared.waiters).insert(
            call.tool_call_id.clone(),
            Waiter {
                session_id: call.session_id.clone(),
                tx,
            },
        );
        let guard = WaitGuard {
            shared: self.shared.clone(),
            id: call.tool_call_id.clone(),
        };
        let policy = self.shared.policy.subscribe();
        let (manager, call) = (self.clone(), call.clone());
        GateDecision::Ask(
            PendingApproval::new(async move {
                let _guard = guard;
                manager.wait_for_answer(&call, rx, policy).await
            })
            .with_request(request),
        )
    }

    /// The person's answer; or, when a rule or a bypass added meanwhile
    /// now decides the call (as Claude Code re-checks its queued prompts
    /// after "don't ask again"), that decision, named on the card. A plain
    /// approval of another call changes no rule, so it lets nothing else
    /// through.
    async fn wait_for_answer(
        &self,
        call: &GateCall,
        mut rx: oneshot::Receiver<Verdict>,
        mut policy: watch::Receiver<u64>,
    ) -> Verdict {
        let withdrawn = || Verdict::Reject {
            reason: "the approval request was withdrawn".to_string(),
        };
        loop {
            tokio::select! {
                biased;
                v = &mut rx => return v.unwrap_or_else(|_| withdrawn()),
                changed = policy.changed() => {
                    if changed.is_err() {
                        return (&mut rx).await.unwrap_or_else(|_| withdrawn());
                    }
                    let decision = self.decide(call).await;
                    let verdict = match decision.action {
                        Action::Require => continue,
                        Action::Allow => Verdict::Allowed { reason: decision.reason },
                        Action::Deny => Verdict::Reject { reason: decision.reason },
                    };
                    // The person may have answered while this was decided:
                    // their answer stands.
                    if lock(&self.shared.waiters).remove(&call.tool_call_id).is_some() {
                        let mut through = lock(&self.shared.let_through);
                        through.retain(|_, at| at.elapsed() < LET_THROUGH_KEPT);
                        through.insert(call.tool_call_id.clone(), Instant::now());
                        return verdict;
                    }
                    return (&mut rx).await.unwrap_or_else(|_| withdrawn());
                }
            }
        }
    }

    /// Says a rule, a bypass or a RunContext changed: waiting calls are
    /// decided again.
    pub(crate) fn policy_changed(&self) {
        self.shared.policy.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Wakes whenever a call starts or stops waiting in this process (the
    /// value is a counter). Other processes' calls show only in the DB.
    pub fn subscribe_changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// Says the set of waiting calls changed outside a live wait (a stored
    /// call approved or rejected from the Inbox after a restart).
    pub fn notify_changed(&self) {
        self.shared.changed();
    }

    /// The ids of the calls a live turn waits on, with their sessions.
    pub fn waiting(&self) -> Vec<(String, String)> {
        lock(&self.shared.waiters)
            .iter()
            .map(|(id, w)| (id.clone(), w.session_id.clone()))
            .collect()
    }
}

impl ApprovalGate for ApprovalManager {
    fn check<'a>(&'a self, call: &'a GateCall) -> BoxFuture<'a, GateDecision> {
        Box::pin(async move {
            let decision = self.decide(call).await;
            match decision.action {
                Action::Allow => {
                    if let Err(e) = self
                        .shared
                        .store
                        .tool_calls()
                        .set_decision(
                            &call.tool_call_id,
                            Some(DECISION_ALLOW),
                            Some(&decision.reason),
                        )
                        .await
                    {
                        tracing::warn!(error = %e, "cannot store the approval decision");
                    }
                    GateDecision::Allow {
                        reason: Some(decision.reason),
                    }
                }
                Action::Deny => GateDecision::Reject {
                    reason: decision.reason,
                },
                Action::Require => self.ask(call, decision.reason).await,
            }
        })
    }

    fn would_ask<'a>(&'a self, call: &'a GateCall) -> BoxFuture<'a, bool> {
        Box::pin(async move { self.decide(call).await.action == Action::Require })
    }

    fn answer(&self, tool_call_id: &str, verdict: Verdict) -> bool {
        let waiter = lock(&self.shared.waiters).remove(tool_call_id);
        match waiter {
            Some(w) => w.tx.send(verdict).is_ok(),
            // Let through by a rule or bypass a moment ago: the live turn
            // runs it already.
            None => lock(&self.shared.let_through)
                .remove(tool_call_id)
                .is_some(),
        }
    }

    fn is_waiting(&self, tool_call_id: &str) -> bool {
        lock(&self.shared.waiters).contains_key(tool_call_id)
    }

    fn waiting_changed(&self) {
        self.shared.changed();
    }

    fn visible_tools<'a>(
        &'a self,
        session_id: &'a str,
        defs: Vec<ToolDef>,
        tools: &'a ToolSet,
    ) -> BoxFuture<'a, Vec<ToolDef>> {
        Box::pin(async move {
            // A new round: its calls read the RunContext afresh.
            self.forget_context(session_id);
            // Unloadable rules hide nothing: every call is then asked about.
            let Ok(rules) = self.rules().await else {
                return defs;
            };
            let (ctx, agent) = match self.shared.store.sessions().get(session_id).await {
                Ok(Some(row)) => {
                    let ctx = RunContext {
                        permission_group: row.permission_group.clone(),
                        ..RunContext::default()
                    };
                    (ctx, Some(row.agent_id))
                }
                _ => (RunContext::default(), None),
            };
            visible_tool_defs_with_traits(defs, &rules, &ctx, agent.as_deref(), |name| {
                tools.traits_of(name)
            })
        })
    }

    fn session_stopped(&self, session_id: &str) {
        self.forget_context(session_id);
        self.clear_bypasses(session_id);
    }
}
