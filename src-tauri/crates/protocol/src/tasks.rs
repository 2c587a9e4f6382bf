//! Background tasks (`execute_task` async) and cron jobs, as the Tasks view
//! and `skald tasks` / `skald cron` show them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A job: a cron job or an async task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskView {
    #[ts(type = "number")]
    pub id: i64,
    /// `cron` or `async`.
    pub kind: String,
    pub title: String,
    pub description: Option<String>,
    pub agent_id: String,
    pub prompt: String,
    /// Where its state stands: `running`, `scheduled`, `disabled`, or the
    /// outcome of an async task's run (`done`, `failed`, `cancelled`,
    /// `interrupted`).
    pub state: String,
    pub enabled: bool,
    /// The cron expression.
    pub cron: Option<String>,
    /// The expression in words.
    pub cron_words: Option<String>,
    /// The IANA time zone the expression is evaluated in.
    pub time_zone: Option<String>,
    /// Unix milliseconds (UTC).
    #[ts(type = "number | null")]
    pub next_run_at: Option<i64>,
    /// The conversation an async task reports to.
    pub parent_session_id: Option<String>,
    /// The latest run.
    pub last_run: Option<TaskRunView>,
}

/// One run of a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskRunView {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub task_id: i64,
    /// `running`, `done`, `failed`, `cancelled` or `interrupted`.
    pub status: String,
    /// `schedule`, `missed`, `manual` or `async`.
    pub trigger: String,
    #[ts(type = "number")]
    pub started_at: i64,
    #[ts(type = "number | null")]
    pub finished_at: Option<i64>,
    /// The background session: its transcript.
    pub session_id: Option<String>,
    pub error: Option<String>,
    pub output: Option<String>,
}

/// A job with its latest runs (`skald tasks show`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskDetailView {
    pub task: TaskView,
    pub runs: Vec<TaskRunView>,
}

/// The person's time zone for cron jobs (Settings, `skald cron tz`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TimeZoneView {
    /// The IANA name new cron jobs are evaluated in.
    pub time_zone: String,
    /// The system's zone (what is used when the person set none).
    pub system_time_zone: String,
    /// Whether `time_zone` is the system's (no zone set by the person).
    pub from_system: bool,
}
