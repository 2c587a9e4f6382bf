//! Messages (`chat_history`): what the user, the agents, the tools and the
//! system said in a session, each tagged with the stack frame it belongs to.

use serde_json::Value;
use sqlx::sqlite::{SqlitePool, SqliteRow};
use sqlx::{FromRow, Row};

use crate::columns::{expect_one, json_column, json_text, now_ms, text_column};
use crate::error::{Result, StoreError};
use crate::repo::sessions::ModelRef;

/// Who wrote a message, stored in `chat_history.role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The human.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
    /// A system prompt or notice.
    System,
}

impl Role {
    /// The column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
            Self::System => "system",
        }
    }

    /// Parses the column text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "user" => Ok(Self::User),
            "assistant" => Ok(Self::Assistant),
            "tool" => Ok(Self::Tool),
            "system" => Ok(Self::System),
            other => Err(StoreError::Invalid(format!(
                "unknown message role {other:?}"
            ))),
        }
    }
}

text_column!(Role);

/// A message to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMessage {
    /// Owning session.
    pub session_id: String,
    /// The agent frame that produced or received it.
    pub stack_id: Option<i64>,
    /// Author.
    pub role: Role,
    /// Text content.
    pub content: String,
    /// The assistant's tool calls, as the provider-neutral JSON array.
    pub tool_calls: Option<Value>,
    /// For [`Role::Tool`]: the call this message answers.
    pub tool_call_id: Option<String>,
}

/// What one model request cost, stored with the assistant message it produced.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MessageUsage {
    /// Prompt tokens, cached ones included.
    pub input_tokens: i64,
    /// Generated tokens, reasoning included.
    pub output_tokens: i64,
    /// Prompt tokens read from the provider's cache.
    pub cache_read_tokens: i64,
    /// Prompt tokens written to the provider's cache.
    pub cache_write_tokens: i64,
    /// Reasoning tokens.
    pub reasoning_tokens: i64,
    /// US dollars, when the provider reports it.
    pub cost_usd: Option<f64>,
}

/// What an assistant message carries besides its text and calls.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantExtras {
    /// The reasoning parts (provider-neutral JSON array), if the model reasoned.
    pub reasoning: Option<Value>,
    /// The request's usage, if the provider reported it.
    pub usage: Option<MessageUsage>,
    /// Its stream ended before the provider finished it, and why.
    pub incomplete: Option<Incomplete>,
    /// The provider and model that wrote it.
    pub model: Option<ModelRef>,
}

/// Why an answer is incomplete (`chat_history.incomplete_cause`), written
/// once when it is kept and never cleared, unlike the turn's `error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incomplete {
    /// The person stopped it.
    Stopped,
    /// The connection to the model broke; the provider's error.
    Cut(String),
}

/// A stored message.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRow {
    /// Row id; increases in insertion order.
    pub id: i64,
    /// Owning session.
    pub session_id: String,
    /// The agent frame.
    pub stack_id: Option<i64>,
    /// Author.
    pub role: Role,
    /// Text content.
    pub content: String,
    /// Tool calls JSON.
    pub tool_calls: Option<Value>,
    /// Answered call.
    pub tool_call_id: Option<String>,
    /// Unix millis.
    pub created_at: i64,
    /// An assistant message's reasoning and usage (empty for other roles and older rows).
    pub extras: AssistantExtras,
    /// Why the turn that ended with this message failed.
    pub error: Option<String>,
}

impl<'r> FromRow<'r, SqliteRow> for MessageRow {
    fn from_row(row: &'r SqliteRow) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            session_id: row.try_get("session_id")?,
            stack_id: row.try_get("stack_id")?,
            role: row.try_get("role")?,
            content: row.try_get("content")?,
            tool_calls: json_column(row, "tool_calls")?,
            tool_call_id: row.try_get("tool_call_id")?,
            created_at: row.try_get("created_at")?,
            extras: AssistantExtras {
                reasoning: json_column(row, "reasoning")?,
                usage: usage_columns(row)?,
                incomplete: incomplete_columns(row)?,
                model: answer_model(row)?,
            },
            error: row.try_get("error")?,
        })
    }
}

