//! Running one job: its background session, its `job_runs` row, the turn,
//! stop requests from any process, and the report of runs a crash ended.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use skald_core_api::BoxFuture;
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_store::{
    FrameStatus, JobKind, JobRow, JobRunRow, JobRunStatus, Role, RunTrigger, Store, ToolCallStatus,
};
use tokio::sync::oneshot;

use crate::error::SessionError;
use crate::events::NullSink;
use crate::handler::{ChatSessionHandler, SessionParams};
use crate::notes;
use crate::sessions::root_frame;

use crate::attention::Attention;

/// How often a run looks for a stop request made by another process.
const STOP_POLL: Duration = Duration::from_millis(200);

/// The background session's RunContext: the starter's, marked background
/// (so its agent may `notify`, gets `execute_subtask` and is resumed only
/// by the task machinery).
fn background_context(job: &JobRow) -> Value {
    let mut rc = job
        .run_context
        .clone()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    rc["background"] = json!(true);
    rc["taskId"] = json!(job.id);
    rc
}

fn session_title(job: &JobRow, now_label: &str) -> String {
    match job.extras.kind {
        JobKind::Async => format!("🚀 {}", job.name),
        JobKind::Cron => format!("📅 {} · {now_label}", job.name),
    }
}

impl ChatSessionHandler {
    /// Starts a run of `job` in the background. Resolves with its run id
    /// once its row exists, or `None` when the job is already running
    /// (a job never overlaps itself).
    /// Boxed: a run's turn may start further tasks (a recursive future).
    pub(crate) fn launch(
        &self,
        job: JobRow,
        trigger: RunTrigger,
    ) -> BoxFuture<'static, Result<Option<i64>, SessionError>> {
        let busy = self.inner.tasks.busy();
        let (started_tx, started_rx) = oneshot::channel();
        let h = self.clone();
        let run: BoxFuture<'static, ()> = Box::pin(async move {
            let _busy = busy;
            let run = match h.run_job(&job, trigger, started_tx).await {
                Ok(Some(run)) => run,
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(job = job.id, error = %e, "task run failed to start");
                    return;
                }
            };
            if let Err(e) = h.deliver_run_boxed(run).await {
                tracing::warn!(run, error = %e, "task result not delivered");
            }
        });
        tokio::spawn(run);
        Box::pin(async move {
            started_rx.await.unwrap_or_else(|_| {
                Err(SessionError::Task(
                    "the task run ended before it started".into(),
                ))
            })
        })
    }

    /// Creates the run's session and row, runs its turn, records its ending.
    /// Boxed: a run's turn may start further tasks (a recursive future).
    fn run_job<'a>(
        &'a self,
        job: &'a JobRow,
        trigger: RunTrigger,
        started: oneshot::Sender<Result<Option<i64>, SessionError>>,
    ) -> BoxFuture<'a, Result<Option<i64>, SessionError>> {
        Box::pin(self.run_job_inner(job, trigger, started))
    }

    async fn run_job_inner(
        &self,
        job: &JobRow,
        trigger: RunTrigger,
        started: oneshot::Sender<Result<Option<i64>, SessionError>>,
    ) -> Result<Option<i64>, SessionError> {
        let store = &self.inner.store;
        let tz = job
            .extras
            .time_zone
            .clone()
            .unwrap_or_else(|| self.inner.tasks.time_zone());
        let now = self.inner.tasks.clock.now().timestamp_millis();
        let created = async {
            let summary = self
                .create_session(SessionParams {
                    title: Some(session_title(job, &super::local_label(now, &tz))),
                    agent_id: Some(job.agent_id.clone()),
                    working_dir: job.extras.working_dir.as_ref().map(PathBuf::from),
                })
                .await?;
            let sessions = store.sessions();
            sessions
                .set_run_context(&summary.id, Some(&background_context(job)))
                .await?;
            if let Some(group) = job
                .run_context
                .as_ref()
                .and_then(|rc| rc.get("permissionGroup"))
                .and_then(Value::as_str)
            {
                sessions.set_permission_group(&summary.id, group).await?;
            }
            Ok::<_, SessionError>(summary.id)
        }
        .await;
        let sid = match created {
            Ok(sid) => sid,
            Err(e) => {
                let msg = e.to_string();
                let _ = started.send(Err(e));
                return Err(SessionError::Task(msg));
            }
        };
        // The slot (and its cross-process lease) first: from the moment the
        // row says `running`, a live holder is visible to every process.
        let slot = match self.claim(&sid) {
            Ok(s) => s,
            Err(e) => {
                let msg = e.to_string();
                let _ = started.send(Err(e));
                return Err(SessionError::Task(msg));
            }
        };
        let run = match store
            .jobs()
            .start_run_with(job.id, Some(&sid), trigger)
            .await
        {
            Ok(run) => run,
            Err(e) if e.is_unique_violation() => {
                drop(slot);
                let _ = store.sessions().delete(&sid).await;
                let _ = started.send(Ok(None));
                return Ok(None);
            }
            Err(e) => {
                let msg = e.to_string();
                let _ = started.send(Err(e.into()));
                return Err(SessionError::Task(msg));
            }
        };
        let _ = started.send(Ok(Some(run.id)));
        self.inner.tasks.running().insert(run.id, sid.clone());
        self.emit_tasks_changed();

        // A stop asked for by any process (the Tasks view, `skald tasks
        // stop`) reaches the turn within a poll.
        let token = slot.token.clone();
        let watcher = {
            let store = store.clone();
            let run_id = run.id;
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(STOP_POLL).await;
                    match store.jobs().get_run(run_id).await {
                        Ok(Some(r)) if r.stop_requested => {
                            token.cancel();
                            return;
                        }
                        Ok(Some(r)) if r.status != JobRunStatus::Running => return,
                        Ok(None) => return,
                        _ => {}
                    }
                }
            })
        };

        let outcome = async {
            let prepared = self.prepare(&sid, job_model(job)).await?;
            let turn = self.turn(&prepared, &NullSink);
            turn.emit(SessionEvent::TurnStarted {
                session_id: sid.clone(),
            });
            let result = if slot.token.is_cancelled() {
                Ok(TurnOutcome::Cancelled)
            } else {
                self.user_turn(&turn, &prepared, &job.prompt, slot.token.clone())
                    .await
            };
            // Quiet: the task's end is the moment the person hears of.
            Ok::<_, SessionError>(self.end_turn_quietly(&turn, result).await)
        }
        .await;
        watcher.abort();
        let (status, error) = match outcome {
            Ok(TurnOutcome::Completed) => (JobRunStatus::Done, None),
            Ok(TurnOutcome::Cancelled) => (JobRunStatus::Cancelled, None),
            Ok(TurnOutcome::RoundLimit { rounds }) => (
                JobRunStatus::Failed,
                Some(format!("stopped at the round limit ({rounds} rounds)")),
            ),
            Ok(TurnOutcome::Failed { message }) => (JobRunStatus::Failed, Some(message)),
            Err(e) => (JobRunStatus::Failed, Some(e.to_string())),
        };
        let output = last_output(store, &sid).await;
        store
            .jobs()
            .end_run(run.id, status, error.as_deref(), output.as_deref())
            .await?;
        // Only now may another process take the session for itself.
        drop(slot);
        self.inner.tasks.running().remove(&run.id);
        self.announce_end(job, &run, status).await;
        Ok(Some(run.id))
    }

    /// Tells the person's windows that a run ended (`TaskEnded` on the
    /// bus) and asks for their attention: the one moment of a task's end
    /// (the run's own turn and the delivery turn it resumes stay quiet).
    pub(crate) async fn announce_end(&self, job: &JobRow, run: &JobRunRow, status: JobRunStatus) {
        let target = match job.extras.kind {
            JobKind::Async => job.extras.parent_session_id.clone(),
            JobKind::Cron => self.home_session().await.ok(),
        };
        // The ending as stored (its output and error), not the row from
        // before the run ended.
        let ended = self
            .inner
            .store
            .jobs()
            .get_run(run.id)
            .await
            .ok()
            .flatten()
            .unwrap_or_else(|| run.clone());
        let follow = target
            .clone()
            .or_else(|| ended.session_id.clone())
            .unwrap_or_default();
        self.request_attention(Attention::task_ended(
            &follow,
            // The task as its cards name it: `🚀 → agent: title`.
            &format!("{} → {}: {}", job_icon(job), job.agent_id, job.name),
            &ending_summary(status, &ended),
        ));
        self.inner.bus.publish(&SessionEvent::TaskEnded {
            session_id: target.unwrap_or_default(),
            task_id: job.id,
            run_id: run.id,
            title: job.name.clone(),
            status: status.as_str().to_string(),
        });
    }

    pub(crate) fn emit_tasks_changed(&self) {
        self.inner.bus.publish(&SessionEvent::TasksChanged {
            session_id: String::new(),
        });
    }

    /// Asks the running run of task `id` to stop. `Ok(false)` when it is
    /// not running. A run this process holds stops at once; one held by
    /// another process stops within its poll; one nobody holds (its process
    /// died) is recorded cancelled here.
    pub(crate) async fn stop_run_of(&self, job: &JobRow) -> Result<bool, SessionError> {
        let store = &self.inner.store;
        let Some(run) = store
            .jobs()
            .list_runs(job.id, 1)
            .await?
            .into_iter()
            .find(|r| r.status == JobRunStatus::Running)
        else {
            return Ok(false);
        };
        store.jobs().request_stop(run.id).await?;
        let here = self.inner.tasks.running().get(&run.id).cloned();
        if let Some(sid) = here {
            self.stop(&sid);
            return Ok(true);
        }
        let Some(sid) = run.session_id.clone() else {
            self.end_orphan(
                job,
                &run,
                JobRunStatus::Cancelled,
                "stopped before it started",
            )
            .await?;
            return Ok(true);
        };
        // Free lease: nobody runs it any more.
        let free = matches!(store.try_lease_session(&sid), Ok(Some(_)));
        if free {
            self.settle_session(&sid).await;
            self.end_orphan(job, &run, JobRunStatus::Cancelled, "stopped by the person")
                .await?;
        }
        Ok(true)
    }

    /// Ends a run no process runs any more, and delivers its ending.
    async fn end_orphan(
        &self,
        job: &JobRow,
        run: &JobRunRow,
        status: JobRunStatus,
        error: &str,
    ) -> Result<(), SessionError> {
        let store = &self.inner.store;
        let output = match &run.session_id {
            Some(sid) => last_output(store, sid).await,
            None => None,
        };
        if store
            .jobs()
            .end_run(run.id, status, Some(error), output.as_deref())
            .await?
        {
            self.announce_end(job, run, status).await;
            self.spawn_delivery(run.id);
        }
        Ok(())
    }

    /// Settles a dead run's session as after any crash (reads re-run,
    /// side-effecting calls reported interrupted, nothing waits), and
    /// leaves its turn unanswered.
    async fn settle_session(&self, sid: &str) {
        // Its calls waiting for a person end with it: nobody continues the
        // run, so an answer from the Inbox would have nowhere to go.
        if let Err(e) = self.end_waiting_calls(sid).await {
            tracing::warn!(session = %sid, error = %e, "cannot end a task's waiting calls");
        }
        if let Err(e) = self.resume_pending_tools(sid, NullSink).await {
            tracing::warn!(session = %sid, error = %e, "cannot settle a task's session");
        }
        let store = &self.inner.store;
        if let Ok(Some(session)) = store.sessions().get(sid).await
            && let Ok(frame) = root_frame(store, &session).await
        {
            let _ = store
                .stack()
                .set_status(frame.id, FrameStatus::Waiting)
                .await;
        }
    }

    /// Ends session `sid`'s calls waiting for approval as interrupted (the
    /// Inbox drops them); settling then gives the model their note.
    async fn end_waiting_calls(&self, sid: &str) -> Result<(), SessionError> {
        let calls = self.inner.store.tool_calls();
        let mut ended = false;
        for row in calls.list_for_session(sid).await? {
            if crate::approval::awaits_approval(&row) {
                calls
                    .finish(
                        &row.id,
                        ToolCallStatus::Cancelled,
                        Some(notes::INTERRUPTED),
                        None,
                    )
                    .await?;
                ended = true;
            }
        }
        if ended {
            self.inner.gate.waiting_changed();
        }
        Ok(())
    }

    /// On start: runs left `running` that no process holds were ended by a
    /// crash — reported `interrupted`, never re-run; async tasks whose run
    /// never started likewise; then every ending not yet delivered is.
    pub async fn recover_tasks(&self) -> Result<usize, SessionError> {
        let store = &self.inner.store;
        let mut ended = 0;
        for run in store.jobs().running_runs().await? {
            if self.inner.tasks.running().contains_key(&run.id) {
                continue;
            }
            let Some(job) = store.jobs().get(run.job_id).await? else {
                continue;
            };
            let note = match &run.session_id {
                None => "Skald stopped before the task started; it was not run",
                Some(sid) => match store.try_lease_session(sid) {
                    Ok(Some(lease)) => {
                        drop(lease);
                        self.settle_session(sid).await;
                        "interrupted by a restart before it finished; it was not re-run \
                         (what it did before is in its transcript)"
                    }
                    // Another process runs it.
                    _ => continue,
                },
            };
            self.end_orphan(&job, &run, JobRunStatus::Interrupted, note)
                .await?;
            ended += 1;
        }
        for job in store.jobs().list().await? {
            if job.extras.kind == JobKind::Async
                && store.jobs().list_runs(job.id, 1).await?.is_empty()
                && self.starter_gone(&job)
            {
                // Accepted, then a crash before its run began: say so.
                let run = store
                    .jobs()
                    .start_run_with(job.id, None, RunTrigger::Async)
                    .await?;
                self.end_orphan(
                    &job,
                    &run,
                    JobRunStatus::Interrupted,
                    "Skald stopped before the task started; it was not run",
                )
                .await?;
                ended += 1;
            }
        }
        for run in store.jobs().undelivered_runs().await? {
            self.spawn_delivery(run.id);
        }
        Ok(ended)
    }

    /// Whether the turn that accepted async `job` is over without starting
    /// its run. That turn holds its conversation's lease from accepting
    /// the task until its run row exists, so a free lease (or a conversation
    /// that is gone) means a crash came in between.
    fn starter_gone(&self, job: &JobRow) -> bool {
        let Some(parent) = &job.extras.parent_session_id else {
            return true;
        };
        if self.is_running(parent) {
            return false;
        }
        matches!(self.inner.store.try_lease_session(parent), Ok(Some(_)))
    }

    /// Delivers a run's ending in the background.
    pub(crate) fn spawn_delivery(&self, run_id: i64) {
        let busy = self.inner.tasks.busy();
        let h = self.clone();
        tokio::spawn(async move {
            let _busy = busy;
            if let Err(e) = h.deliver_run_boxed(run_id).await {
                tracing::warn!(run = run_id, error = %e, "task result not delivered");
            }
        });
    }
}

