//! Tool calls (`chat_llm_tools`): one row per call the model made, keyed by
//! its durable tool_call_id. The session driver writes every state change
//! here as it happens, so after a crash the truth is on disk.

use sqlx::FromRow;
use sqlx::sqlite::SqlitePool;

use crate::columns::{expect_one, json_text, now_ms};
use crate::error::{Result, StoreError};
use crate::repo::history::NewMessage;

/// The persisted status of a tool call: the wire type itself, stored as its
/// text (`running`, `pending`, `done`, `failed`, `cancelled`, `rejected`).
pub use skald_protocol::ToolCallStatus;

/// A tool call to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToolCall {
    /// The durable tool_call_id.
    pub id: String,
    /// Owning session.
    pub session_id: String,
    /// The assistant message that made the call.
    pub message_id: Option<i64>,
    /// Tool name.
    pub name: String,
    /// Arguments as JSON text, exactly as the model sent them.
    pub arguments: String,
    /// Initial status.
    pub status: ToolCallStatus,
}

/// A stored tool call.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ToolCallRow {
    /// The durable tool_call_id.
    pub id: String,
    /// Owning session.
    pub session_id: String,
    /// The assistant message that made the call.
    pub message_id: Option<i64>,
    /// Tool name.
    pub name: String,
    /// Arguments as JSON text.
    pub arguments: String,
    /// The tool's output.
    pub result: Option<String>,
    /// Status.
    #[sqlx(try_from = "String")]
    pub status: ToolCallStatus,
    /// Kind of result (e.g. text, image, diff), as the tool names it.
    pub result_type: Option<String>,
    /// File content before a write, for the approval diff.
    pub old_preview: Option<String>,
    /// File content after a write, for the approval diff.
    pub new_preview: Option<String>,
    /// The approval decision, if one was taken.
    pub decision: Option<String>,
    /// Why (rule, user note, ...).
    pub decision_reason: Option<String>,
    /// Unix millis.
    pub created_at: i64,
    /// Unix millis.
    pub updated_at: i64,
    /// Unix millis, set when the status became terminal.
    pub finished_at: Option<i64>,
    /// The result's content blocks as a JSON array (`None`: none, or a row
    /// from before they were kept).
    pub blocks: Option<String>,
    /// Why the previews are not the whole files (a large file's are cut to
    /// the changed lines); `None` when they are.
    pub preview_note: Option<String>,
}

/// Repository for `chat_llm_tools`.
#[derive(Debug, Clone)]
pub struct ToolCallsRepo {
    pool: SqlitePool,
}

