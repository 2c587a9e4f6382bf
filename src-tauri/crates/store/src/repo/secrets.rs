//! Secrets (`secrets`): named values such as API keys. Values are returned
//! only by [`SecretsRepo::get`]; listings expose names alone. Stored as plain
//! text in the user's data directory (no OS keychain yet).

use sqlx::sqlite::SqlitePool;

use crate::columns::now_ms;
use crate::error::Result;

/// Repository for `secrets`. Its `Debug` never shows values (it holds none).
#[derive(Debug, Clone)]
pub struct SecretsRepo {
    pool: SqlitePool,
}

impl SecretsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Creates or replaces a secret.
    pub async fn set(&self, name: &str, value: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO secrets (name, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (name) DO UPDATE SET
               value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(name)
        .bind(value)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The secret's value, if set.
    pub async fn get(&self, name: &str) -> Result<Option<String>> {
        let value = sqlx::query_scalar("SELECT value FROM secrets WHERE name = ?")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(value)
    }

    /// Every secret's name, sorted.
    pub async fn list_names(&self) -> Result<Vec<String>> {
        let names = sqlx::query_scalar("SELECT name FROM secrets ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        Ok(names)
    }

    /// Deletes a secret. Returns whether it existed.
    pub async fn delete(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM secrets WHERE name = ?")
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