fn incomplete_columns(row: &SqliteRow) -> Result<Option<Incomplete>, sqlx::Error> {
    if row.try_get::<i64, _>("incomplete")? == 0 {
        return Ok(None);
    }
    let cause: Option<String> = row.try_get("incomplete_cause")?;
    let detail: Option<String> = row.try_get("incomplete_detail")?;
    Ok(Some(match cause.as_deref() {
        Some("cut") => Incomplete::Cut(detail.unwrap_or_default()),
        Some(_) => Incomplete::Stopped,
        // Written by a writer that predates the cause: its error tells.
        None => match row.try_get::<Option<String>, _>("error")? {
            Some(e) => Incomplete::Cut(e),
            None => Incomplete::Stopped,
        },
    }))
}

fn answer_model(row: &SqliteRow) -> Result<Option<ModelRef>, sqlx::Error> {
    let model: Option<String> = row.try_get("model")?;
    let provider: Option<String> = row.try_get("model_provider")?;
    Ok(model.map(|model| ModelRef {
        provider: provider.unwrap_or_default(),
        model,
    }))
}

fn usage_columns(row: &SqliteRow) -> Result<Option<MessageUsage>, sqlx::Error> {
    let input: Option<i64> = row.try_get("input_tokens")?;
    let output: Option<i64> = row.try_get("output_tokens")?;
    if input.is_none() && output.is_none() {
        return Ok(None);
    }
    let n = |c: &str| -> Result<i64, sqlx::Error> {
        Ok(row.try_get::<Option<i64>, _>(c)?.unwrap_or(0))
    };
    Ok(Some(MessageUsage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        cache_read_tokens: n("cache_read_tokens")?,
        cache_write_tokens: n("cache_write_tokens")?,
        reasoning_tokens: n("reasoning_tokens")?,
        cost_usd: row.try_get("cost_usd")?,
    }))
}

/// Repository for `chat_history`.
#[derive(Debug, Clone)]
pub struct HistoryRepo {
    pool: SqlitePool,
}

impl HistoryRepo {
    pub(crate) fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    /// Appends a message and returns it with its id.
    pub async fn append(&self, new: &NewMessage) -> Result<MessageRow> {
        self.append_with(new, &AssistantExtras::default()).await
    }

    /// Appends a message with its reasoning and usage (one insert, so a crash never leaves
    /// an assistant message without the reasoning its provider wants back).
    pub async fn append_with(
        &self,
        new: &NewMessage,
        extras: &AssistantExtras,
    ) -> Result<MessageRow> {
        let usage = extras.usage;
        let row = sqlx::query_as(
            "INSERT INTO chat_history
               (session_id, stack_id, role, content, tool_calls, tool_call_id, created_at,
                reasoning, input_tokens, output_tokens, cache_read_tokens,
                cache_write_tokens, reasoning_tokens, cost_usd, incomplete, incomplete_cause,
                incomplete_detail, model, model_provider)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(&new.session_id)
        .bind(new.stack_id)
        .bind(new.role)
        .bind(&new.content)
        .bind(json_text(new.tool_calls.as_ref()))
        .bind(&new.tool_call_id)
        .bind(now_ms())
        .bind(json_text(extras.reasoning.as_ref()))
        .bind(usage.map(|u| u.input_tokens))
        .bind(usage.map(|u| u.output_tokens))
        .bind(usage.map(|u| u.cache_read_tokens))
        .bind(usage.map(|u| u.cache_write_tokens))
        .bind(usage.map(|u| u.reasoning_tokens))
        .bind(usage.and_then(|u| u.cost_usd))
        .bind(i64::from(extras.incomplete.is_some()))
        .bind(extras.incomplete.as_ref().map(|i| match i {
            Incomplete::Stopped => "stopped",
            Incomplete::Cut(_) => "cut",
        }))
        .bind(extras.incomplete.as_ref().and_then(|i| match i {
            Incomplete::Stopped => None,
            Incomplete::Cut(e) => Some(e.as_str()),
        }))
        .bind(extras.model.as_ref().map(|m| m.model.as_str()))
        .bind(extras.model.as_ref().map(|m| m.provider.as_str()))
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Invalid("an insert returned no row".into()))?;
        Ok(row)
    }

