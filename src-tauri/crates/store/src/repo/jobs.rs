//! Scheduled jobs (`scheduled_jobs`) and their runs (`job_runs`). Parsing the
//! cron expression and computing `next_run_at` belong to the scheduler; this
//! stores what it decides.

use serde_json::Value;
use sqlx::sqlite::{SqlitePool, SqliteRow};
use sqlx::{FromRow, Row};

use crate::columns::{expect_one, json_column, json_text, now_ms, text_column};
use crate::error::{Result, StoreError};

/// Outcome of one run, stored in `job_runs.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobRunStatus {
    /// Still going.
    Running,
    /// Finished OK.
    Done,
    /// Ended with an error.
    Failed,
    /// Stopped.
    Cancelled,
    /// A crash ended it; reported, not re-run.
    Interrupted,
}

impl JobRunStatus {
    /// The column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Interrupted => "interrupted",
        }
    }

    /// Parses the column text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "running" => Ok(Self::Running),
            "done" => Ok(Self::Done),
            "failed" => Ok(Self::Failed),
            "cancelled" => Ok(Self::Cancelled),
            "interrupted" => Ok(Self::Interrupted),
            other => Err(StoreError::Invalid(format!(
                "unknown job run status {other:?}"
            ))),
        }
    }
}

text_column!(JobRunStatus);

/// What a job is, stored in `scheduled_jobs.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JobKind {
    /// Due again and again by its cron expression.
    #[default]
    Cron,
    /// An `execute_task` of mode `async`: runs once, at once; its ending
    /// goes back to the conversation that started it.
    Async,
}

impl JobKind {
    /// The column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cron => "cron",
            Self::Async => "async",
        }
    }

    /// Parses the column text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "cron" => Ok(Self::Cron),
            "async" => Ok(Self::Async),
            other => Err(StoreError::Invalid(format!("unknown job kind {other:?}"))),
        }
    }
}

text_column!(JobKind);

/// What started a run, stored in `job_runs.trigger`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunTrigger {
    /// The job came due.
    Schedule,
    /// The job came due while Skald was closed (run once for all missed ticks).
    Missed,
    /// A person asked (`skald cron run`, Run now).
    Manual,
    /// The one run of an async task.
    Async,
}

impl RunTrigger {
    /// The column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Schedule => "schedule",
            Self::Missed => "missed",
            Self::Manual => "manual",
            Self::Async => "async",
        }
    }

    /// Parses the column text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "schedule" => Ok(Self::Schedule),
            "missed" => Ok(Self::Missed),
            "manual" => Ok(Self::Manual),
            "async" => Ok(Self::Async),
            other => Err(StoreError::Invalid(format!(
                "unknown run trigger {other:?}"
            ))),
        }
    }
}

text_column!(RunTrigger);

/// What a job is besides its schedule and prompt (migration 8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobExtras {
    /// Cron job or async task.
    pub kind: JobKind,
    /// One line on what it does, for people.
    pub description: Option<String>,
    /// The IANA time zone a cron expression is evaluated in.
    pub time_zone: Option<String>,
    /// The conversation that started an async task (its ending goes there).
    pub parent_session_id: Option<String>,
    /// The `execute_task` call that started it.
    pub parent_call_id: Option<String>,
    /// Where its runs work.
    pub working_dir: Option<String>,
}

/// A job to create (or the new content of an existing job).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJob {
    /// Display name.
    pub name: String,
    /// Cron expression, as the scheduler understands it.
    pub cron_expr: String,
    /// The prompt each run starts with.
    pub prompt: String,
    /// The agent that runs it.
    pub agent_id: String,
    /// Disabled jobs are never due.
    pub enabled: bool,
    /// RunContext JSON the runs inherit.
    pub run_context: Option<Value>,
    /// Next due time, unix millis.
    pub next_run_at: Option<i64>,
}

/// A stored job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRow {
    /// Row id.
    pub id: i64,
    /// Display name.
    pub name: String,
    /// Cron expression.
    pub cron_expr: String,
    /// Prompt.
    pub prompt: String,
    /// Agent.
    pub agent_id: String,
    /// Whether it can be due.
    pub enabled: bool,
    /// RunContext JSON.
    pub run_context: Option<Value>,
    /// Unix millis.
    pub next_run_at: Option<i64>,
    /// Unix millis of the latest run's start.
    pub last_run_at: Option<i64>,
    /// Unix millis.
    pub created_at: i64,
    /// Unix millis.
    pub updated_at: i64,
    /// Kind, description, time zone, parent, working directory.
    pub extras: JobExtras,
}

