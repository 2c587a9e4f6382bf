//! Known tools (`known_tools`): every tool ever offered to a model, recorded
//! by tool discovery so the approval UI can gate any of them.

use sqlx::FromRow;
use sqlx::sqlite::SqlitePool;

use crate::columns::now_ms;
use crate::error::Result;

/// A tool seen in an assembled tool list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKnownTool {
    /// Tool name as offered to the model.
    pub name: String,
    /// Its description, when it has one.
    pub description: Option<String>,
    /// Where it comes from (e.g. `builtin`, `mcp`, `synthetic`).
    pub source: String,
}

/// A stored known tool.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct KnownToolRow {
    /// Tool name.
    pub name: String,
    /// Latest non-empty description.
    pub description: Option<String>,
    /// Latest source.
    pub source: String,
    /// Unix millis of the first sighting.
    pub first_seen: i64,
    /// Unix millis of the latest sighting.
    pub last_seen: i64,
}

/// Repository for `known_tools`.
#[derive(Debug, Clone)]
pub struct KnownToolsRepo {
    pool: SqlitePool,
}

impl KnownToolsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Inserts new tools and refreshes `last_seen`, `source` and (when given)
    /// `description` of known ones, in one transaction. Returns rows written.
    pub async fn upsert_many(&self, tools: &[NewKnownTool]) -> Result<u64> {
        if tools.is_empty() {
            return Ok(0);
        }
        let now = now_ms();
        let mut tx = self.pool.begin().await?;
        let mut written = 0;
        for tool in tools {
            let done = sqlx::query(
                "INSERT INTO known_tools (name, description, source, first_seen, last_seen)
                 VALUES (?, ?, ?, ?, ?)
                 ON CONFLICT (name) DO UPDATE SET
                   description = COALESCE(excluded.description, known_tools.description),
                   source = excluded.source,
                   last_seen = excluded.last_seen",
            )
            .bind(&tool.name)
            .bind(&tool.description)
            .bind(&tool.source)
            .bind(now)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            written += done.rows_affected();
        }
        tx.commit().await?;
        Ok(written)
    }

    /// The tool with this name, if any.
    pub async fn get(&self, name: &str) -> Result<Option<KnownToolRow>> {
        let row = sqlx::query_as("SELECT * FROM known_tools WHERE name = ?")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Every known tool, sorted by name.
    pub async fn list(&self) -> Result<Vec<KnownToolRow>> {
        let rows = sqlx::query_as("SELECT * FROM known_tools ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// Forgets a tool. Returns whether it was known.
    pub async fn delete(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM known_tools WHERE name = ?")
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
