//! One live tool invocation and its lifecycle.
//!
//! [`SimpleExecution`] races a work future against a stop token: stopping (or
//! dropping `wait`) drops the work future, which aborts its I/O — a child
//! spawned with `kill_on_drop(true)` dies with it. [`drive_execution`] is the
//! one driver used by the live loop and by crash resume.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

use crate::{ProgressReporter, ProgressWatch, ToolCallStatus, ToolError, ToolOutput};

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where an execution is. Richer than the persisted status string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolExecutionState {
    /// Created, not yet started (transient).
    Pending,
    /// Blocked on a human approval or clarification.
    AwaitingApproval,
    Running,
    Completed,
    Failed,
    /// Stopped by /stop: not an error.
    Cancelled,
    /// Denied by policy or a person: not an error.
    Rejected,
}

impl ToolExecutionState {
    /// The `chat_llm_tools.status` this state is persisted as.
    pub fn db_status(self) -> ToolCallStatus {
        match self {
            ToolExecutionState::Pending | ToolExecutionState::Running => ToolCallStatus::Running,
            ToolExecutionState::AwaitingApproval => ToolCallStatus::Pending,
            ToolExecutionState::Completed => ToolCallStatus::Done,
            ToolExecutionState::Failed => ToolCallStatus::Failed,
            ToolExecutionState::Cancelled => ToolCallStatus::Cancelled,
            ToolExecutionState::Rejected => ToolCallStatus::Rejected,
        }
    }

    pub fn is_terminal(self) -> bool {
        self.db_status().is_terminal()
    }
}

/// How a `wait` ends. Approval-phase outcomes belong to the session driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecutionOutcome {
    /// The result: the text the model reads and any content blocks.
    Completed(ToolOutput),
    Failed(ToolError),
    Cancelled,
}

impl ExecutionOutcome {
    pub fn state(&self) -> ToolExecutionState {
        match self {
            ExecutionOutcome::Completed(_) => ToolExecutionState::Completed,
            ExecutionOutcome::Failed(_) => ToolExecutionState::Failed,
            ExecutionOutcome::Cancelled => ToolExecutionState::Cancelled,
        }
    }
}

/// A single in-flight invocation; owns its state and its stop.
pub trait ToolExecution: Send + Sync {
    fn state(&self) -> ToolExecutionState;
    /// Resolves to a terminal outcome. Dropping the returned future cancels.
    fn wait<'a>(&'a self) -> BoxFuture<'a, ExecutionOutcome>;
    fn stop<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    /// The execution's live progress, if it reports any (see
    /// [`drive_with_progress`](crate::drive_with_progress)).
    fn progress(&self) -> Option<ProgressWatch> {
        None
    }
}

/// What a work future of a [`SimpleExecution`] resolves to.
type OutputResult = Result<ToolOutput, ToolError>;

/// The default execution: a work future and a stop token.
pub struct SimpleExecution<'a> {
    work: Mutex<Option<BoxFuture<'a, OutputResult>>>,
    progress: Option<ProgressWatch>,
    stop: CancellationToken,
    state: Mutex<ToolExecutionState>,
    outcome: Mutex<Option<ExecutionOutcome>>,
}

impl<'a> SimpleExecution<'a> {
    /// Runs `work`: a plain text result ([`ToolResult`](crate::ToolResult))
    /// or a [`ToolOutput`] with content blocks.
    pub fn new<T: Into<ToolOutput> + Send + 'a>(work: BoxFuture<'a, Result<T, ToolError>>) -> Self {
        Self::build(Box::pin(async move { work.await.map(Into::into) }), None)
    }

    /// Runs the work `start` returns, which reports its progress through
    /// the reporter it is given.
    pub fn with_progress<T: Into<ToolOutput> + Send + 'a>(
        start: impl FnOnce(ProgressReporter) -> BoxFuture<'a, Result<T, ToolError>>,
    ) -> Self {
        let (reporter, watch) = ProgressReporter::channel();
        let work = start(reporter);
        Self::build(
            Box::pin(async move { work.await.map(Into::into) }),
            Some(watch),
        )
    }

    fn build(work: BoxFuture<'a, OutputResult>, progress: Option<ProgressWatch>) -> Self {
        Self {
            work: Mutex::new(Some(work)),
            progress,
            stop: CancellationToken::new(),
            state: Mutex::new(ToolExecutionState::Pending),
            outcome: Mutex::new(None),
        }
    }

    fn set_state(&self, s: ToolExecutionState) {
        if let Ok(mut g) = self.state.lock() {
            *g = s;
        }
    }

    fn finish(&self, outcome: ExecutionOutcome) -> ExecutionOutcome {
        self.set_state(outcome.state());
        if let Ok(mut g) = self.outcome.lock() {
            *g = Some(outcome.clone());
        }
        outcome
    }
}

/// Marks the execution cancelled if `wait` is dropped while running.
struct CancelOnDrop<'s, 'a> {
    exec: &'s SimpleExecution<'a>,
    armed: bool,
}

impl Drop for CancelOnDrop<'_, '_> {
    fn drop(&mut self) {
        if self.armed {
            self.exec.finish(ExecutionOutcome::Cancelled);
        }
    }
}

impl ToolExecution for SimpleExecution<'_> {
    fn state(&self) -> ToolExecutionState {
        self.state
            .lock()
            .map(|g| *g)
            .unwrap_or(ToolExecutionState::Failed)
    }

    fn wait<'s>(&'s self) -> BoxFuture<'s, ExecutionOutcome> {
        Box::pin(async move {
            let work = self.work.lock().ok().and_then(|mut g| g.take());
            let Some(work) = work else {
                // The work future was already consumed: report how it ended,
                // or Cancelled if it was dropped before finishing.
                let done = self.outcome.lock().ok().and_then(|g| g.clone());
                return done.unwrap_or(ExecutionOutcome::Cancelled);
            };
            if self.stop.is_cancelled() {
                return self.finish(ExecutionOutcome::Cancelled);
            }
            self.set_state(ToolExecutionState::Running);
            let mut guard = CancelOnDrop {
                exec: self,
                armed: true,
            };
            let outcome = tokio::select! {
                biased;
                _ = self.stop.cancelled() => ExecutionOutcome::Cancelled,
                r = work => match r {
                    Ok(s) => ExecutionOutcome::Completed(s),
                    Err(e) => ExecutionOutcome::Failed(e),
                },
            };
            guard.armed = false;
            self.finish(outcome)
        })
    }

    fn stop<'s>(&'s self) -> BoxFuture<'s, ()> {
        self.stop.cancel();
        // A stop before the first wait still ends the execution.
        if self.state() == ToolExecutionState::Pending
            && let Ok(mut g) = self.work.lock()
            && g.take().is_some()
        {
            self.finish(ExecutionOutcome::Cancelled);
        }
        Box::pin(async {})
    }

    fn progress(&self) -> Option<ProgressWatch> {
        self.progress.clone()
    }
}

/// Runs `exec` to a terminal outcome; when `cancel` fires first, calls
/// `exec.stop()` exactly once and returns what `wait` then resolves to.
pub async fn drive_execution(
    exec: &dyn ToolExecution,
    cancel: CancellationToken,
) -> ExecutionOutcome {
    let mut wait = exec.wait();
    tokio::select! {
        biased;
        outcome = &mut wait => return outcome,
        _ = cancel.cancelled() => {}
    }
    exec.stop().await;
    wait.await
}
