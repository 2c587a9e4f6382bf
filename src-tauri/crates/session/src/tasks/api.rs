//! What the app and the CLI do with tasks: list, show, stop, run now,
//! enable/disable, delete, the time zone, and the scheduler.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use skald_protocol::{TaskDetailView, TaskRunView, TaskView, TimeZoneView};
use skald_store::{JobKind, JobRow, JobRunRow, JobRunStatus, RunTrigger};

use crate::error::SessionError;
use crate::handler::ChatSessionHandler;

use super::{Clock, Schedule, TIME_ZONE_SETTING, parse_time_zone, system_time_zone};

/// A run that came due late by more than this was missed while Skald was closed.
const MISSED_AFTER_MS: i64 = 60_000;
/// The scheduler looks at least this often (and whenever a job changes).
const MAX_SLEEP: Duration = Duration::from_secs(30);

fn run_view(r: &JobRunRow) -> TaskRunView {
    TaskRunView {
        id: r.id,
        task_id: r.job_id,
        status: r.status.as_str().to_string(),
        trigger: r.trigger.as_str().to_string(),
        started_at: r.started_at,
        finished_at: r.finished_at,
        session_id: r.session_id.clone(),
        error: r.error.clone(),
        output: r.output.clone(),
    }
}

fn task_view(job: &JobRow, last: Option<&JobRunRow>, default_tz: &str) -> TaskView {
    let cron = job.extras.kind == JobKind::Cron;
    let tz = job
        .extras
        .time_zone
        .clone()
        .unwrap_or_else(|| default_tz.to_string());
    let state = match (last.map(|r| r.status), cron, job.enabled) {
        (Some(JobRunStatus::Running), _, _) => "running".to_string(),
        (_, true, true) => "scheduled".to_string(),
        (_, true, false) => "disabled".to_string(),
        (Some(s), false, _) => s.as_str().to_string(),
        (None, false, _) => "starting".to_string(),
    };
    TaskView {
        id: job.id,
        kind: job.extras.kind.as_str().to_string(),
        title: job.name.clone(),
        description: job.extras.description.clone(),
        agent_id: job.agent_id.clone(),
        prompt: job.prompt.clone(),
        state,
        enabled: job.enabled,
        cron: cron.then(|| job.cron_expr.clone()),
        cron_words: cron
            .then(|| {
                Schedule::parse(&job.cron_expr, &tz)
                    .ok()
                    .map(|s| s.describe())
            })
            .flatten(),
        time_zone: cron.then_some(tz),
        next_run_at: if cron && job.enabled {
            job.next_run_at
        } else {
            None
        },
        parent_session_id: job.extras.parent_session_id.clone(),
        last_run: last.map(run_view),
    }
}

impl ChatSessionHandler {
    /// Replaces the clock the scheduler reads (tests). Call before sharing.
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Self {
        self.rebuilt(|p| p.clock = clock)
    }

    /// Starts with `tz` as the person's time zone instead of the system's
    /// (an unknown name is ignored). Call before sharing.
    pub fn with_time_zone(self, tz: &str) -> Self {
        if parse_time_zone(tz).is_err() {
            return self;
        }
        let tz = tz.to_string();
        self.rebuilt(|p| p.time_zone = tz)
    }

    /// The person's time zone (cron jobs are evaluated in it).
    pub fn time_zone(&self) -> String {
        self.inner.tasks.time_zone()
    }

    /// Sets the person's time zone for new cron jobs (stored in settings).
    pub async fn set_time_zone(&self, tz: &str) -> Result<(), SessionError> {
        parse_time_zone(tz).map_err(SessionError::Task)?;
        self.inner
            .store
            .settings()
            .set(TIME_ZONE_SETTING, &Value::String(tz.to_string()))
            .await?;
        self.inner.tasks.set_time_zone(tz.to_string());
        Ok(())
    }

    /// Goes back to the system's time zone for new cron jobs (the setting
    /// is removed, so a later change of the system's zone is followed).
    pub async fn use_system_time_zone(&self) -> Result<(), SessionError> {
        self.inner
            .store
            .settings()
            .delete(TIME_ZONE_SETTING)
            .await?;
        self.inner.tasks.set_time_zone(system_time_zone());
        Ok(())
    }

