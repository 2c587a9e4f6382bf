//! Turns a crash cut short and the app answers on start. A chat page that
//! is open when such a turn starts hears `turn-resumed` and follows it (the
//! resume runs in the background, so the page may have loaded first); a
//! page opened later asks [`ResumedTurns::running`]. Either way it shows
//! the turn live, stoppable, under a "resumed after a crash" banner.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use skald_protocol::SessionEvent;
use skald_session::EventSink;
use tauri::Emitter;

/// The event a page listens to; its payload names the session.
pub const TURN_RESUMED: &str = "turn-resumed";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnResumed {
    session_id: String,
}

/// Sessions whose crash-resumed turn is running now.
#[derive(Clone, Default)]
pub struct ResumedTurns(Arc<Mutex<HashSet<String>>>);

impl ResumedTurns {
    pub fn running(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        ids.sort();
        ids
    }

    /// The sink crash resume runs with: it marks each resumed turn from its
    /// start to its end and tells the pages when one starts.
    pub fn sink(&self, app: tauri::AppHandle) -> ResumeSink {
        ResumeSink {
            turns: self.clone(),
            app,
        }
    }
}

pub struct ResumeSink {
    turns: ResumedTurns,
    app: tauri::AppHandle,
}

impl EventSink for ResumeSink {
    fn emit(&self, event: SessionEvent) {
        match event {
            SessionEvent::TurnStarted { session_id } => {
                self.turns
                    .0
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(session_id.clone());
                if let Err(e) = self.app.emit(TURN_RESUMED, TurnResumed { session_id }) {
                    tracing::debug!(error = %e, "turn-resumed not delivered");
                }
            }
            SessionEvent::TurnEnded { session_id, .. } => {
                self.turns
                    .0
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&session_id);
            }
            _ => {}
        }
    }
}
