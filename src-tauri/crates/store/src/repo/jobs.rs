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
}

impl JobRunStatus {
    /// The column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Parses the column text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "running" => Ok(Self::Running),
            "done" => Ok(Self::Done),
            "failed" => Ok(Self::Failed),
            "cancelled" => Ok(Self::Cancelled),
            other => Err(StoreError::Invalid(format!(
                "unknown job run status {other:?}"
            ))),
        }
    }
}

text_column!(JobRunStatus);

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

    /// Creates a job.
    pub async fn create(&self, job: &NewJob) -> Result<JobRow> {
        let now = now_ms();
        let row = sqlx::query_as(
            "INSERT INTO scheduled_jobs
               (name, cron_expr, prompt, agent_id, enabled, run_context, next_run_at,
                created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
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
             WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?
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
        let now = now_ms();
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("UPDATE scheduled_jobs SET last_run_at = ? WHERE id = ?")
            .bind(now)
            .bind(job_id)
            .execute(&mut *tx)
            .await?;
        expect_one(done.rows_affected(), "scheduled job", job_id)?;
        let row = sqlx::query_as(
            "INSERT INTO job_runs (job_id, session_id, status, started_at)
             VALUES (?, ?, 'running', ?) RETURNING *",
        )
        .bind(job_id)
        .bind(session_id)
        .bind(now)
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