    /// The person's time zone as Settings shows it: the zone, the system's,
    /// and whether the person chose one.
    pub async fn time_zone_view(&self) -> Result<TimeZoneView, SessionError> {
        let stored = match self.inner.store.settings().get(TIME_ZONE_SETTING).await? {
            Some(Value::String(tz)) if parse_time_zone(&tz).is_ok() => Some(tz),
            _ => None,
        };
        let system = system_time_zone();
        Ok(TimeZoneView {
            from_system: stored.is_none(),
            time_zone: stored.unwrap_or_else(|| self.time_zone()),
            system_time_zone: system,
        })
    }

    /// Reads the stored time zone, if the person set one.
    pub async fn load_time_zone(&self) -> Result<(), SessionError> {
        if let Some(Value::String(tz)) = self.inner.store.settings().get(TIME_ZONE_SETTING).await?
            && parse_time_zone(&tz).is_ok()
        {
            self.inner.tasks.set_time_zone(tz);
        }
        Ok(())
    }

    /// Every task, newest first, with its latest run.
    pub async fn list_tasks(&self) -> Result<Vec<TaskView>, SessionError> {
        let jobs = self.inner.store.jobs();
        let tz = self.time_zone();
        let mut out = Vec::new();
        for job in jobs.list().await?.iter().rev() {
            let last = jobs.list_runs(job.id, 1).await?;
            out.push(task_view(job, last.first(), &tz));
        }
        Ok(out)
    }

    /// One task with its latest runs.
    pub async fn task(&self, id: i64) -> Result<TaskDetailView, SessionError> {
        let jobs = self.inner.store.jobs();
        let job = jobs.get(id).await?.ok_or(SessionError::TaskNotFound(id))?;
        let runs = jobs.list_runs(id, 50).await?;
        Ok(TaskDetailView {
            task: task_view(&job, runs.first(), &self.time_zone()),
            runs: runs.iter().map(run_view).collect(),
        })
    }

    /// Stops task `id`'s running run (its shells killed, its rows
    /// cancelled, its ending delivered). `Ok(false)`: it was not running.
    pub async fn stop_task(&self, id: i64) -> Result<bool, SessionError> {
        let job = self
            .inner
            .store
            .jobs()
            .get(id)
            .await?
            .ok_or(SessionError::TaskNotFound(id))?;
        self.stop_run_of(&job).await
    }

    /// Runs cron job `id` now (its schedule is unchanged). `Ok(None)` when
    /// it is already running.
    pub async fn run_task_now(&self, id: i64) -> Result<Option<i64>, SessionError> {
        let job = self
            .inner
            .store
            .jobs()
            .get(id)
            .await?
            .ok_or(SessionError::TaskNotFound(id))?;
        if job.extras.kind != JobKind::Cron {
            return Err(SessionError::Task(format!(
                "task {id} is an async task; only cron jobs run again"
            )));
        }
        self.launch(job, RunTrigger::Manual).await
    }

    /// Enables or disables cron job `id`; enabling plans its next run from now.
    pub async fn set_task_enabled(&self, id: i64, enabled: bool) -> Result<TaskView, SessionError> {
        let jobs = self.inner.store.jobs();
        let job = jobs.get(id).await?.ok_or(SessionError::TaskNotFound(id))?;
        if job.extras.kind != JobKind::Cron {
            return Err(SessionError::Task(format!(
                "task {id} is an async task; only cron jobs are enabled or disabled"
            )));
        }
        jobs.set_enabled(id, enabled).await?;
        let next = if enabled { self.next_run(&job)? } else { None };
        jobs.set_next_run(id, next).await?;
        self.inner.tasks.wake.notify_one();
        self.emit_tasks_changed();
        Ok(self.task(id).await?.task)
    }

