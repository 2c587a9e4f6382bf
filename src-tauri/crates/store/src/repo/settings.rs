//! Settings (`settings`): application preferences as key → JSON value. The
//! meaning of each key belongs to its reader; this only stores them.

use serde_json::Value;
use sqlx::sqlite::SqlitePool;

use crate::columns::{now_ms, parse_json};
use crate::error::Result;

/// Repository for `settings`.
#[derive(Debug, Clone)]
pub struct SettingsRepo {
    pool: SqlitePool,
}

impl SettingsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// The value under `key`, if set.
    pub async fn get(&self, key: &str) -> Result<Option<Value>> {
        let text: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        Ok(text.map(|t| parse_json("value", &t)).transpose()?)
    }

    /// Creates or replaces the value under `key`.
    pub async fn set(&self, key: &str, value: &Value) -> Result<()> {
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (key) DO UPDATE SET
               value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key)
        .bind(value.to_string())
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every setting, sorted by key.
    pub async fn list(&self) -> Result<Vec<(String, Value)>> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT key, value FROM settings ORDER BY key")
                .fetch_all(&self.pool)
                .await?;
        let mut out = Vec::with_capacity(rows.len());
        for (key, text) in rows {
            let value = parse_json("value", &text)?;
            out.push((key, value));
        }
        Ok(out)
    }

    /// Removes `key`. Returns whether it was set.
    pub async fn delete(&self, key: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM settings WHERE key = ?")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
