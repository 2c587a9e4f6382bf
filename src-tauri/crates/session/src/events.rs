//! [`EventSink`]: where a turn's [`SessionEvent`]s go. The desktop app
//! forwards them over a `tauri::ipc::Channel`, the CLI prints them, tests
//! record them. A sink must not block: it is called inline on the turn's path.

use std::sync::{Mutex, PoisonError};

use skald_protocol::SessionEvent;

/// Receives a turn's events, in order.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: SessionEvent);
}

impl<T: EventSink + ?Sized> EventSink for &T {
    fn emit(&self, event: SessionEvent) {
        (**self).emit(event);
    }
}

impl<T: EventSink + ?Sized> EventSink for std::sync::Arc<T> {
    fn emit(&self, event: SessionEvent) {
        (**self).emit(event);
    }
}

impl<T: EventSink + ?Sized> EventSink for Box<T> {
    fn emit(&self, event: SessionEvent) {
        (**self).emit(event);
    }
}

/// Drops every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: SessionEvent) {}
}

/// Calls a closure for each event.
pub struct FnSink<F>(pub F);

impl<F: Fn(SessionEvent) + Send + Sync> EventSink for FnSink<F> {
    fn emit(&self, event: SessionEvent) {
        (self.0)(event);
    }
}

/// Keeps every event (tests, snapshots).
#[derive(Debug, Default)]
pub struct RecordingSink {
    events: Mutex<Vec<SessionEvent>>,
}

impl RecordingSink {
    pub fn new() -> Self {
        Self::default()
    }

    /// The events so far, in order.
    pub fn events(&self) -> Vec<SessionEvent> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Removes and returns the events so far.
    pub fn take(&self) -> Vec<SessionEvent> {
        std::mem::take(&mut *self.events.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl EventSink for RecordingSink {
    fn emit(&self, event: SessionEvent) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }
}