    /// The message with this id, if any.
    pub async fn get(&self, id: i64) -> Result<Option<MessageRow>> {
        let row = sqlx::query_as("SELECT * FROM chat_history WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row)
    }

    /// A session's messages in order.
    pub async fn list_for_session(&self, session_id: &str) -> Result<Vec<MessageRow>> {
        let rows = sqlx::query_as("SELECT * FROM chat_history WHERE session_id = ? ORDER BY id")
            .bind(session_id)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// One agent frame's messages in order (what that agent sees).
    pub async fn list_for_frame(&self, stack_id: i64) -> Result<Vec<MessageRow>> {
        let rows = sqlx::query_as("SELECT * FROM chat_history WHERE stack_id = ? ORDER BY id")
            .bind(stack_id)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows)
    }

    /// Renames a tool call in an assistant message's `tool_calls` (its id was
    /// taken meanwhile by another process), so the call, its row and its
    /// result keep one id.
    pub async fn rename_tool_call(&self, id: i64, old: &str, new: &str) -> Result<()> {
        let Some(row) = self.get(id).await? else {
            return Err(StoreError::not_found("message", id));
        };
        let Some(mut calls) = row.tool_calls else {
            return Ok(());
        };
        if let Some(list) = calls.as_array_mut() {
            for c in list {
                if c.get("id").and_then(serde_json::Value::as_str) == Some(old) {
                    c["id"] = serde_json::Value::from(new);
                }
            }
        }
        let done = sqlx::query("UPDATE chat_history SET tool_calls = ? WHERE id = ?")
            .bind(json_text(Some(&calls)))
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "message", id)
    }

    /// Replaces a message's text (e.g. when a stream completes).
    pub async fn update_content(&self, id: i64, content: &str) -> Result<()> {
        let done = sqlx::query("UPDATE chat_history SET content = ? WHERE id = ?")
            .bind(content)
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "message", id)
    }

    /// Deletes a session's messages after `id` (for edit/regenerate), with the
    /// tool calls they made and the summaries that covered any of them, in one
    /// transaction. Returns how many messages went.
    pub async fn truncate_after(&self, session_id: &str, id: i64) -> Result<u64> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM chat_llm_tools WHERE session_id = ? AND message_id > ?")
            .bind(session_id)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM chat_summaries WHERE session_id = ? AND last_message_id > ?")
            .bind(session_id)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let done = sqlx::query("DELETE FROM chat_history WHERE session_id = ? AND id > ?")
            .bind(session_id)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    /// Records (or with `None` clears) why the turn ending at message `id` failed.
    pub async fn set_error(&self, id: i64, error: Option<&str>) -> Result<()> {
        let done = sqlx::query("UPDATE chat_history SET error = ? WHERE id = ?")
            .bind(error)
            .bind(id)
            .execute(&self.pool)
            .await?;
        expect_one(done.rows_affected(), "message", id)
    }

    /// Clears every recorded turn error of a session (a retry starts); why
    /// an answer is incomplete stays.
    pub async fn clear_errors(&self, session_id: &str) -> Result<u64> {
        let done = sqlx::query(
            "UPDATE chat_history SET error = NULL WHERE session_id = ? AND error IS NOT NULL",
        )
        .bind(session_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Deletes one message. Returns whether it existed.
    pub async fn delete(&self, id: i64) -> Result<bool> {
        let done = sqlx::query("DELETE FROM chat_history WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::Role;

    #[test]
    fn role_text_round_trips() {
        for r in [Role::User, Role::Assistant, Role::Tool, Role::System] {
            assert_eq!(r.as_str().parse::<Role>().unwrap(), r);
        }
        assert!(Role::parse("narrator").is_err());
    }
}
