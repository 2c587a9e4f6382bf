//! Chat sessions (`chat_sessions`): the conversation header. Messages, frames,
//! tool calls, grants and the scratchpad hang off it and cascade on delete.

use serde_json::Value;
use sqlx::sqlite::{SqlitePool, SqliteRow};
use sqlx::{FromRow, Row};

use crate::columns::{expect_one, json_column, json_text, now_ms};
use crate::error::{Result, StoreError};

/// A session to create; the id is generated (a random UUID) and the
/// permission group starts as `default`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// Display title; may be empty until the first turn names it.
    pub title: String,
    /// The root agent's id.
    pub agent_id: String,
    /// Working directory the tools resolve paths against.
    pub working_dir: Option<String>,
}

/// A stored session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// Random UUID text.
    pub id: String,
    /// Display title.
    pub title: String,
    /// The root agent's id.
    pub agent_id: String,
    /// Working directory.
    pub working_dir: Option<String>,
    /// Name of the permission group whose rules apply.
    pub permission_group: String,
    /// The RunContext as JSON, owned by the session/approval crates.
    pub run_context: Option<Value>,
    /// Unix millis.
    pub created_at: i64,
    /// Unix millis; bumped by [`SessionsRepo::touch`] and every update.
    pub updated_at: i64,
    /// The model this chat asks, when it picked one (else the default).
    pub model: Option<ModelRef>,
}

/// A model of a provider: a chat's own pick, or the one that wrote an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// The provider's id (`env:KIND` for an environment endpoint); empty
    /// when only the model name is known.
    pub provider: String,
    /// The model name as the provider knows it.
    pub model: String,
}

impl<'r> FromRow<'r, SqliteRow> for SessionRow {
    fn from_row(row: &'r SqliteRow) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            title: row.try_get("title")?,
            agent_id: row.try_get("agent_id")?,
            working_dir: row.try_get("working_dir")?,
            permission_group: row.try_get("permission_group")?,
            run_context: json_column(row, "run_context")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            model: row
                .try_get::<Option<String>, _>("model")?
                .map(|model| -> Result<ModelRef, sqlx::Error> {
                    Ok(ModelRef {
                        provider: row
                            .try_get::<Option<String>, _>("model_provider")?
                            .unwrap_or_default(),
                        model,
                    })
                })
                .transpose()?,
        })
    }
}

/// Repository for `chat_sessions`.
#[derive(Debug, Clone)]
pub struct SessionsRepo {
    pool: SqlitePool,
}