impl<'r> FromRow<'r, SqliteRow> for JobRow {
    fn from_row(row: &'r SqliteRow) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            cron_expr: row.try_get("cron_expr")?,
            prompt: row.try_get("prompt")?,
            agent_id: row.try_get("agent_id")?,
            enabled: row.try_get("enabled")?,
            run_context: json_column(row, "run_context")?,
            next_run_at: row.try_get("next_run_at")?,
            last_run_at: row.try_get("last_run_at")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            extras: JobExtras {
                kind: row.try_get("kind")?,
                description: row.try_get("description")?,
                time_zone: row.try_get("time_zone")?,
                parent_session_id: row.try_get("parent_session_id")?,
                parent_call_id: row.try_get("parent_call_id")?,
                working_dir: row.try_get("working_dir")?,
            },
        })
    }
}

/// A stored run.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct JobRunRow {
    /// Row id.
    pub id: i64,
    /// The job.
    pub job_id: i64,
    /// The background session the run used.
    pub session_id: Option<String>,
    /// Outcome.
    pub status: JobRunStatus,
    /// Unix millis.
    pub started_at: i64,
    /// Unix millis.
    pub finished_at: Option<i64>,
    /// Error text for failed runs.
    pub error: Option<String>,
    /// The run's final (or last partial) output.
    pub output: Option<String>,
    /// Whether someone asked the run to stop.
    pub stop_requested: bool,
    /// When its ending was delivered (parent conversation or Home).
    pub delivered_at: Option<i64>,
    /// What started it.
    pub trigger: RunTrigger,
}

/// Repository for jobs and runs.
#[derive(Debug, Clone)]
pub struct JobsRepo {
    pool: SqlitePool,
}

