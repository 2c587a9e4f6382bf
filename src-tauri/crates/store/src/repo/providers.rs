//! LLM providers (`providers`) and their models (`models`). A provider names
//! the secret holding its API key; it never stores the key itself. At most
//! one model is the default.

use sqlx::FromRow;
use sqlx::sqlite::SqlitePool;

use crate::columns::{expect_one, now_ms};
use crate::error::{Result, StoreError};

/// Wire protocol of a provider, stored in `providers.kind` as its text: the
/// protocol's enum, shared with IPC and the environment's endpoints.
pub use skald_protocol::ProviderKind;

/// A provider to create (or the new content of an existing one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProvider {
    /// Stable id chosen by the caller (e.g. `openai`, `local-ollama`).
    pub id: String,
    /// Wire protocol.
    pub kind: ProviderKind,
    /// Display name.
    pub name: String,
    /// Endpoint override.
    pub base_url: Option<String>,
    /// Name of the secret holding the API key.
    pub api_key_secret: Option<String>,
    /// Disabled providers are not offered.
    pub enabled: bool,
}

/// A stored provider.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ProviderRow {
    /// Stable id.
    pub id: String,
    /// Wire protocol.
    #[sqlx(try_from = "String")]
    pub kind: ProviderKind,
    /// Display name.
    pub name: String,
    /// Endpoint override.
    pub base_url: Option<String>,
    /// Secret name for the API key.
    pub api_key_secret: Option<String>,
    /// Whether it is offered.
    pub enabled: bool,
    /// Unix millis.
    pub created_at: i64,
    /// Unix millis.
    pub updated_at: i64,
}

/// A model to add to a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewModel {
    /// Owning provider.
    pub provider_id: String,
    /// Model name as the provider knows it.
    pub name: String,
    /// Context window in tokens, when known.
    pub context_window: Option<i64>,
}

/// A stored model.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ModelRow {
    /// Row id.
    pub id: i64,
    /// Owning provider.
    pub provider_id: String,
    /// Model name.
    pub name: String,
    /// Context window in tokens.
    pub context_window: Option<i64>,
    /// Whether this is the default model.
    pub is_default: bool,
    /// How much the model should reason (`off`, `low`, `medium`, `high`); `None` leaves
    /// it to the provider.
    pub reasoning: Option<String>,
}

/// Repository for providers and models.
#[derive(Debug, Clone)]
pub struct ProvidersRepo {
    pool: SqlitePool,
}

impl ProvidersRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Creates a provider; fails if the id is taken.
    pub async fn create(&self, p: &NewProvider) -> Result<ProviderRow> {
        let now = now_ms();
        let row = sqlx::query_as(
            "INSERT INTO providers
               (id, kind, name, base_url, api_key_secret, enabled, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(&p.id)
        .bind(p.kind.as_str())
        .bind(&p.name)
        .bind(&p.base_url)
        .bind(&p.api_key_secret)
        .bind(p.enabled)
        .bind(now)
        .bind(now)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// Replaces the provider with id `p.id`.
    pub async fn update(&self, p: &NewProvider) -> Result<ProviderRow> {
        let row: Option<ProviderRow> = sqlx::query_as(
            "UPDATE providers SET
               kind = ?, name = ?, base_url = ?, api_key_secret = ?, enabled = ?, updated_at = ?
             WHERE id = ? RETURNING *",
        )
        .bind(p.kind.as_str())
        .bind(&p.name)
        .bind(&p.base_url)
        .bind(&p.api_key_secret)
        .bind(p.enabled)
        .bind(now_ms())
        .bind(&p.id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next();
        row.ok_or_else(|| StoreError::not_found("provider", &p.id))
    }

    /// The provider with this id, if any.
    pub async fn get(&self, id: &str) -> Result<Option<ProviderRow>> {
        let row = sqlx::query_as("SELECT * FROM providers WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Every provider, sorted by id.
    pub async fn list(&self) -> Result<Vec<ProviderRow>> {
        let rows = sqlx::query_as("SELECT * FROM providers ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// Enables or disables a provider.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> Result<()> {
        let done = sqlx::query("UPDATE providers SET enabled = ?, updated_at = ? WHERE id = ?")
            .bind(enabled)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "provider", id)
    }

    /// Deletes a provider and its models. Returns whether it existed.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM providers WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Adds a model (not default).
    pub async fn add_model(&self, m: &NewModel) -> Result<ModelRow> {
        let row = sqlx::query_as(
            "INSERT INTO models (provider_id, name, context_window) VALUES (?, ?, ?) RETURNING *",
        )
        .bind(&m.provider_id)
        .bind(&m.name)
        .bind(m.context_window)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// A provider's models, sorted by name.
    pub async fn list_models(&self, provider_id: &str) -> Result<Vec<ModelRow>> {
        let rows = sqlx::query_as("SELECT * FROM models WHERE provider_id = ? ORDER BY name")
            .bind(provider_id)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// Sets a model's context window.
    pub async fn set_context_window(&self, model_id: i64, tokens: Option<i64>) -> Result<()> {
        let done = sqlx::query("UPDATE models SET context_window = ? WHERE id = ?")
            .bind(tokens)
            .bind(model_id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "model", model_id)
    }

    /// Sets how much a model should reason (`off`, `low`, `medium`, `high`; `None`: the
    /// provider's default). Other values are refused by the column.
    pub async fn set_reasoning(&self, model_id: i64, reasoning: Option<&str>) -> Result<()> {
        let done = sqlx::query("UPDATE models SET reasoning = ? WHERE id = ?")
            .bind(reasoning)
            .bind(model_id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "model", model_id)
    }

    /// Makes this model the only default.
    pub async fn set_default_model(&self, model_id: i64) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE models SET is_default = 0 WHERE is_default = 1 AND id <> ?")
            .bind(model_id)
            .execute(&mut *tx)
            .await?;
        let done = sqlx::query("UPDATE models SET is_default = 1 WHERE id = ?")
            .bind(model_id)
            .execute(&mut *tx)
            .await?;
        expect_one(done.rows_affected(), "model", model_id)?;
        tx.commit().await?;
        Ok(())
    }

    /// The default model, if one is set.
    pub async fn default_model(&self) -> Result<Option<ModelRow>> {
        let row = sqlx::query_as("SELECT * FROM models WHERE is_default = 1")
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Deletes a model. Returns whether it existed.
    pub async fn delete_model(&self, model_id: i64) -> Result<bool> {
        let done = sqlx::query("DELETE FROM models WHERE id = ?")
            .bind(model_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::ProviderKind;

    #[test]
    fn kind_text_round_trips() {
        for k in [
            ProviderKind::OpenAi,
            ProviderKind::Anthropic,
            ProviderKind::Ollama,
        ] {
            assert_eq!(ProviderKind::parse(k.as_str()).unwrap(), k);
        }
        assert!(ProviderKind::parse("OpenAI").is_none());
    }
}
