//! Questions an agent asked the person (`clarifications`), one per pending
//! `ask_user_clarification` call. The row outlives the process that asked,
//! so a restart asks again and an answer from the Inbox or `skald answer`
//! reaches the turn.

use serde_json::Value;
use sqlx::sqlite::{SqlitePool, SqliteRow};
use sqlx::{FromRow, Row};

use crate::columns::{json_column, json_text, now_ms, parse_json};
use crate::error::Result;

/// A stored question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClarificationRow {
    /// The asking call (`chat_llm_tools.id`).
    pub tool_call_id: String,
    /// Its session.
    pub session_id: String,
    /// The asking agent's frame.
    pub frame_id: Option<i64>,
    /// The asking agent.
    pub agent_id: String,
    /// A short title.
    pub title: String,
    /// The question (Markdown).
    pub question: String,
    /// Suggested answers, offered as buttons.
    pub suggestions: Vec<String>,
    /// `pending`, `answered`, `withdrawn`.
    pub status: String,
    /// The person's answer, once given.
    pub answer: Option<String>,
    /// Unix millis.
    pub created_at: i64,
    /// Unix millis of the answer or withdrawal.
    pub answered_at: Option<i64>,
    /// An MCP elicitation's requested JSON schema (the form to fill).
    pub schema: Option<Value>,
    /// The MCP server that asked (an elicitation).
    pub server: Option<String>,
    /// An elicitation's property names in the server's order (the schema
    /// object's own key order is lost once it is a `Value`); empty otherwise.
    pub property_order: Vec<String>,
    /// A URL-mode elicitation: the page the person is sent to.
    pub url: Option<String>,
}

/// What an MCP server asks for: a form (its schema and the order of its
/// fields) or, with `url`, a visit to a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElicitationRequest {
    /// The MCP server asking.
    pub server: String,
    /// The requested JSON schema (no properties in URL mode).
    pub schema: Value,
    /// The schema's property names in the server's order.
    pub property_order: Vec<String>,
    /// URL mode: the page to visit.
    pub url: Option<String>,
}

impl FromRow<'_, SqliteRow> for ClarificationRow {
    fn from_row(row: &SqliteRow) -> std::result::Result<Self, sqlx::Error> {
        let raw: String = row.try_get("suggestions")?;
        let suggestions = match parse_json("suggestions", &raw)? {
            Value::Array(items) => items
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        Ok(Self {
            tool_call_id: row.try_get("tool_call_id")?,
            session_id: row.try_get("session_id")?,
            frame_id: row.try_get("frame_id")?,
            agent_id: row.try_get("agent_id")?,
            title: row.try_get("title")?,
            question: row.try_get("question")?,
            suggestions,
            status: row.try_get("status")?,
            answer: row.try_get("answer")?,
            created_at: row.try_get("created_at")?,
            answered_at: row.try_get("answered_at")?,
            schema: json_column(row, "schema")?,
            server: row.try_get("server")?,
            property_order: match json_column(row, "property_order")? {
                Some(Value::Array(items)) => items
                    .into_iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            },
            url: row.try_get("url")?,
        })
    }
}

/// A question to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClarification {
    /// The asking call.
    pub tool_call_id: String,
    /// Its session.
    pub session_id: String,
    /// The asking agent's frame.
    pub frame_id: Option<i64>,
    /// The asking agent.
    pub agent_id: String,
    /// A short title.
    pub title: String,
    /// The question.
    pub question: String,
    /// Suggested answers.
    pub suggestions: Vec<String>,
}

/// Repository for `clarifications`.
#[derive(Debug, Clone)]
pub struct ClarificationsRepo {
    pool: SqlitePool,
}