impl JobsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Creates a cron job.
    pub async fn create(&self, job: &NewJob) -> Result<JobRow> {
        self.create_with(job, &JobExtras::default()).await
    }

    /// Creates a job of any kind.
    pub async fn create_with(&self, job: &NewJob, extras: &JobExtras) -> Result<JobRow> {
        let now = now_ms();
        let row = sqlx::query_as(
            "INSERT INTO scheduled_jobs
               (name, cron_expr, prompt, agent_id, enabled, run_context, next_run_at,
                created_at, updated_at, kind, description, time_zone, parent_session_id,
                parent_call_id, working_dir)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(&job.name)
        .bind(&job.cron_expr)
        .bind(&job.prompt)
        .bind(&job.agent_id)
        .bind(job.enabled)
        .bind(json_text(job.run_context.as_ref()))
        .bind(job.next_run_at)
        .bind(now)
        .bind(now)
        .bind(extras.kind)
        .bind(&extras.description)
        .bind(&extras.time_zone)
        .bind(&extras.parent_session_id)
        .bind(&extras.parent_call_id)
        .bind(&extras.working_dir)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// The job with this id, if any.
    pub async fn get(&self, id: i64) -> Result<Option<JobRow>> {
        let row = sqlx::query_as("SELECT * FROM scheduled_jobs WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Every job, oldest first.
    pub async fn list(&self) -> Result<Vec<JobRow>> {
        let rows = sqlx::query_as("SELECT * FROM scheduled_jobs ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// Enabled jobs whose `next_run_at` is at or before `now_ms`, soonest first.
    pub async fn due(&self, now_ms: i64) -> Result<Vec<JobRow>> {
        let rows = sqlx::query_as(
            "SELECT * FROM scheduled_jobs
             WHERE kind = 'cron' AND enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?
             ORDER BY next_run_at, id",
        )
        .bind(now_ms)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// Replaces a job's content (its id, created_at and last_run_at stay).
    pub async fn update(&self, id: i64, job: &NewJob) -> Result<JobRow> {
        let row: Option<JobRow> = sqlx::query_as(
            "UPDATE scheduled_jobs SET
               name = ?, cron_expr = ?, prompt = ?, agent_id = ?, enabled = ?,
               run_context = ?, next_run_at = ?, updated_at = ?
             WHERE id = ? RETURNING *",
        )
        .bind(&job.name)
        .bind(&job.cron_expr)
        .bind(&job.prompt)
        .bind(&job.agent_id)
        .bind(job.enabled)
        .bind(json_text(job.run_context.as_ref()))
        .bind(job.next_run_at)
        .bind(now_ms())
        .bind(id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next();
        row.ok_or_else(|| StoreError::not_found("scheduled job", id))
    }

    /// Enables or disables a job.
    pub async fn set_enabled(&self, id: i64, enabled: bool) -> Result<()> {
        let done =
            sqlx::query("UPDATE scheduled_jobs SET enabled = ?, updated_at = ? WHERE id = ?")
                .bind(enabled)
                .bind(now_ms())
                .bind(id)
                .execute(&self.pool)
                .await?;
        expect_one(done.rows_affected(), "scheduled job", id)
    }

    /// Sets when the job is next due.
    pub async fn set_next_run(&self, id: i64, next_run_at: Option<i64>) -> Result<()> {
        let done =
            sqlx::query("UPDATE scheduled_jobs SET next_run_at = ?, updated_at = ? WHERE id = ?")
                .bind(next_run_at)
                .bind(now_ms())
                .bind(id)
                .execute(&self.pool)
                .await?;
        expect_one(done.rows_affected(), "scheduled job", id)
    }

    /// Deletes a job and its runs. Returns whether it existed.
    pub async fn delete(&self, id: i64) -> Result<bool> {
        let done = sqlx::query("DELETE FROM scheduled_jobs WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Records the start of a run and stamps the job's `last_run_at`.
    pub async fn start_run(&self, job_id: i64, session_id: Option<&str>) -> Result<JobRunRow> {
        self.start_run_with(job_id, session_id, RunTrigger::Schedule)
            .await
    }

    /// [`start_run`](Self::start_run) with what started it. A job has at
    /// most one running run: a second start is a unique violation.
    pub async fn start_run_with(
        &self,
        job_id: i64,
        session_id: Option<&str>,
        trigger: RunTrigger,
    ) -> Result<JobRunRow> {
        let now = now_ms();
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("UPDATE scheduled_jobs SET last_run_at = ? WHERE id = ?")
            .bind(now)
            .bind(job_id)
            .execute(&mut *tx)
            .await?;
        expect_one(done.rows_affected(), "scheduled job", job_id)?;
        let row = sqlx::query_as(
            "INSERT INTO job_runs (job_id, session_id, status, started_at, trigger)
             VALUES (?, ?, 'running', ?, ?) RETURNING *",
        )
        .bind(job_id)
        .bind(session_id)
        .bind(now)
        .bind(trigger)
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        tx.commit().await?;
        Ok(row)
    }

    /// Ends a run.
    pub async fn finish_run(
        &self,
        run_id: i64,
        status: JobRunStatus,
        error: Option<&str>,
    ) -> Result<()> {
        let done =
            sqlx::query("UPDATE job_runs SET status = ?, error = ?, finished_at = ? WHERE id = ?")
                .bind(status)
                .bind(error)
                .bind(now_ms())
                .bind(run_id)
                .execute(&self.pool)
                .await?;
        expect_one(done.rows_affected(), "job run", run_id)
    }

    /// Ends a run that is still running, with its output; `false` when it
    /// had ended already (a stop and a crash report must not both win).
    pub async fn end_run(
        &self,
        run_id: i64,
        status: JobRunStatus,
        error: Option<&str>,
        output: Option<&str>,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE job_runs SET status = ?, error = ?, output = ?, finished_at = ?
             WHERE id = ? AND status = 'running'",
        )
        .bind(status)
        .bind(error)
        .bind(output)
        .bind(now_ms())
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Links a run to its background session.
    pub async fn set_run_session(&self, run_id: i64, session_id: &str) -> Result<()> {
        let done = sqlx::query("UPDATE job_runs SET session_id = ? WHERE id = ?")
            .bind(session_id)
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "job run", run_id)
    }

    /// Asks a running run to stop (whichever process runs it polls this).
    /// `false` when it is not running.
    pub async fn request_stop(&self, run_id: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE job_runs SET stop_requested = 1 WHERE id = ? AND status = 'running'",
        )
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Marks a run's ending as delivered.
    pub async fn mark_delivered(&self, run_id: i64) -> Result<()> {
        let done = sqlx::query("UPDATE job_runs SET delivered_at = ? WHERE id = ?")
            .bind(now_ms())
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "job run", run_id)
    }

    /// One run.
    pub async fn get_run(&self, run_id: i64) -> Result<Option<JobRunRow>> {
        let row = sqlx::query_as("SELECT * FROM job_runs WHERE id = ?")
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Every run still marked running, oldest first.
    pub async fn running_runs(&self) -> Result<Vec<JobRunRow>> {
        let rows = sqlx::query_as("SELECT * FROM job_runs WHERE status = 'running' ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// Runs that ended but whose ending was not delivered yet, oldest first.
    pub async fn undelivered_runs(&self) -> Result<Vec<JobRunRow>> {
        let rows = sqlx::query_as(
            "SELECT * FROM job_runs WHERE status <> 'running' AND delivered_at IS NULL
             ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// The latest runs of every job, newest first.
    pub async fn recent_runs(&self, limit: u32) -> Result<Vec<JobRunRow>> {
        let rows =
            sqlx::query_as("SELECT * FROM job_runs ORDER BY started_at DESC, id DESC LIMIT ?")
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows)
    }

    /// A job's latest runs, newest first.
    pub async fn list_runs(&self, job_id: i64, limit: u32) -> Result<Vec<JobRunRow>> {
        let rows = sqlx::query_as(
            "SELECT * FROM job_runs WHERE job_id = ? ORDER BY started_at DESC, id DESC LIMIT ?",
        )
        .bind(job_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }
}
