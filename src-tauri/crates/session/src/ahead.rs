//! The tool calls of one assistant message, run in the model's order; the
//! calls the gate would ask a person about are all asked at once first, so
//! the person sees (and may approve) the whole set together.
//!
//! Before the first call runs, every call up to the last that asks is
//! started (row, card) in order, and each that asks gets its approval
//! request. The answers are applied as they come, whichever order the
//! person answers in: an approval marks the call approved (it runs when
//! its turn comes), a rejection records it at once. The calls themselves
//! still run one by one in the model's order, each waiting for its own
//! answer. A rule or a bypass added while they wait decides them again
//! (`ApprovalManager`); approving one call approves nothing else.
//!
//! Stop cancels every call still waiting or not yet run (recorded
//! cancelled); their waits are withdrawn. A crash leaves the waiting rows
//! `pending` for the Inbox, as a single waiting call is.
//!
//! Calls after the first sync sub-agent call are gated when reached, as
//! before (neighbouring sync sub-agents run side by side and ask together
//! anyway).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use skald_core_api::{BoxFuture, CallRoute, CancellationToken};
use skald_llm::ToolCall;
use tokio::sync::watch;

use crate::calls::{
    DECISION_REJECTED, Outcome, Started, apply_verdict, ask, emit_allowed, execute_allowed,
    gate_call_of, keep_preview, record, run_call, run_calls_together, settle, skip_cancelled,
    start_call,
};
use crate::error::SessionError;
use crate::gate::{GateDecision, Verdict};
use crate::notes;
use crate::subagent::route_of_call;
use crate::turn::Turn;

/// Runs every call of the assistant message `message_id` and records each.
pub(crate) async fn run_message_calls(
    t: &Turn<'_>,
    message_id: i64,
    calls: &[ToolCall],
    cancel: CancellationToken,
) -> Result<(), SessionError> {
    let asks = would_ask(t, calls).await;
    let Some(last) = asks.iter().rposition(|a| *a).filter(|_| calls.len() > 1) else {
        return run_from(t, message_id, calls, 0, cancel).await;
    };
    let board = Board::new();
    let mut answers: FuturesUnordered<BoxFuture<'static, (String, Verdict)>> =
        FuturesUnordered::new();
    let mut started = Vec::with_capacity(last + 1);
    for (call, asks) in calls[..=last].iter().zip(asks) {
        let s = start_call(t, message_id, call).await?;
        if asks && let Some(answer) = ask_ahead(t, &s, &board).await? {
            let id = s.id.clone();
            answers.push(Box::pin(async move { (id, answer.await) }));
        }
        started.push(s);
    }
    let in_order = async {
        for s in &started {
            if let Some(outcome) = outcome_of(t, s, &board, &cancel).await? {
                record(t, &s.id, outcome).await?;
            }
        }
        run_from(t, message_id, calls, last + 1, cancel.clone()).await
    };
    let applied = async {
        while let Some((id, verdict)) = answers.next().await {
            if !board.begin_applying(&id) {
                continue;
            }
            let state = match apply(t, &id, verdict).await {
                Ok(s) => s,
                Err(e) => State::Failed(Some(e)),
            };
            board.set(&id, state);
        }
        std::future::pending::<()>().await;
    };
    // The answers are applied until every call is settled; then the waits
    // left (after a Stop) are dropped, which withdraws them.
    tokio::select! {
        r = in_order => r,
        () = applied => Ok(()),
    }
}

/// Whether the gate would ask about each call, up to the first sync
/// sub-agent call (none when there is a single call: a lone call is asked
/// when reached, as always, without deciding it twice).
async fn would_ask(t: &Turn<'_>, calls: &[ToolCall]) -> Vec<bool> {
    let mut asks = Vec::new();
    if calls.len() < 2 {
        return asks;
    }
    for call in calls {
        if route_of_call(&t.tools, call) == CallRoute::SyncSubAgent {
            break;
        }
        asks.push(would_ask_one(t, call).await);
    }
    asks
}

/// Whether the gate would ask about a call that can run (a known tool,
/// well-formed arguments that pass its check).
async fn would_ask_one(t: &Turn<'_>, call: &ToolCall) -> bool {
    if !t.tools.contains(&call.name) {
        return false;
    }
    let Ok(args) = serde_json::from_str::<serde_json::Value>(&call.arguments) else {
        return false;
    };
    let args = t.tools.effective_args(&call.name, args, t.workdir);
    if t.tools.check_args(&call.name, &args).is_err() {
        return false;
    }
    t.inner
        .gate
        .would_ask(&gate_call_of(t, &call.id, &call.name, args))
        .await
}

/// Gates a started call the gate would ask about; returns the answer to wait for when
/// the gate asks. A call it lets through or rejects is on the board too.
async fn ask_ahead(
    t: &Turn<'_>,
    s: &Started,
    board: &Board,
) -> Result<Option<BoxFuture<'static, Verdict>>, SessionError> {
    let Some(args) = s.runnable_args() else {
        return Ok(None);
    };
    let gate_call = gate_call_of(t, &s.id, &s.name, args.clone());
    match t.inner.gate.check(&gate_call).await {
        GateDecision::Ask(pending) => {
            let answer = ask(t, &s.id, pending).await?;
            board.set(&s.id, State::Waiting);
            Ok(Some(answer))
        }
        // The rules changed in between: decided without asking after all.
        GateDecision::Allow { reason } => {
            let preview = keep_preview(t, &gate_call).await;
            if let Some(reason) = reason {
                emit_allowed(t, &s.id, reason, preview);
            }
            board.set(&s.id, State::Allowed);
            Ok(None)
        }
        GateDecision::Reject { reason } => {
            t.inner
                .store
                .tool_calls()
                .set_decision(&s.id, Some(DECISION_REJECTED), Some(&reason))
                .await?;
            record(t, &s.id, Outcome::Rejected(reason)).await?;
            board.set(&s.id, State::Settled);
            Ok(None)
        }
    }
}