impl ClarificationsRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Stores a pending question; asking again under the same call (a
    /// re-run after a restart) keeps the row and any answer already given.
    pub async fn ask(&self, new: &NewClarification) -> Result<ClarificationRow> {
        sqlx::query(
            "INSERT INTO clarifications
               (tool_call_id, session_id, frame_id, agent_id, title, question, suggestions, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (tool_call_id) DO NOTHING",
        )
        .bind(&new.tool_call_id)
        .bind(&new.session_id)
        .bind(new.frame_id)
        .bind(&new.agent_id)
        .bind(&new.title)
        .bind(&new.question)
        .bind(Value::from(new.suggestions.clone()).to_string())
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        self.get(&new.tool_call_id)
            .await?
            .ok_or_else(|| crate::StoreError::not_found("clarification", new.tool_call_id.clone()))
    }

    /// Stores an MCP server's elicitation as the pending question of the
    /// tool call it came from. A server may ask several times during one
    /// call, so a settled question of the call is replaced (a call has one
    /// card).
    pub async fn ask_form(
        &self,
        new: &NewClarification,
        form: &ElicitationRequest,
    ) -> Result<ClarificationRow> {
        let order = Value::from(form.property_order.clone());
        sqlx::query(
            "INSERT INTO clarifications
               (tool_call_id, session_id, frame_id, agent_id, title, question, suggestions,
                created_at, schema, server, property_order, url)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (tool_call_id) DO UPDATE SET
               title = excluded.title, question = excluded.question,
               suggestions = excluded.suggestions, created_at = excluded.created_at,
               schema = excluded.schema, server = excluded.server,
               property_order = excluded.property_order, url = excluded.url,
               status = 'pending', answer = NULL, answered_at = NULL",
        )
        .bind(&new.tool_call_id)
        .bind(&new.session_id)
        .bind(new.frame_id)
        .bind(&new.agent_id)
        .bind(&new.title)
        .bind(&new.question)
        .bind(Value::from(new.suggestions.clone()).to_string())
        .bind(now_ms())
        .bind(json_text(Some(&form.schema)))
        .bind(&form.server)
        .bind(json_text(Some(&order)))
        .bind(form.url.as_deref())
        .execute(&self.pool)
        .await?;
        self.get(&new.tool_call_id)
            .await?
            .ok_or_else(|| crate::StoreError::not_found("clarification", new.tool_call_id.clone()))
    }

    /// The question of this call, if any.
    pub async fn get(&self, tool_call_id: &str) -> Result<Option<ClarificationRow>> {
        let row = sqlx::query_as("SELECT * FROM clarifications WHERE tool_call_id = ?")
            .bind(tool_call_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// Questions still waiting, oldest first.
    pub async fn list_pending(&self) -> Result<Vec<ClarificationRow>> {
        let rows = sqlx::query_as(
            "SELECT * FROM clarifications WHERE status = 'pending' ORDER BY created_at, rowid",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// Answers a pending question. Returns whether it was pending.
    pub async fn answer(&self, tool_call_id: &str, answer: &str) -> Result<bool> {
        self.settle(tool_call_id, "answered", Some(answer)).await
    }

    /// Withdraws a pending question (Stop). Returns whether it was pending.
    pub async fn withdraw(&self, tool_call_id: &str) -> Result<bool> {
        self.settle(tool_call_id, "withdrawn", None).await
    }

    /// Withdraws every pending question of a session; returns their ids.
    pub async fn withdraw_session(&self, session_id: &str) -> Result<Vec<String>> {
        let ids: Vec<(String,)> = sqlx::query_as(
            "UPDATE clarifications SET status = 'withdrawn', answered_at = ?
             WHERE session_id = ? AND status = 'pending' RETURNING tool_call_id",
        )
        .bind(now_ms())
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.into_iter().map(|(id,)| id).collect())
    }

    async fn settle(&self, id: &str, status: &str, answer: Option<&str>) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE clarifications SET status = ?, answer = ?, answered_at = ?
             WHERE tool_call_id = ? AND status = 'pending'",
        )
        .bind(status)
        .bind(answer)
        .bind(now_ms())
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() > 0)
    }
}
