//! Background work: `execute_task` of mode `async` (a task run once, in its
//! own background session, whose ending is delivered back into the
//! conversation that started it) and mode `cron` (a job run on a schedule,
//! each result delivered into Home), the one scheduler, and their stop,
//! crash and restart rules.
//!
//! - Every task is a `scheduled_jobs` row; every run a `job_runs` row
//!   linked to its background session (a normal session whose RunContext
//!   says `background`, inherited from the conversation that started it).
//! - A run holds its background session's slot and lease from before its
//!   row says `running` until after it says how it ended, so another
//!   process can tell a live run (lease held) from one a crash ended
//!   (lease free).
//! - Every ending — done, failed (with its last output), cancelled,
//!   interrupted — is written into the target conversation as a completed
//!   `task_completed` call (id `task-run-<run id>`, so it is written once)
//!   and the target's turn resumes when it is idle.
//! - Stop: any process sets `stop_requested`; the process running the run
//!   polls it and stops the run's turn (its shells killed, rows cancelled).
//! - Crash: a run left `running` whose session nobody holds is reported
//!   `interrupted` (never re-run: its side effects may have happened); its
//!   session's calls are settled as after any crash.

mod api;
mod deliver;
mod run;
mod schedule;
mod tools;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use skald_store::SessionLease;
use tokio::sync::Notify;

pub(crate) use deliver::TaskCompleted;
pub use schedule::{
    CRON_EXAMPLE, Clock, FakeClock, Schedule, SystemClock, local_label, parse_time_zone,
    system_time_zone, utc_label,
};
pub(crate) use tools::{
    AgentItems, CronItems, DeleteCronJob, ReadAgentResult, is_background_session, start_from_call,
};

/// The setting holding the person's time zone (an IANA name).
pub const TIME_ZONE_SETTING: &str = "time_zone";

/// The task machinery's state in one handler.
pub(crate) struct Tasks {
    pub clock: Arc<dyn Clock>,
    time_zone: Mutex<String>,
    /// Runs of this process: run id → background session.
    running: Mutex<HashMap<i64, String>>,
    /// Runs and deliveries in flight here (for `wait_tasks_idle`).
    busy: AtomicUsize,
    idle: Notify,
    /// The scheduler's cross-process claim, once taken.
    lease: Mutex<Option<SessionLease>>,
    /// Jobs changed: the scheduler looks again.
    pub wake: Notify,
}

impl Tasks {
    pub(crate) fn new(clock: Arc<dyn Clock>, time_zone: String) -> Self {
        Self {
            clock,
            time_zone: Mutex::new(time_zone),
            running: Mutex::new(HashMap::new()),
            busy: AtomicUsize::new(0),
            idle: Notify::new(),
            lease: Mutex::new(None),
            wake: Notify::new(),
        }
    }

    pub(crate) fn time_zone(&self) -> String {
        self.time_zone
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn set_time_zone(&self, tz: String) {
        *self
            .time_zone
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = tz;
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<i64, String>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts work in flight until the guard drops.
    pub(crate) fn busy(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::SeqCst);
        Busy(self.clone())
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.busy.load(Ordering::SeqCst)
    }
}

/// Work in flight; wakes `wait_tasks_idle` when the last one ends.
pub(crate) struct Busy(Arc<Tasks>);

impl Drop for Busy {
    fn drop(&mut self) {
        if self.0.busy.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}