    /// Deletes task `id` and its runs, stopping a running run first.
    pub async fn delete_task(&self, id: i64) -> Result<bool, SessionError> {
        let jobs = self.inner.store.jobs();
        let Some(job) = jobs.get(id).await? else {
            return Ok(false);
        };
        // Disabled first, so no tick starts it again meanwhile.
        jobs.set_enabled(id, false).await?;
        if self.stop_run_of(&job).await? {
            for _ in 0..50 {
                let running = jobs
                    .list_runs(id, 1)
                    .await?
                    .first()
                    .is_some_and(|r| r.status == JobRunStatus::Running);
                if !running {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        let deleted = jobs.delete(id).await?;
        self.emit_tasks_changed();
        Ok(deleted)
    }

    fn next_run(&self, job: &JobRow) -> Result<Option<i64>, SessionError> {
        let tz = job
            .extras
            .time_zone
            .clone()
            .unwrap_or_else(|| self.time_zone());
        let schedule = Schedule::parse(&job.cron_expr, &tz).map_err(SessionError::Task)?;
        Ok(schedule
            .next_after(self.inner.tasks.clock.now())
            .map(|t| t.timestamp_millis()))
    }

    /// Runs and deliveries in flight in this process.
    pub fn tasks_in_flight(&self) -> usize {
        self.inner.tasks.in_flight()
    }

    /// Waits until no run or delivery is in flight in this process (a run's
    /// ending resumes its parent, whose turn may start more).
    pub async fn wait_tasks_idle(&self) {
        loop {
            let idle = self.inner.tasks.idle.notified();
            if self.inner.tasks.in_flight() == 0 {
                return;
            }
            idle.await;
        }
    }

    /// Runs of this process: `(run id, background session)`.
    pub fn runs_here(&self) -> Vec<(i64, String)> {
        self.inner.tasks.runs_here()
    }

    /// One look of the scheduler: when this process holds the scheduler's
    /// lease, every due cron job starts (once, however many ticks it
    /// missed while Skald was closed) and gets its next run. Returns the
    /// runs started; `None` when another process is the scheduler.
    pub async fn scheduler_tick(&self) -> Result<Option<Vec<i64>>, SessionError> {
        let store = &self.inner.store;
        if !self.inner.tasks.take_lease(store) {
            return Ok(None);
        }
        let now = self.inner.tasks.clock.now();
        let now_ms = now.timestamp_millis();
        let jobs = store.jobs();
        for job in jobs.list().await? {
            if job.extras.kind == JobKind::Cron && job.enabled && job.next_run_at.is_none() {
                let next = self.next_run(&job).unwrap_or(None);
                jobs.set_next_run(job.id, next).await?;
            }
        }
        let mut started = Vec::new();
        for job in jobs.due(now_ms).await? {
            let next = match self.next_run(&job) {
                Ok(next) => next,
                Err(e) => {
                    tracing::warn!(job = job.id, error = %e, "a cron job cannot be scheduled; disabled");
                    jobs.set_enabled(job.id, false).await?;
                    jobs.set_next_run(job.id, None).await?;
                    continue;
                }
            };
            // The next run is counted from now: ticks missed while Skald
            // was closed make one run, not one each.
            jobs.set_next_run(job.id, next).await?;
            let missed = job
                .next_run_at
                .is_some_and(|due| now_ms - due > MISSED_AFTER_MS);
            let trigger = if missed {
                RunTrigger::Missed
            } else {
                RunTrigger::Schedule
            };
            if let Some(run) = self.launch(job, trigger).await? {
                started.push(run);
            }
        }
        Ok(Some(started))
    }

    /// The scheduler, for the life of the app: recovers what a crash left,
    /// then ticks when the next job is due (at least every 30 s, and when a
    /// job changes). Only the process holding the scheduler's lease runs
    /// jobs; the others keep trying to take it.
    pub async fn run_scheduler(&self) {
        if let Err(e) = self.load_time_zone().await {
            tracing::warn!(error = %e, "cannot read the time zone setting");
        }
        if let Err(e) = self.recover_tasks().await {
            tracing::warn!(error = %e, "recovering tasks failed");
        }
        loop {
            if let Err(e) = self.scheduler_tick().await {
                tracing::warn!(error = %e, "scheduler tick failed");
            }
            let sleep = self.until_next_due().await.unwrap_or(MAX_SLEEP);
            let wake = self.inner.tasks.wake.notified();
            tokio::select! {
                _ = tokio::time::sleep(sleep) => {}
                _ = wake => {}
            }
        }
    }

    async fn until_next_due(&self) -> Option<Duration> {
        let now = self.inner.tasks.clock.now().timestamp_millis();
        let jobs = self.inner.store.jobs().list().await.ok()?;
        let next = jobs
            .iter()
            .filter(|j| j.extras.kind == JobKind::Cron && j.enabled)
            .filter_map(|j| j.next_run_at)
            .min()?;
        let ms = u64::try_from((next - now).max(50)).unwrap_or(50);
        Some(Duration::from_millis(ms).min(MAX_SLEEP))
    }
}
