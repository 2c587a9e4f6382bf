//! The agent stack (`session_stack`): one row per agent frame of a session.
//! Depth 0 is the root agent; a sub-agent's frame points at its caller's.

use sqlx::FromRow;
use sqlx::sqlite::SqlitePool;

use crate::columns::{expect_one, now_ms, text_column};
use crate::error::{Result, StoreError};

/// Lifecycle of a frame, stored in `session_stack.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameStatus {
    /// The frame's agent is running.
    Active,
    /// The frame waits on a child frame or on the user.
    Waiting,
    /// Finished normally.
    Done,
    /// Ended with an error.
    Failed,
    /// Stopped by the user.
    Cancelled,
}

impl FrameStatus {
    /// The column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Waiting => "waiting",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Parses the column text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "active" => Ok(Self::Active),
            "waiting" => Ok(Self::Waiting),
            "done" => Ok(Self::Done),
            "failed" => Ok(Self::Failed),
            "cancelled" => Ok(Self::Cancelled),
            other => Err(StoreError::Invalid(format!(
                "unknown frame status {other:?}"
            ))),
        }
    }

    /// Whether the frame can still do work.
    pub fn is_live(self) -> bool {
        match self {
            Self::Active | Self::Waiting => true,
            Self::Done | Self::Failed | Self::Cancelled => false,
        }
    }
}

text_column!(FrameStatus);

/// A frame to push. Its depth is derived from the parent (0 without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewStackFrame {
    /// Owning session.
    pub session_id: String,
    /// The calling frame, `None` for the root agent.
    pub parent_id: Option<i64>,
    /// The frame's agent.
    pub agent_id: String,
    /// What the caller asked the sub-agent to do.
    pub task: Option<String>,
    /// Initial status, usually [`FrameStatus::Active`].
    pub status: FrameStatus,
}

/// A stored frame.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct StackFrameRow {
    /// Row id.
    pub id: i64,
    /// Owning session.
    pub session_id: String,
    /// The calling frame.
    pub parent_id: Option<i64>,
    /// 0 for the root agent.
    pub depth: i64,
    /// The frame's agent.
    pub agent_id: String,
    /// The sub-agent's task.
    pub task: Option<String>,
    /// Lifecycle.
    pub status: FrameStatus,
    /// The tool call (in the parent frame) that started this sub-agent.
    pub parent_call_id: Option<String>,
    /// Unix millis.
    pub created_at: i64,
    /// Unix millis.
    pub updated_at: i64,
}

/// Repository for `session_stack`.
#[derive(Debug, Clone)]
pub struct StackRepo {
    pool: SqlitePool,
}

impl StackRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Pushes a frame; fails if the parent does not exist.
    pub async fn push(&self, new: &NewStackFrame) -> Result<StackFrameRow> {
        self.push_inner(new, None).await
    }

    /// Pushes the frame of a sub-agent started by tool call `call_id` of the
    /// parent frame; one frame per call (a second push is a unique
    /// violation).
    pub async fn push_for_call(&self, new: &NewStackFrame, call_id: &str) -> Result<StackFrameRow> {
        self.push_inner(new, Some(call_id)).await
    }

    /// The frame tool call `call_id` started, if any.
    pub async fn for_call(&self, call_id: &str) -> Result<Option<StackFrameRow>> {
        let row = sqlx::query_as("SELECT * FROM session_stack WHERE parent_call_id = ?")
            .bind(call_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    async fn push_inner(
        &self,
        new: &NewStackFrame,
        call_id: Option<&str>,
    ) -> Result<StackFrameRow> {
        let depth = match new.parent_id {
            None => 0,
            Some(parent) => {
                let parent_depth: Option<i64> =
                    sqlx::query_scalar("SELECT depth FROM session_stack WHERE id = ?")
                        .bind(parent)
                        .fetch_optional(&self.pool)
                        .await?;
                parent_depth.ok_or_else(|| StoreError::not_found("stack frame", parent))? + 1
            }
        };
        let now = now_ms();
        let row = sqlx::query_as(
            "INSERT INTO session_stack
               (session_id, parent_id, depth, agent_id, task, status, parent_call_id,
                created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(&new.session_id)
        .bind(new.parent_id)
        .bind(depth)
        .bind(&new.agent_id)
        .bind(&new.task)
        .bind(new.status)
        .bind(call_id)
        .bind(now)
        .bind(now)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// The frame with this id, if any.
    pub async fn get(&self, id: i64) -> Result<Option<StackFrameRow>> {
        let row = sqlx::query_as("SELECT * FROM session_stack WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Every frame of a session, oldest first.
    pub async fn list_for_session(&self, session_id: &str) -> Result<Vec<StackFrameRow>> {
        let rows = sqlx::query_as("SELECT * FROM session_stack WHERE session_id = ? ORDER BY id")
            .bind(session_id)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// The deepest live (active or waiting) frame of a session.
    pub async fn top(&self, session_id: &str) -> Result<Option<StackFrameRow>> {
        let row = sqlx::query_as(
            "SELECT * FROM session_stack
             WHERE session_id = ? AND status IN ('active', 'waiting')
             ORDER BY depth DESC, id DESC LIMIT 1",
        )
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
    }

    /// Changes a frame's status.
    pub async fn set_status(&self, id: i64, status: FrameStatus) -> Result<()> {
        let done = sqlx::query("UPDATE session_stack SET status = ?, updated_at = ? WHERE id = ?")
            .bind(status)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "stack frame", id)
    }

    /// Deletes a frame and its descendants. Returns whether it existed.
    pub async fn delete(&self, id: i64) -> Result<bool> {
        let done = sqlx::query("DELETE FROM session_stack WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::FrameStatus;

    #[test]
    fn status_text_round_trips() {
        for s in [
            FrameStatus::Active,
            FrameStatus::Waiting,
            FrameStatus::Done,
            FrameStatus::Failed,
            FrameStatus::Cancelled,
        ] {
            assert_eq!(FrameStatus::parse(s.as_str()).unwrap(), s);
        }
        assert!(FrameStatus::parse("zombie").is_err());
    }
}
