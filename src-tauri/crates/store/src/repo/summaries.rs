//! Summaries (`chat_summaries`): what stands in for the oldest messages of a
//! frame in later requests once its context window filled (or the person
//! compacted). The messages themselves stay in `chat_history`.

use sqlx::FromRow;
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::columns::now_ms;
use crate::error::{Result, StoreError};

/// A summary to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSummary {
    /// Owning session.
    pub session_id: String,
    /// The frame whose requests use it.
    pub stack_id: Option<i64>,
    /// The summary text.
    pub content: String,
    /// The first message it covers.
    pub first_message_id: i64,
    /// The last message it covers (inclusive).
    pub last_message_id: i64,
    /// How many messages it covers.
    pub message_count: i64,
    /// Estimated tokens of what it covers.
    pub covered_tokens: i64,
    /// The person asked for it ("compact").
    pub manual: bool,
}

/// A stored summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRow {
    /// Row id.
    pub id: i64,
    /// Owning session.
    pub session_id: String,
    /// The frame whose requests use it.
    pub stack_id: Option<i64>,
    /// The summary text.
    pub content: String,
    /// The first message it covers.
    pub first_message_id: i64,
    /// The last message it covers (inclusive).
    pub last_message_id: i64,
    /// How many messages it covers.
    pub message_count: i64,
    /// Estimated tokens of what it covers.
    pub covered_tokens: i64,
    /// The person asked for it.
    pub manual: bool,
    /// Unix millis.
    pub created_at: i64,
}

impl<'r> FromRow<'r, SqliteRow> for SummaryRow {
    fn from_row(row: &'r SqliteRow) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            session_id: row.try_get("session_id")?,
            stack_id: row.try_get("stack_id")?,
            content: row.try_get("content")?,
            first_message_id: row.try_get("first_message_id")?,
            last_message_id: row.try_get("last_message_id")?,
            message_count: row.try_get("message_count")?,
            covered_tokens: row.try_get("covered_tokens")?,
            manual: row.try_get::<i64, _>("manual")? != 0,
            created_at: row.try_get("created_at")?,
        })
    }
}

/// Repository for `chat_summaries`.
#[derive(Debug, Clone)]
pub struct SummariesRepo {
    pool: SqlitePool,
}

impl SummariesRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Stores a summary and returns it with its id.
    pub async fn add(&self, new: &NewSummary) -> Result<SummaryRow> {
        let row = sqlx::query_as(
            "INSERT INTO chat_summaries
               (session_id, stack_id, content, first_message_id, last_message_id,
                message_count, covered_tokens, manual, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(&new.session_id)
        .bind(new.stack_id)
        .bind(&new.content)
        .bind(new.first_message_id)
        .bind(new.last_message_id)
        .bind(new.message_count)
        .bind(new.covered_tokens)
        .bind(i64::from(new.manual))
        .bind(now_ms())
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// The summary a frame's requests use: the one reaching furthest.
    pub async fn latest_for_frame(&self, stack_id: i64) -> Result<Option<SummaryRow>> {
        let row = sqlx::query_as(
            "SELECT * FROM chat_summaries WHERE stack_id = ?
             ORDER BY last_message_id DESC, id DESC LIMIT 1",
        )
        .bind(stack_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
    }

    /// A session's summaries in order (the history's dividers).
    pub async fn list_for_session(&self, session_id: &str) -> Result<Vec<SummaryRow>> {
        let rows = sqlx::query_as("SELECT * FROM chat_summaries WHERE session_id = ? ORDER BY id")
            .bind(session_id)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }
}
