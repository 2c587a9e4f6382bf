//! The person's side of the companion tools, for the app and the CLI: read
//! and edit the scratchpad, read each agent's latest todo list, list and
//! answer questions.

use std::collections::HashMap;

use skald_core_api::ToolPresentation;
use skald_protocol::{
    PendingQuestionView, ScratchpadEntryView, TodoListView, TodoStatusView, TodoView,
};
use skald_store::{Role, ToolCallStatus};

use super::scratchpad::{MAX_KEY_CHARS, MAX_VALUE_BYTES};
use super::todos::{TodoStatus, parse_todos};
use crate::ChatSessionHandler;
use crate::assemble::{arguments_value, tool_calls_of};
use crate::error::SessionError;

impl ChatSessionHandler {
    /// The session's scratchpad entries, by key.
    pub async fn scratchpad(
        &self,
        session_id: &str,
    ) -> Result<Vec<ScratchpadEntryView>, SessionError> {
        self.session_row(session_id).await?;
        let rows = self.inner.store.scratchpad().entries(session_id).await?;
        Ok(rows
            .into_iter()
            .map(|r| ScratchpadEntryView {
                key: r.key,
                value: r.value,
                updated_at: r.updated_at,
            })
            .collect())
    }

    /// The person writes an entry; an empty value deletes it. Every agent's
    /// next request sees the change.
    pub async fn set_scratchpad_entry(
        &self,
        session_id: &str,
        key: &str,
        value: &str,
    ) -> Result<(), SessionError> {
        self.session_row(session_id).await?;
        let key = key.trim();
        if key.is_empty() {
            return Err(SessionError::InvalidScratchpad("the key is empty".into()));
        }
        if key.chars().count() > MAX_KEY_CHARS || key.chars().any(char::is_control) {
            return Err(SessionError::InvalidScratchpad(format!(
                "a key is at most {MAX_KEY_CHARS} characters, without control characters"
            )));
        }
        if value.len() > MAX_VALUE_BYTES {
            return Err(SessionError::InvalidScratchpad(format!(
                "the value is {} bytes; an entry holds at most {MAX_VALUE_BYTES}",
                value.len()
            )));
        }
        let repo = self.inner.store.scratchpad();
        if value.trim().is_empty() {
            repo.remove_entry(session_id, key).await?;
        } else {
            repo.set_entry(session_id, key, value).await?;
        }
        Ok(())
    }

    /// The person deletes an entry. Returns whether it existed.
    pub async fn remove_scratchpad_entry(
        &self,
        session_id: &str,
        key: &str,
    ) -> Result<bool, SessionError> {
        self.session_row(session_id).await?;
        Ok(self
            .inner
            .store
            .scratchpad()
            .remove_entry(session_id, key.trim())
            .await?)
    }

    /// The latest todo list each agent (frame) of the session wrote, root
    /// first. Only calls that ran count (a refused list is not the list).
    pub async fn todos(&self, session_id: &str) -> Result<Vec<TodoListView>, SessionError> {
        let session = self.session_row(session_id).await?;
        let store = &self.inner.store;
        let frames = store.stack().list_for_session(session_id).await?;
        // Whose calls are todo lists is the tools' declaration (every frame
        // gets the same companion tools, so the root's set tells).
        let workdir = crate::sessions::session_workdir(&session).ok();
        let tools = self.inner.toolset(
            &session,
            0,
            0,
            &session.agent_id,
            workdir
                .as_deref()
                .unwrap_or_else(|| std::path::Path::new("/")),
        );
        let done: HashMap<String, ToolCallStatus> = store
            .tool_calls()
            .list_for_session(session_id)
            .await?
            .into_iter()
            .filter(|c| tools.presentation_of(&c.name) == ToolPresentation::Todos)
            .map(|c| (c.id, c.status))
            .collect();
        let mut latest: HashMap<i64, (String, Vec<super::Todo>)> = HashMap::new();
        for row in store.history().list_for_session(session_id).await? {
            if row.role != Role::Assistant {
                continue;
            }
            let Some(frame) = row.stack_id else { continue };
            for call in tool_calls_of(&row) {
                if done.get(&call.id) != Some(&ToolCallStatus::Done) {
                    continue;
                }
                if let Some(todos) = parse_todos(&arguments_value(&call.arguments)) {
                    latest.insert(frame, (call.id.clone(), todos));
                }
            }
        }
        let mut out: Vec<TodoListView> = frames
            .iter()
            .filter_map(|f| {
                let (id, todos) = latest.remove(&f.id)?;
                let total = u32::try_from(todos.len()).unwrap_or(u32::MAX);
                let completed = u32::try_from(
                    todos
                        .iter()
                        .filter(|t| t.status == TodoStatus::Completed)
                        .count(),
                )
                .unwrap_or(u32::MAX);
                Some(TodoListView {
                    frame_id: f.id,
                    agent_id: f.agent_id.clone(),
                    depth: u32::try_from(f.depth).unwrap_or(0),
                    tool_call_id: id,
                    todos: todos
                        .into_iter()
                        .map(|t| TodoView {
                            content: t.content,
                            status: match t.status {
                                TodoStatus::Pending => TodoStatusView::Pending,
                                TodoStatus::InProgress => TodoStatusView::InProgress,
                                TodoStatus::Completed => TodoStatusView::Completed,
                            },
                        })
                        .collect(),
                    completed,
                    total,
                })
            })
            .collect();
        out.sort_by_key(|l| (l.depth, l.frame_id));
        Ok(out)
    }

    /// Questions waiting for the person, oldest first (every session).
    pub async fn pending_questions(&self) -> Result<Vec<PendingQuestionView>, SessionError> {
        let store = &self.inner.store;
        let mut titles: HashMap<String, String> = HashMap::new();
        let mut out = Vec::new();
        for q in store.clarifications().list_pending().await? {
            let title = match titles.get(&q.session_id) {
                Some(t) => t.clone(),
                None => {
                    let t = store
                        .sessions()
                        .get(&q.session_id)
                        .await?
                        .map(|s| s.title)
                        .unwrap_or_default();
                    titles.insert(q.session_id.clone(), t.clone());
                    t
                }
            };
            out.push(PendingQuestionView {
                tool_call_id: q.tool_call_id,
                session_id: q.session_id,
                session_title: title,
                agent_id: q.agent_id,
                title: q.title,
                question: q.question,
                suggested_answers: q.suggestions,
                schema: q.schema,
                server: q.server,
                property_order: (!q.property_order.is_empty()).then_some(q.property_order),
                url: q.url,
                created_at: q.created_at,
            });
        }
        Ok(out)
    }

    /// Answers a waiting question; the asking call returns the answer (at
    /// once in this process, within a poll in another one, or when a
    /// restart re-asks it).
    pub async fn answer_question(
        &self,
        tool_call_id: &str,
        answer: &str,
    ) -> Result<(), SessionError> {
        let answered = self
            .inner
            .questions
            .answer(&self.inner.store, tool_call_id, answer)
            .await?;
        if answered {
            self.inner.gate.waiting_changed();
            Ok(())
        } else {
            Err(SessionError::NoPendingQuestion(tool_call_id.to_string()))
        }
    }
}