/// Records a person's (or a later rule's) answer at once: approved, the
/// call runs when its turn comes; rejected, it is recorded now.
async fn apply(t: &Turn<'_>, id: &str, verdict: Verdict) -> Result<State, SessionError> {
    Ok(match apply_verdict(t, id, verdict).await? {
        None => State::Allowed,
        Some(outcome) => {
            record(t, id, outcome).await?;
            State::Settled
        }
    })
}

/// How a started call ends when its turn comes; `None` when it was
/// recorded already (rejected while it waited).
async fn outcome_of(
    t: &Turn<'_>,
    s: &Started,
    board: &Board,
    cancel: &CancellationToken,
) -> Result<Option<Outcome>, SessionError> {
    if !board.has(&s.id) {
        // Started with the others, gated now.
        if cancel.is_cancelled() {
            return Ok(Some(Outcome::Cancelled(notes::CANCELLED_BEFORE_START)));
        }
        return settle(t, s, cancel.clone()).await.map(Some);
    }
    Ok(match board.wait(&s.id, cancel).await {
        Ready::Settled => None,
        Ready::Cancelled => Some(Outcome::Cancelled(notes::CANCELLED)),
        Ready::Failed(e) => return Err(e),
        Ready::Allowed if cancel.is_cancelled() => {
            Some(Outcome::Cancelled(notes::CANCELLED_BEFORE_START))
        }
        Ready::Allowed => {
            let args = s.runnable_args().cloned().unwrap_or_default();
            Some(execute_allowed(t, &s.id, &s.name, args, cancel.clone()).await?)
        }
    })
}

/// The calls from `from` on, in order, gated when reached; once stopped,
/// the rest are recorded cancelled, unrun. Neighbouring sync sub-agent
/// calls run side by side, their results still recorded in call order.
async fn run_from(
    t: &Turn<'_>,
    message_id: i64,
    calls: &[ToolCall],
    from: usize,
    cancel: CancellationToken,
) -> Result<(), SessionError> {
    let mut i = from;
    while i < calls.len() {
        if cancel.is_cancelled() {
            skip_cancelled(t, message_id, &calls[i]).await?;
            i += 1;
            continue;
        }
        let group = calls[i..]
            .iter()
            .take_while(|c| route_of_call(&t.tools, c) == CallRoute::SyncSubAgent)
            .count();
        if group > 1 {
            run_calls_together(t, message_id, &calls[i..i + group], cancel.clone()).await?;
            i += group;
        } else {
            run_call(t, message_id, &calls[i], cancel.clone()).await?;
            i += 1;
        }
    }
    Ok(())
}

/// Where a call asked ahead stands.
enum State {
    /// Its approval waits for a person.
    Waiting,
    /// The answer came and is being recorded.
    Applying,
    /// Approved (by the person, or a rule or bypass since): it runs when
    /// its turn comes.
    Allowed,
    /// Recorded already (rejected).
    Settled,
    /// Stopped while it waited.
    Cancelled,
    /// Recording the answer failed.
    Failed(Option<SessionError>),
}

/// What a call's turn finds once its answer is in.
enum Ready {
    Allowed,
    Settled,
    Cancelled,
    Failed(SessionError),
}

/// The calls asked ahead, shared by the loop that runs them in order and
/// the one that applies the answers (never held across an await).
struct Board {
    states: Mutex<HashMap<String, State>>,
    changed: watch::Sender<u64>,
}

impl Board {
    fn new() -> Self {
        Self {
            states: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, State>> {
        self.states.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn has(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    fn set(&self, id: &str, state: State) {
        self.lock().insert(id.to_string(), state);
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Takes an answer for `id` if the call still waits (a call stopped
    /// meanwhile keeps its cancellation).
    fn begin_applying(&self, id: &str) -> bool {
        let mut states = self.lock();
        match states.get_mut(id) {
            Some(s @ State::Waiting) => {
                *s = State::Applying;
                true
            }
            _ => false,
        }
    }

    /// Waits until call `id` has its answer recorded. Once `cancel` fires,
    /// a call still waiting is marked stopped (an answer being recorded is
    /// let finish first).
    async fn wait(&self, id: &str, cancel: &CancellationToken) -> Ready {
        let mut rx = self.changed.subscribe();
        loop {
            {
                let mut states = self.lock();
                let Some(state) = states.get_mut(id) else {
                    return Ready::Cancelled;
                };
                match state {
                    State::Waiting if cancel.is_cancelled() => {
                        *state = State::Cancelled;
                        return Ready::Cancelled;
                    }
                    State::Waiting | State::Applying => {}
                    State::Allowed => return Ready::Allowed,
                    State::Settled => return Ready::Settled,
                    State::Cancelled => return Ready::Cancelled,
                    State::Failed(e) => {
                        return match e.take() {
                            Some(e) => Ready::Failed(e),
                            None => Ready::Settled,
                        };
                    }
                }
            }
            let stopped = cancel.is_cancelled();
            tokio::select! {
                _ = cancel.cancelled(), if !stopped => {}
                changed = rx.changed() => {
                    if changed.is_err() {
                        return Ready::Cancelled;
                    }
                }
            }
        }
    }
}