impl SessionsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Inserts a session and returns it with its generated id.
    pub async fn create(&self, new: NewSession) -> Result<SessionRow> {
        let now = now_ms();
        let row = sqlx::query_as(
            "INSERT INTO chat_sessions (title, agent_id, working_dir, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(new.title)
        .bind(new.agent_id)
        .bind(new.working_dir)
        .bind(now)
        .bind(now)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// The session with this id, if any.
    pub async fn get(&self, id: &str) -> Result<Option<SessionRow>> {
        let row = sqlx::query_as("SELECT * FROM chat_sessions WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Every session, most recently updated first.
    pub async fn list(&self) -> Result<Vec<SessionRow>> {
        let rows =
            sqlx::query_as("SELECT * FROM chat_sessions ORDER BY updated_at DESC, rowid DESC")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows)
    }

    /// Marks the session as just used.
    pub async fn touch(&self, id: &str) -> Result<()> {
        let done = sqlx::query("UPDATE chat_sessions SET updated_at = ? WHERE id = ?")
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "session", id)
    }

    /// Sets the title.
    pub async fn rename(&self, id: &str, title: &str) -> Result<()> {
        let done = sqlx::query("UPDATE chat_sessions SET title = ?, updated_at = ? WHERE id = ?")
            .bind(title)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "session", id)
    }

    /// Sets the working directory.
    pub async fn set_working_dir(&self, id: &str, working_dir: Option<&str>) -> Result<()> {
        let done =
            sqlx::query("UPDATE chat_sessions SET working_dir = ?, updated_at = ? WHERE id = ?")
                .bind(working_dir)
                .bind(now_ms())
                .bind(id)
                .execute(&self.pool)
                .await?;
        expect_one(done.rows_affected(), "session", id)
    }

    /// Sets the chat's own model (`None`: back to the default). Not a use
    /// of the chat: the list order stays.
    pub async fn set_model(&self, id: &str, model: Option<&ModelRef>) -> Result<()> {
        let done =
            sqlx::query("UPDATE chat_sessions SET model = ?, model_provider = ? WHERE id = ?")
                .bind(model.map(|m| m.model.as_str()))
                .bind(model.map(|m| m.provider.as_str()))
                .bind(id)
                .execute(&self.pool)
                .await?;
        expect_one(done.rows_affected(), "session", id)
    }

    /// Moves the session to another permission group (which must exist).
    pub async fn set_permission_group(&self, id: &str, group: &str) -> Result<()> {
        let done = sqlx::query(
            "UPDATE chat_sessions SET permission_group = ?, updated_at = ? WHERE id = ?",
        )
        .bind(group)
        .bind(now_ms())
        .bind(id)
        .execute(&self.pool)
        .await?;
        expect_one(done.rows_affected(), "session", id)
    }

    /// Replaces the stored RunContext JSON.
    pub async fn set_run_context(&self, id: &str, run_context: Option<&Value>) -> Result<()> {
        let done =
            sqlx::query("UPDATE chat_sessions SET run_context = ?, updated_at = ? WHERE id = ?")
                .bind(json_text(run_context))
                .bind(now_ms())
                .bind(id)
                .execute(&self.pool)
                .await?;
        expect_one(done.rows_affected(), "session", id)
    }

    /// The newest untitled session with no message yet, for this agent and
    /// working directory: "New chat" reuses it instead of piling up empties.
    pub async fn newest_empty(
        &self,
        agent_id: &str,
        working_dir: Option<&str>,
    ) -> Result<Option<SessionRow>> {
        let row = sqlx::query_as(
            "SELECT * FROM chat_sessions s
             WHERE s.title = '' AND s.agent_id = ? AND s.working_dir IS ?
               AND NOT EXISTS (SELECT 1 FROM chat_history h WHERE h.session_id = s.id)
             ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1",
        )
        .bind(agent_id)
        .bind(working_dir)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
    }

    /// Sessions whose title or any user/assistant message contains `text`
    /// (case-insensitive for ASCII), most recently updated first, each with
    /// the first matching message (None when only the title matched).
    pub async fn search(&self, text: &str) -> Result<Vec<(SessionRow, Option<String>)>> {
        let pattern = format!("%{}%", like_escape(text));
        let rows: Vec<SessionRow> = sqlx::query_as(
            "SELECT * FROM chat_sessions s
             WHERE s.title LIKE ?1 ESCAPE '\\'
                OR EXISTS (SELECT 1 FROM chat_history h WHERE h.session_id = s.id
                           AND h.role IN ('user', 'assistant') AND h.content LIKE ?1 ESCAPE '\\')
             ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 200",
        )
        .bind(&pattern)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let hit: Option<(String,)> = sqlx::query_as(
                "SELECT content FROM chat_history WHERE session_id = ? AND role IN ('user', 'assistant')
                 AND content LIKE ? ESCAPE '\\' ORDER BY id LIMIT 1",
            )
            .bind(&row.id)
            .bind(&pattern)
            .fetch_optional(&self.pool)
            .await?;
            out.push((row, hit.map(|(c,)| c)));
        }
        Ok(out)
    }

    /// Deletes the session and everything hanging off it. Returns whether it existed.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM chat_sessions WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

/// `text` with LIKE's wildcards taken literally (escape character `\`).
fn like_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
