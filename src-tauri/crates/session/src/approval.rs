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

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use skald_approval::{
    Action, ApprovalError, Bypass, Bypasses, CallContext, Decision, Now, RulesSnapshot, RunContext,
    SeedReport, decide, load_snapshot, predict_write, seed_default_rules, validate_new_rule,
    validate_rule_update, visible_tool_defs_with_traits, with_deny_precedence,
};
use skald_core_api::{BoxFuture, ToolDef, ToolDescriptionLength, ToolTraits};
use skald_protocol::{ApprovalKind, ApprovalRequest};
use skald_store::{ApprovalRuleRow, NewApprovalRule, Store, ToolCallRow};
use skald_tools::tool_names as tn;
use skald_tools::{CallLabels, ToolSet};
use tokio::sync::{oneshot, watch};

use crate::assemble::arguments_value;
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

struct Shared {
    store: Store,
    rules: Mutex<Option<Arc<RulesSnapshot>>>,
    /// Bumped by every invalidation, so a load that raced one is not cached.
    generation: AtomicU64,
    waiters: Mutex<HashMap<String, Waiter>>,
    bypasses: Mutex<HashMap<String, Bypasses>>,
    /// Bumped whenever a call starts or stops waiting for a person, so the
    /// Inbox badge and the tray follow at once instead of on their next poll.
    changes: watch::Sender<u64>,
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
                rules: Mutex::new(None),
                generation: AtomicU64::new(0),
                waiters: Mutex::new(HashMap::new()),
                bypasses: Mutex::new(HashMap::new()),
                changes: watch::channel(0).0,
            }),
        }
    }

    // Rules -----------------------------------------------------------------

    /// Forgets the cached rules; the next decision reloads them. Call after
    /// any rule or group edit made outside this manager.
    pub fn invalidate_rules(&self) {
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        *lock(&self.shared.rules) = None;
    }

    /// The current rules, cached. `Err` when they cannot be loaded (the gate
    /// then asks).
    pub async fn rules(&self) -> Result<Arc<RulesSnapshot>, ApprovalError> {
        if let Some(r) = lock(&self.shared.rules).clone() {
            return Ok(r);
        }
        let generation = self.shared.generation.load(Ordering::SeqCst);
        let loaded = Arc::new(load_snapshot(&self.shared.store).await?);
        if self.shared.generation.load(Ordering::SeqCst) == generation {
            *lock(&self.shared.rules) = Some(loaded.clone());
        }
        Ok(loaded)
    }

    /// Validates and adds a rule (a deny raised ahead of its group's allows,
    /// see [`with_deny_precedence`]), then invalidates the cache.
    pub async fn add_rule(&self, rule: &NewApprovalRule) -> Result<ApprovalRuleRow, ApprovalError> {
        let repo = self.shared.store.approval();
        let existing = repo.list_all_rules().await?;
        let rule = &with_deny_precedence(rule.clone(), &existing, None);
        validate_new_rule(rule, &existing)?;
        let row = repo.add_rule(rule).await?;
        self.invalidate_rules();
        Ok(row)
    }

    /// Validates and replaces rule `id`, then invalidates the cache.
    pub async fn update_rule(
        &self,
        id: i64,
        rule: &NewApprovalRule,
    ) -> Result<ApprovalRuleRow, ApprovalError> {
        let repo = self.shared.store.approval();
        let existing = repo.list_all_rules().await?;
        let rule = &with_deny_precedence(rule.clone(), &existing, Some(id));
        validate_rule_update(id, rule, &existing)?;
        let row = repo.update_rule(id, rule).await?;
        self.invalidate_rules();
        Ok(row)
    }

    /// Deletes rule `id`, then invalidates the cache. Returns whether it
    /// existed.
    pub async fn delete_rule(&self, id: i64) -> Result<bool, ApprovalError> {
        let gone = self.shared.store.approval().delete_rule(id).await?;
        self.invalidate_rules();
        Ok(gone)
    }

    // RunContext ------------------------------------------------------------

    /// The session's RunContext, as stored (see the module docs), not yet
    /// canonicalised. `fallback_dir` is used when neither the JSON nor the
    /// session names a working directory.
    pub async fn run_context(
        &self,
        session_id: &str,
        fallback_dir: Option<&Path>,
    ) -> Result<RunContext, ApprovalError> {
        let row = self.shared.store.sessions().get(session_id).await?;
        let Some(row) = row else {
            return Ok(RunContext {
                working_dir: fallback_dir.map(Path::to_path_buf),
                ..RunContext::default()
            });
        };
        let mut ctx: RunContext = row
            .run_context
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        ctx.permission_group = row.permission_group.clone();
        // The `working_dir` column is the one truth (tools and `skald chat
        // --workdir` use it); a directory in the JSON is only a fallback for
        // rows written before the column was kept in step.
        ctx.working_dir = row
            .working_dir
            .as_deref()
            .map(Into::into)
            .or(ctx.working_dir)
            .or_else(|| fallback_dir.map(Path::to_path_buf));
        Ok(ctx)
    }

    /// Stores the session's RunContext (its group goes to the
    /// `permission_group` column, which must name an existing group, and its
    /// working directory to the `working_dir` column).
    pub async fn set_run_context(
        &self,
        session_id: &str,
        ctx: &RunContext,
    ) -> Result<(), ApprovalError> {
        let sessions = self.shared.store.sessions();
        sessions
            .set_permission_group(session_id, &ctx.permission_group)
            .await?;
        if let Some(dir) = &ctx.working_dir {
            sessions
                .set_working_dir(session_id, Some(&dir.display().to_string()))
                .await?;
        }
        let stored = RunContext {
            working_dir: None,
            ..ctx.clone()
        };
        let json = serde_json::to_value(&stored).map_err(|e| {
            ApprovalError::InvalidRule(format!("cannot serialise the run context: {e}"))
        })?;
        sessions.set_run_context(session_id, Some(&json)).await?;
        Ok(())
    }

    // Bypasses ----------------------------------------------------------------

    /// Adds a person's bypass to the session (in memory; cleared on stop).
    pub fn add_bypass(&self, session_id: &str, bypass: Bypass) {
        lock(&self.shared.bypasses)
            .entry(session_id.to_string())
            .or_default()
            .add(bypass);
    }

    /// The session's live bypasses.
    pub fn bypasses(&self, session_id: &str) -> Vec<Bypass> {
        let now = Now::current();
        let mut all = lock(&self.shared.bypasses);
        match all.get_mut(session_id) {
            Some(b) => {
                b.prune_expired(now);
                b.iter().cloned().collect()
            }
            None => Vec::new(),
        }
    }

    /// Removes every bypass of the session.
    pub fn clear_bypasses(&self, session_id: &str) {
        lock(&self.shared.bypasses).remove(session_id);
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
            .run_context(&call.session_id, Some(&call.working_dir))
            .await
        {
            Ok(c) => c.canonicalized(),
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

    async fn ask(&self, call: &GateCall, reason: String) -> GateDecision {
        let repo = self.shared.store.tool_calls();
        let (old, new) = match predict_write(&call.name, call.traits, &call.arguments) {
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
        GateDecision::Ask(
            PendingApproval::new(async move {
                let _guard = guard;
                rx.await.unwrap_or(Verdict::Reject {
                    reason: "the approval request was withdrawn".to_string(),
                })
            })
            .with_request(request),
        )
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

    fn answer(&self, tool_call_id: &str, verdict: Verdict) -> bool {
        let waiter = lock(&self.shared.waiters).remove(tool_call_id);
        waiter.is_some_and(|w| w.tx.send(verdict).is_ok())
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
        self.clear_bypasses(session_id);
    }
}

/// What an approval card shows of a call, as its tool declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallCard {
    pub label_short: String,
    pub label_full: String,
    /// The file the call acts on, if any.
    pub path: Option<String>,
    pub traits: ToolTraits,
}

impl CallCard {
    /// The card of a call to `name` with `args`, from `tools` (a round's
    /// `ToolSet`, or the registry where no round runs).
    pub fn of(tools: &dyn CallLabels, name: &str, args: &Value) -> Self {
        Self {
            label_short: tools.describe_call(name, args, ToolDescriptionLength::Short),
            label_full: tools.describe_call(name, args, ToolDescriptionLength::Full),
            path: tools.target_path(name, args),
            traits: tools.traits_of(name),
        }
    }
}

/// The card of a call waiting for approval: a tool that declares it writes
/// files gets a diff, `execute_cmd` its command line, others the arguments.
pub fn approval_request(
    card: CallCard,
    id: &str,
    name: &str,
    arguments: Value,
    reason: String,
    old: Option<String>,
    new: Option<String>,
) -> ApprovalRequest {
    let kind = if card.traits.writes_files {
        ApprovalKind::Write {
            path: card.path.clone().unwrap_or_default(),
            old_content: old,
            new_content: new,
        }
    } else if name == tn::EXECUTE_CMD {
        let s = |k: &str| arguments.get(k).and_then(Value::as_str).map(str::to_string);
        ApprovalKind::Command {
            command: s("command").unwrap_or_default(),
            working_dir: s("workdir"),
        }
    } else {
        ApprovalKind::Generic
    };
    ApprovalRequest {
        tool_call_id: id.to_string(),
        name: name.to_string(),
        label_short: card.label_short,
        label_full: card.label_full,
        path: card.path,
        arguments,
        reason,
        kind,
    }
}

/// The card of a stored pending row (the Inbox after a restart).
pub(crate) fn request_of_row(registry: &dyn CallLabels, row: &ToolCallRow) -> ApprovalRequest {
    let arguments = arguments_value(&row.arguments);
    approval_request(
        CallCard::of(registry, &row.name, &arguments),
        &row.id,
        &row.name,
        arguments,
        row.decision_reason
            .clone()
            .unwrap_or_else(|| "waiting for approval".to_string()),
        row.old_preview.clone(),
        row.new_preview.clone(),
    )
}

/// Whether a stored row waits for a person's approval (and so survives a
/// restart untouched, for the Inbox).
pub(crate) fn awaits_approval(row: &ToolCallRow) -> bool {
    row.status == skald_store::ToolCallStatus::Pending
        && row.decision.as_deref() == Some(DECISION_REQUIRE)
}
