//! MCP grants (`session_mcp_grants`, `stack_mcp_grants`): which MCP servers —
//! or the reserved `config` tool group — a session or one agent frame may use.
//! Names are opaque here; their meaning belongs to the mcp and session crates.

use sqlx::sqlite::SqlitePool;

use crate::columns::now_ms;
use crate::error::Result;

/// Repository for both grant tables.
#[derive(Debug, Clone)]
pub struct GrantsRepo {
    pool: SqlitePool,
}

impl GrantsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Grants `name` to a session. Returns false if it was already granted.
    pub async fn grant_session(&self, session_id: &str, name: &str) -> Result<bool> {
        let done = sqlx::query(
            "INSERT OR IGNORE INTO session_mcp_grants (session_id, name, created_at)
             VALUES (?, ?, ?)",
        )
        .bind(session_id)
        .bind(name)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Revokes `name` from a session. Returns whether it was granted.
    pub async fn revoke_session(&self, session_id: &str, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM session_mcp_grants WHERE session_id = ? AND name = ?")
            .bind(session_id)
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// A session's grants, sorted.
    pub async fn list_session(&self, session_id: &str) -> Result<Vec<String>> {
        let names = sqlx::query_scalar(
            "SELECT name FROM session_mcp_grants WHERE session_id = ? ORDER BY name",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(names)
    }

    /// Grants `name` to one stack frame. Returns false if it was already granted.
    pub async fn grant_frame(&self, stack_id: i64, name: &str) -> Result<bool> {
        let done = sqlx::query(
            "INSERT OR IGNORE INTO stack_mcp_grants (stack_id, name, created_at) VALUES (?, ?, ?)",
        )
        .bind(stack_id)
        .bind(name)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Revokes `name` from a stack frame. Returns whether it was granted.
    pub async fn revoke_frame(&self, stack_id: i64, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM stack_mcp_grants WHERE stack_id = ? AND name = ?")
            .bind(stack_id)
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// A stack frame's grants, sorted.
    pub async fn list_frame(&self, stack_id: i64) -> Result<Vec<String>> {
        let names = sqlx::query_scalar(
            "SELECT name FROM stack_mcp_grants WHERE stack_id = ? ORDER BY name",
        )
        .bind(stack_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(names)
    }
}
