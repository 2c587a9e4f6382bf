//! The session-wide event bus: every event of every turn, whoever started
//! it (a window, the CLI, crash resume on start, later background work), is
//! published here besides the starter's own sink, so any window showing the
//! session — or the tray — can follow it. A subscriber that attaches while a
//! turn runs first gets that turn's events so far, then the live ones, with
//! nothing lost or repeated in between (the snapshot and the subscription
//! are taken under one lock that publishing also holds).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use skald_protocol::SessionEvent;
use tokio::sync::broadcast;

/// Events a slow subscriber may fall behind by before it misses some (it is
/// told so by `RecvError::Lagged` and can re-read the history).
const CAPACITY: usize = 4096;

/// What [`SessionBus::attach`] hands a late subscriber.
pub struct Attached {
    /// The running turn's events so far (empty when no turn runs).
    pub so_far: Vec<SessionEvent>,
    /// Everything published from now on, for every session; filter by
    /// `session_id` (see [`session_of`]).
    pub live: broadcast::Receiver<SessionEvent>,
}

/// Publishes to every subscriber and keeps each running turn's events.
pub struct SessionBus {
    tx: broadcast::Sender<SessionEvent>,
    /// Events of turns still running, by session.
    running: Mutex<HashMap<String, Vec<SessionEvent>>>,
}

impl Default for SessionBus {
    fn default() -> Self {
        Self {
            tx: broadcast::channel(CAPACITY).0,
            running: Mutex::new(HashMap::new()),
        }
    }
}

impl SessionBus {
    pub fn publish(&self, event: &SessionEvent) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let sid = session_of(event).to_string();
        match event {
            SessionEvent::TurnStarted { .. } => {
                running.insert(sid, vec![event.clone()]);
            }
            SessionEvent::TurnEnded { .. } => {
                running.remove(&sid);
            }
            _ => {
                if let Some(events) = running.get_mut(&sid) {
                    // A call's progress replaces its last progress: a late
                    // subscriber needs the latest tail, and a long command
                    // must not grow the turn's buffer ten events a second.
                    if let Some(call) = progress_of(event) {
                        events.retain(|e| progress_of(e) != Some(call));
                    }
                    events.push(event.clone());
                }
            }
        }
        // No subscriber is not an error.
        let _ = self.tx.send(event.clone());
    }

    /// Joins the session: its running turn so far, then everything live.
    pub fn attach(&self, session_id: &str) -> Attached {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        Attached {
            so_far: running.get(session_id).cloned().unwrap_or_default(),
            live: self.tx.subscribe(),
        }
    }

    /// Every event of every session from now on (the tray, the Inbox).
    pub fn subscribe(&self) -> broadcast::Receiver<SessionEvent> {
        self.tx.subscribe()
    }

    /// Whether a turn of the session is running as far as its events tell.
    pub fn is_running(&self, session_id: &str) -> bool {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(session_id)
    }
}

/// The session an event belongs to.
pub fn session_of(event: &SessionEvent) -> &str {
    match event {
        SessionEvent::TurnStarted { session_id }
        | SessionEvent::TokenDelta { session_id, .. }
        | SessionEvent::ReasoningDelta { session_id, .. }
        | SessionEvent::AssistantMessage { session_id, .. }
        | SessionEvent::ToolStart { session_id, .. }
        | SessionEvent::ToolDone { session_id, .. }
        | SessionEvent::ToolProgress { session_id, .. }
        | SessionEvent::ToolError { session_id, .. }
        | SessionEvent::ToolCancelled { session_id, .. }
        | SessionEvent::ToolRejected { session_id, .. }
        | SessionEvent::ToolAllowed { session_id, .. }
        | SessionEvent::ApprovalRequired { session_id, .. }
        | SessionEvent::OpenFile { session_id, .. }
        | SessionEvent::Usage { session_id, .. }
        | SessionEvent::TurnEnded { session_id, .. }
        | SessionEvent::Retrying { session_id, .. }
        | SessionEvent::ContextUsage { session_id, .. }
        | SessionEvent::ContextSummarized { session_id, .. }
        | SessionEvent::MessageIncomplete { session_id, .. }
        | SessionEvent::SubAgent { session_id, .. }
        | SessionEvent::TaskEnded { session_id, .. }
        | SessionEvent::TasksChanged { session_id } => session_id,
    }
}

/// The call a `ToolProgress` event (or a sub-agent's) is about.
fn progress_of(event: &SessionEvent) -> Option<&str> {
    match event {
        SessionEvent::ToolProgress { tool_call_id, .. } => Some(tool_call_id),
        SessionEvent::SubAgent { event, .. } => progress_of(event),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(call: &str, output: &str) -> SessionEvent {
        SessionEvent::ToolProgress {
            session_id: "s".into(),
            tool_call_id: call.into(),
            output: output.into(),
            output_bytes: output.len() as u64,
            message: None,
            progress: None,
            total: None,
        }
    }

    #[test]
    fn a_late_subscriber_gets_only_the_latest_progress_of_each_call() {
        let bus = SessionBus::default();
        bus.publish(&SessionEvent::TurnStarted {
            session_id: "s".into(),
        });
        for i in 0..100 {
            bus.publish(&progress("a", &format!("{i}")));
        }
        bus.publish(&progress("b", "b1"));
        bus.publish(&SessionEvent::SubAgent {
            session_id: "s".into(),
            frame_id: 2,
            agent_id: "x".into(),
            depth: 1,
            parent_call_id: "b".into(),
            event: Box::new(progress("c", "c1")),
        });
        bus.publish(&progress("a", "last"));
        let so_far = bus.attach("s").so_far;
        assert_eq!(so_far.len(), 4, "{so_far:?}");
        assert_eq!(so_far[3], progress("a", "last"));
        assert_eq!(so_far[1], progress("b", "b1"));
    }
}
