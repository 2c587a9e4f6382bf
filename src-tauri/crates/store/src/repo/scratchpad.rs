//! The scratchpad (`session_scratchpad`): one shared blackboard per session,
//! injected into every agent of that session.

use sqlx::FromRow;
use sqlx::sqlite::SqlitePool;

use crate::columns::now_ms;
use crate::error::Result;

/// A session's scratchpad.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ScratchpadRow {
    /// Owning session.
    pub session_id: String,
    /// Full text.
    pub content: String,
    /// Unix millis.
    pub updated_at: i64,
}

/// One scratchpad entry (`scratchpad_entries`).
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ScratchpadEntry {
    /// Owning session.
    pub session_id: String,
    /// The entry's name, unique in the session.
    pub key: String,
    /// Its text.
    pub value: String,
    /// Unix millis of the last write.
    pub updated_at: i64,
}

/// Repository for the scratchpad: entries (`scratchpad_entries`) and the
/// older whole-text `session_scratchpad`.
#[derive(Debug, Clone)]
pub struct ScratchpadRepo {
    pool: SqlitePool,
}

impl ScratchpadRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// The session's scratchpad, if one was ever written.
    pub async fn get(&self, session_id: &str) -> Result<Option<ScratchpadRow>> {
        let row = sqlx::query_as("SELECT * FROM session_scratchpad WHERE session_id = ?")
            .bind(session_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Replaces the session's scratchpad text.
    pub async fn set(&self, session_id: &str, content: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO session_scratchpad (session_id, content, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (session_id) DO UPDATE SET
               content = excluded.content, updated_at = excluded.updated_at",
        )
        .bind(session_id)
        .bind(content)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Removes the scratchpad. Returns whether there was one.
    pub async fn clear(&self, session_id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM session_scratchpad WHERE session_id = ?")
            .bind(session_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The session's entries, by key.
    pub async fn entries(&self, session_id: &str) -> Result<Vec<ScratchpadEntry>> {
        let rows =
            sqlx::query_as("SELECT * FROM scratchpad_entries WHERE session_id = ? ORDER BY key")
                .bind(session_id)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows)
    }

    /// Writes one entry (inserting or replacing its value).
    pub async fn set_entry(&self, session_id: &str, key: &str, value: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO scratchpad_entries (session_id, key, value, updated_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (session_id, key) DO UPDATE SET
               value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(session_id)
        .bind(key)
        .bind(value)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Deletes one entry. Returns whether it existed.
    pub async fn remove_entry(&self, session_id: &str, key: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM scratchpad_entries WHERE session_id = ? AND key = ?")
            .bind(session_id)
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
