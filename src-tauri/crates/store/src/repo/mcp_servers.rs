//! MCP servers (`mcp_servers`): what to start or reach, whether it is on, its
//! call timeout and the description the model reads. The transport `spec` is
//! opaque JSON here; its meaning belongs to the mcp crate.

use serde_json::Value;
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::columns::{now_ms, parse_json};
use crate::error::Result;

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerRow {
    /// Unique; never contains `__` (tool names are `mcp__<server>__<tool>`).
    pub name: String,
    /// The transport, as the mcp crate writes it.
    pub spec: Value,
    /// Whether it is started.
    pub enabled: bool,
    /// Per-call timeout in milliseconds.
    pub timeout_ms: i64,
    /// What the server is for, shown to the model.
    pub description: String,
    /// Unix ms.
    pub created_at: i64,
    /// Unix ms.
    pub updated_at: i64,
}

/// What [`McpServersRepo::upsert`] writes.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMcpServer {
    /// See [`McpServerRow::name`].
    pub name: String,
    /// See [`McpServerRow::spec`].
    pub spec: Value,
    /// See [`McpServerRow::enabled`].
    pub enabled: bool,
    /// See [`McpServerRow::timeout_ms`].
    pub timeout_ms: i64,
    /// See [`McpServerRow::description`].
    pub description: String,
}

/// Repository for `mcp_servers`.
#[derive(Debug, Clone)]
pub struct McpServersRepo {
    pool: SqlitePool,
}

const COLUMNS: &str = "name, spec, enabled, timeout_ms, description, created_at, updated_at";

fn from_row(row: &SqliteRow) -> std::result::Result<McpServerRow, sqlx::Error> {
    let spec: String = row.try_get("spec")?;
    Ok(McpServerRow {
        name: row.try_get("name")?,
        spec: parse_json("spec", &spec)?,
        enabled: row.try_get::<i64, _>("enabled")? != 0,
        timeout_ms: row.try_get("timeout_ms")?,
        description: row.try_get("description")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

impl McpServersRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Creates the server or replaces everything but its creation time.
    /// Returns whether it was new.
    pub async fn upsert(&self, s: &NewMcpServer) -> Result<bool> {
        let now = now_ms();
        let existed: Option<i64> =
            sqlx::query_scalar("SELECT created_at FROM mcp_servers WHERE name = ?")
                .bind(&s.name)
                .fetch_optional(&self.pool)
                .await?;
        sqlx::query(
            "INSERT INTO mcp_servers (name, spec, enabled, timeout_ms, description, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (name) DO UPDATE SET
               spec = excluded.spec, enabled = excluded.enabled,
               timeout_ms = excluded.timeout_ms, description = excluded.description,
               updated_at = excluded.updated_at",
        )
        .bind(&s.name)
        .bind(s.spec.to_string())
        .bind(i64::from(s.enabled))
        .bind(s.timeout_ms)
        .bind(&s.description)
        .bind(now)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(existed.is_none())
    }

    /// The server named `name`, if configured.
    pub async fn get(&self, name: &str) -> Result<Option<McpServerRow>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM mcp_servers WHERE name = ?"))
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// Every server, sorted by name.
    pub async fn list(&self) -> Result<Vec<McpServerRow>> {
        let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM mcp_servers ORDER BY name"))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(from_row)
            .collect::<std::result::Result<_, _>>()?)
    }

    /// Turns a server on or off. Returns whether it exists.
    pub async fn set_enabled(&self, name: &str, enabled: bool) -> Result<bool> {
        let done = sqlx::query("UPDATE mcp_servers SET enabled = ?, updated_at = ? WHERE name = ?")
            .bind(i64::from(enabled))
            .bind(now_ms())
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Removes a server. Returns whether it existed.
    pub async fn delete(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM mcp_servers WHERE name = ?")
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