/// 🚀 for an async task, 📅 for a cron job (as on their cards).
pub(crate) fn job_icon(job: &JobRow) -> &'static str {
    match job.extras.kind {
        JobKind::Async => "🚀",
        JobKind::Cron => "📅",
    }
}

/// What a notification says about a run's ending.
fn ending_summary(status: JobRunStatus, run: &JobRunRow) -> String {
    let output = run.output.as_deref().filter(|o| !o.trim().is_empty());
    match status {
        JobRunStatus::Done => output.unwrap_or("Done.").to_string(),
        JobRunStatus::Failed => format!(
            "Failed: {}",
            run.error.as_deref().unwrap_or("no reason given")
        ),
        JobRunStatus::Cancelled => "Stopped.".to_string(),
        JobRunStatus::Interrupted => "Interrupted by a restart; it was not run again.".to_string(),
        JobRunStatus::Running => "Still running.".to_string(),
    }
}

/// The model the task's starter asked (its runs and endings ask it too).
pub(crate) fn job_model(job: &JobRow) -> Option<&str> {
    job.run_context
        .as_ref()
        .and_then(|rc| rc.get("model"))
        .and_then(Value::as_str)
}

/// The run's last words: the background session's latest non-empty
/// assistant text (partial output of a failed or stopped run).
pub(crate) async fn last_output(store: &Store, sid: &str) -> Option<String> {
    let rows = store.history().list_for_session(sid).await.ok()?;
    rows.iter()
        .rev()
        .find(|m| m.role == Role::Assistant && !m.content.trim().is_empty())
        .map(|m| m.content.clone())
}

impl super::Tasks {
    pub(crate) fn take_lease(&self, store: &Store) -> bool {
        let mut lease = self
            .lease
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if lease.is_none() {
            match store.try_lease_scheduler() {
                Ok(Some(l)) => *lease = Some(l),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "cannot take the scheduler's lease"),
            }
        }
        lease.is_some()
    }

    pub(crate) fn runs_here(&self) -> Vec<(i64, String)> {
        self.running()
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect()
    }
}