impl ToolCallsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Records a new call.
    pub async fn insert(&self, new: &NewToolCall) -> Result<()> {
        let now = now_ms();
        sqlx::query(
            "INSERT INTO chat_llm_tools
               (id, session_id, message_id, name, arguments, status, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&new.id)
        .bind(&new.session_id)
        .bind(new.message_id)
        .bind(&new.name)
        .bind(&new.arguments)
        .bind(new.status.as_str())
        .bind(now)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Changes the status (e.g. running → pending while awaiting approval).
    pub async fn set_status(&self, id: &str, status: ToolCallStatus) -> Result<()> {
        let done = sqlx::query("UPDATE chat_llm_tools SET status = ?, updated_at = ? WHERE id = ?")
            .bind(status.as_str())
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "tool call", id)
    }

    /// Ends the call with a terminal status and its result.
    pub async fn finish(
        &self,
        id: &str,
        status: ToolCallStatus,
        result: Option<&str>,
        result_type: Option<&str>,
    ) -> Result<()> {
        if !status.is_terminal() {
            return Err(StoreError::Invalid(format!(
                "cannot finish tool call {id:?} with non-terminal status {status}"
            )));
        }
        let now = now_ms();
        let done = sqlx::query(
            "UPDATE chat_llm_tools
             SET status = ?, result = ?, result_type = ?, updated_at = ?, finished_at = ?
             WHERE id = ?",
        )
        .bind(status.as_str())
        .bind(result)
        .bind(result_type)
        .bind(now)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        expect_one(done.rows_affected(), "tool call", id)
    }

    /// [`finish`](Self::finish) and the call's result message in the
    /// history (`message`: its tool message), sent to the database as one
    /// request: each statement is a hand-off to SQLite's worker thread, and
    /// the hand-offs are most of a call's cost (docs/benchmarks.md). The
    /// message is only written when the call's row was there to finish.
    pub async fn finish_with_message(
        &self,
        id: &str,
        status: ToolCallStatus,
        result: Option<&str>,
        result_type: Option<&str>,
        message: &NewMessage,
    ) -> Result<()> {
        if !status.is_terminal() {
            return Err(StoreError::Invalid(format!(
                "cannot finish tool call {id:?} with non-terminal status {status}"
            )));
        }
        let now = now_ms();
        let done = sqlx::query(
            "UPDATE chat_llm_tools
             SET status = ?, result = ?, result_type = ?, updated_at = ?, finished_at = ?
             WHERE id = ?;
             INSERT INTO chat_history
               (session_id, stack_id, role, content, tool_calls, tool_call_id, created_at)
             SELECT ?, ?, ?, ?, ?, ?, ? WHERE changes() = 1",
        )
        .bind(status.as_str())
        .bind(result)
        .bind(result_type)
        .bind(now)
        .bind(now)
        .bind(id)
        .bind(&message.session_id)
        .bind(message.stack_id)
        .bind(message.role)
        .bind(&message.content)
        .bind(json_text(message.tool_calls.as_ref()))
        .bind(&message.tool_call_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        // The row finished plus its message, or nothing at all.
        expect_one(done.rows_affected(), "tool call", id)
    }

    /// Stores the result's content blocks (a JSON array), written just
    /// before [`finish`](Self::finish) so the row is never done without them.
    pub async fn set_blocks(&self, id: &str, blocks: Option<&str>) -> Result<()> {
        let done = sqlx::query("UPDATE chat_llm_tools SET blocks = ?, updated_at = ? WHERE id = ?")
            .bind(blocks)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "tool call", id)
    }

    /// Records the approval decision and its reason.
    pub async fn set_decision(
        &self,
        id: &str,
        decision: Option<&str>,
        reason: Option<&str>,
    ) -> Result<()> {
        let done = sqlx::query(
            "UPDATE chat_llm_tools SET decision = ?, decision_reason = ?, updated_at = ?
             WHERE id = ?",
        )
        .bind(decision)
        .bind(reason)
        .bind(now_ms())
        .bind(id)
        .execute(&self.pool)
        .await?;
        expect_one(done.rows_affected(), "tool call", id)
    }

    /// Stores the before/after previews shown on an approval card.
    pub async fn set_previews(
        &self,
        id: &str,
        old_preview: Option<&str>,
        new_preview: Option<&str>,
    ) -> Result<()> {
        let done = sqlx::query(
            "UPDATE chat_llm_tools SET old_preview = ?, new_preview = ?, updated_at = ?
             WHERE id = ?",
        )
        .bind(old_preview)
        .bind(new_preview)
        .bind(now_ms())
        .bind(id)
        .execute(&self.pool)
        .await?;
        expect_one(done.rows_affected(), "tool call", id)
    }

    /// Says why the stored previews are not the whole files (`None`: they are).
    pub async fn set_preview_note(&self, id: &str, note: Option<&str>) -> Result<()> {
        let done =
            sqlx::query("UPDATE chat_llm_tools SET preview_note = ?, updated_at = ? WHERE id = ?")
                .bind(note)
                .bind(now_ms())
                .bind(id)
                .execute(&self.pool)
                .await?;
        expect_one(done.rows_affected(), "tool call", id)
    }

    /// The call with this id, if any.
    pub async fn get(&self, id: &str) -> Result<Option<ToolCallRow>> {
        let row = sqlx::query_as("SELECT * FROM chat_llm_tools WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Calls in any of `statuses`, oldest first (e.g. running+pending for resume).
    pub async fn list_by_status(&self, statuses: &[ToolCallStatus]) -> Result<Vec<ToolCallRow>> {
        if statuses.is_empty() {
            return Ok(Vec::new());
        }
        let wanted =
            serde_json::Value::from(statuses.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        let rows = sqlx::query_as(
            "SELECT * FROM chat_llm_tools
             WHERE status IN (SELECT value FROM json_each(?))
             ORDER BY created_at, rowid",
        )
        .bind(wanted.to_string())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// A session's calls, oldest first.
    pub async fn list_for_session(&self, session_id: &str) -> Result<Vec<ToolCallRow>> {
        let rows = sqlx::query_as(
            "SELECT * FROM chat_llm_tools WHERE session_id = ? ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::ToolCallStatus;

    #[test]
    fn status_text_round_trips() {
        for s in ToolCallStatus::ALL {
            assert_eq!(ToolCallStatus::parse(s.as_str()).unwrap(), s);
            assert_eq!(s.to_string(), s.as_str());
        }
        assert!(ToolCallStatus::parse("Done").is_none());
    }

    #[test]
    fn only_ended_states_are_terminal() {
        let terminal: Vec<_> = ToolCallStatus::ALL
            .into_iter()
            .filter(|s| s.is_terminal())
            .collect();
        assert_eq!(
            terminal,
            [
                ToolCallStatus::Done,
                ToolCallStatus::Failed,
                ToolCallStatus::Cancelled,
                ToolCallStatus::Rejected
            ]
        );
    }
}
