//! What the person sees of the session's companion tools: the scratchpad,
//! each agent's todo list, questions waiting for an answer.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One scratchpad entry (the Scratchpad panel).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ScratchpadEntryView {
    pub key: String,
    pub value: String,
    #[ts(type = "number")]
    pub updated_at: i64,
}

/// A todo item's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatusView {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TodoView {
    pub content: String,
    pub status: TodoStatusView,
}

/// The latest list one agent (frame) of the session wrote (the Todos panel).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TodoListView {
    #[ts(type = "number")]
    pub frame_id: i64,
    pub agent_id: String,
    /// 0 for the root agent.
    pub depth: u32,
    /// The `write_todos` call it came from.
    pub tool_call_id: String,
    pub todos: Vec<TodoView>,
    pub completed: u32,
    pub total: u32,
}

/// A question an agent waits on (chat card and Inbox).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PendingQuestionView {
    /// The asking call; answer with this id.
    pub tool_call_id: String,
    pub session_id: String,
    pub session_title: String,
    pub agent_id: String,
    pub title: String,
    /// Markdown.
    pub question: String,
    pub suggested_answers: Vec<String>,
    /// An MCP server's elicitation: the JSON schema of the form to fill
    /// (answer with `answer_elicitation`); `None` for an agent's question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub schema: Option<serde_json::Value>,
    /// The MCP server asking, for an elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub server: Option<String>,
    /// An elicitation's fields in the server's order (`schema`'s keys are
    /// sorted once it is a JSON value); `None` for an agent's question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub property_order: Option<Vec<String>>,
    /// A URL-mode elicitation: the `http(s)` page to open in the browser;
    /// answering `accept` means "done".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
    #[ts(type = "number")]
    pub created_at: i64,
}
