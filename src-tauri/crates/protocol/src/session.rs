//! Chat sessions over IPC: what the UI lists and opens, and the events a turn
//! streams (over a `tauri::ipc::Channel` per turn, or printed by the CLI).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{ApprovalRequest, ContentBlock, ToolCallStatus, ToolPresentation};

/// A chat session as the sessions list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub id: String,
    pub title: String,
    pub agent_id: String,
    pub working_dir: Option<String>,
    /// Unix milliseconds.
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

/// A session found by a search, with where its text matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionSearchHit {
    pub session: SessionSummary,
    /// The matching part of the first message that matched (None: the title did).
    pub snippet: Option<String>,
}

/// Who wrote a history message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ChatRole {
    User,
    Assistant,
    Tool,
    System,
}

/// One tool call as a card shows it, live or from history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallView {
    /// The durable tool_call_id (`chat_llm_tools.id`).
    pub id: String,
    pub name: String,
    pub label_short: String,
    pub label_full: String,
    /// The file this call acts on, clickable in the UI.
    pub path: Option<String>,
    /// Effective arguments (working directory applied).
    pub arguments: serde_json::Value,
    pub status: ToolCallStatus,
    pub result: Option<String>,
    /// What the result holds besides its text (images, file links, JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<ContentBlock>>", optional)]
    pub blocks: Vec<ContentBlock>,
    /// Why the gate let it run or stopped it ("allowed by rule 12: @fs_read
    /// docs/*"), once decided and stored; `None` on a card still starting.
    pub decision_reason: Option<String>,
    /// How its tool wants it shown (absent: generic).
    #[serde(default, skip_serializing_if = "ToolPresentation::is_generic")]
    #[ts(as = "Option<ToolPresentation>", optional)]
    pub presentation: ToolPresentation,
    /// A file write that ran, or that the person rejected: the file before
    /// and as the call would leave it (as its approval card showed them, or
    /// as predicted when a rule or a bypass let it run), so the card keeps
    /// its diff once the call is answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub write_preview: Option<WritePreview>,
    /// From history only: the sub-agent this call started (a sync
    /// `execute_task`), with what it said and did, so its card holds the
    /// same nested transcript after a reload as live (`SubAgent` events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sub_agent: Option<Box<SubAgentTranscript>>,
}

/// A sub-agent's own conversation, as stored in its frame, for the card of
/// the call that started it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SubAgentTranscript {
    /// The sub-agent's frame (`session_stack.id`).
    #[ts(type = "number")]
    pub frame_id: i64,
    pub agent_id: String,
    /// 1 for a sub-agent of the root agent.
    pub depth: u32,
    /// How it ended; `None` while it still runs (or waits after a crash).
    pub outcome: Option<TurnOutcome>,
    /// Its messages after the prompt (the prompt is the call's argument),
    /// each assistant message with its cards, and theirs nested the same way.
    pub messages: Vec<ChatMessage>,
}

/// Why an answer is incomplete: the person stopped it, or the connection to
/// the model broke (with the error). Stored with the message, so it reads the
/// same after a later retry clears the session's errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "by", rename_all = "camelCase")]
pub enum IncompleteCause {
    /// The person pressed Stop while it streamed.
    Stopped,
    /// The stream broke; `error` is the provider's error.
    Cut { error: String },
}

/// The before/after of a file write shown on its approval card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WritePreview {
    /// The content then; `None` when the file did not exist.
    pub old_content: Option<String>,
    /// The predicted content after the call; `None` when it could not be
    /// predicted.
    pub new_content: Option<String>,
    /// Why these are not the whole file (a large file's kept preview is cut
    /// to the changed lines); absent when they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
}

/// One history message with the tool calls it made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    #[ts(type = "number")]
    pub id: i64,
    pub role: ChatRole,
    pub content: String,
    pub tool_calls: Vec<ToolCallView>,
    #[ts(type = "number")]
    pub created_at: i64,
    /// The readable reasoning that came with an assistant message (the UI's collapsible
    /// "thinking" block); `None` when the model did not reason or kept it encrypted.
    #[serde(default)]
    pub reasoning: Option<String>,
    /// What the request that produced an assistant message used, when reported.
    #[serde(default)]
    pub usage: Option<UsageView>,
    /// An assistant answer whose stream was cut before it finished: shown as
    /// incomplete, and never sent back to the model as a finished answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub incomplete: bool,
    /// Why it is incomplete (set whenever `incomplete` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub incomplete_cause: Option<IncompleteCause>,
    /// Why the turn this message ended failed (kept with the last message the
    /// turn stored: the person's own message when nothing else was). The UI
    /// shows it with Retry (`retry_turn`) on the last message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
    /// Set on a divider item (role `system`, `content` = the summary text):
    /// the stored summary that stands in for the messages it covers in every
    /// later request. It sits right after the last message it covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<SummaryView>,
    /// The model that wrote an assistant message (`None`: another role, or
    /// stored before models were kept per message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    /// The id of that model's provider (`env:KIND` for an environment endpoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_provider: Option<String>,
}

/// A stored summary of the oldest part of a conversation (automatic when the
/// context window fills, or the person's "compact"). Later requests send it
/// in place of the messages it covers; the history keeps those messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SummaryView {
    #[ts(type = "number")]
    pub id: i64,
    pub content: String,
    /// The first and last history message it covers (inclusive).
    #[ts(type = "number")]
    pub first_message_id: i64,
    #[ts(type = "number")]
    pub last_message_id: i64,
    /// How many history messages it covers (tool results included).
    pub message_count: u32,
    /// Estimated tokens of what it covers (before summarising).
    pub covered_tokens: u32,
    /// `true` for the person's "compact", `false` when the window filled.
    pub manual: bool,
    #[ts(type = "number")]
    pub created_at: i64,
}

/// Token counts of one model request (and its cost, when the provider reports one).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageView {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u32,
    /// Generated tokens, reasoning included.
    pub output_tokens: u32,
    /// Prompt tokens read from the provider's cache.
    pub cache_read_tokens: u32,
    /// Prompt tokens written to the provider's cache.
    pub cache_write_tokens: u32,
    /// Reasoning tokens.
    pub reasoning_tokens: u32,
    pub cost_usd: Option<f64>,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum TurnOutcome {
    /// The model answered without asking for more tools.
    Completed,
    /// The person stopped the turn.
    Cancelled,
    /// The round limit was reached before the model finished.
    RoundLimit { rounds: u32 },
    /// The provider or the store failed; `message` says why.
    Failed { message: String },
}

/// Everything a turn streams to its observers, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum SessionEvent {
    TurnStarted {
        session_id: String,
    },
    /// A piece of the assistant's answer text, as it streams.
    TokenDelta {
        session_id: String,
        text: String,
    },
    /// A piece of the model's reasoning, when the provider reports it.
    ReasoningDelta {
        session_id: String,
        text: String,
    },
    /// A round's assistant message has been stored.
    AssistantMessage {
        session_id: String,
        #[ts(type = "number")]
        message_id: i64,
        text: String,
    },
    ToolStart {
        session_id: String,
        call: ToolCallView,
    },
    ToolDone {
        session_id: String,
        tool_call_id: String,
        result: String,
        /// The result's non-text parts (images, file links, JSON).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(as = "Option<Vec<ContentBlock>>", optional)]
        blocks: Vec<ContentBlock>,
    },
    /// A running call's progress: the tail of its output so far and/or a
    /// progress message (at most a few per second; the latest wins).
    ToolProgress {
        session_id: String,
        tool_call_id: String,
        /// The last part of the output so far (bounded; empty when the tool
        /// reports no output).
        output: String,
        /// How many bytes of output the call produced so far, so a printer
        /// can tell what is new in `output`.
        #[ts(type = "number")]
        output_bytes: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        progress: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        total: Option<f64>,
    },
    ToolError {
        session_id: String,
        tool_call_id: String,
        error: String,
    },
    ToolCancelled {
        session_id: String,
        tool_call_id: String,
        /// Why it was stopped, as the model reads it ("Cancelled: the user
        /// stopped this call before it finished.").
        #[serde(default)]
        reason: String,
    },
    ToolRejected {
        session_id: String,
        tool_call_id: String,
        reason: String,
    },
    /// The gate let a call run, and why ("allowed by rule 12: @fs_read
    /// docs/*", "approved by the user"); the card shows it.
    ToolAllowed {
        session_id: String,
        tool_call_id: String,
        reason: String,
        /// A write let through without asking: the diff it makes, for the
        /// card (one that asked showed it on its approval already).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        write_preview: Option<WritePreview>,
    },
    /// A call waits for a person's approval (the row is `pending`); answer
    /// with `approve` / `reject` and `request.toolCallId`.
    ApprovalRequired {
        session_id: String,
        request: ApprovalRequest,
    },
    /// Ask the UI to open a file in the viewer.
    OpenFile {
        session_id: String,
        path: String,
    },
    /// What one model request of the turn used (one per round).
    Usage {
        session_id: String,
        input_tokens: u32,
        output_tokens: u32,
        cost_usd: Option<f64>,
        /// Prompt tokens read from the provider's cache (part of `input_tokens`).
        #[serde(default)]
        cache_read_tokens: u32,
        /// Reasoning tokens (part of `output_tokens`).
        #[serde(default)]
        reasoning_tokens: u32,
    },
    TurnEnded {
        session_id: String,
        outcome: TurnOutcome,
    },
    /// A request failed in a way worth retrying (rate limit, overload, a
    /// dropped connection) and is sent again after `delayMs`: "rate limited,
    /// retrying in 3 s, attempt 2 of 5". `attempt` is the one about to start.
    Retrying {
        session_id: String,
        attempt: u32,
        max_attempts: u32,
        #[ts(type = "number")]
        delay_ms: u64,
        /// What failed, in words ("rate limited", "overloaded", …).
        reason: String,
        /// The provider's error, for a tooltip.
        detail: String,
    },
    /// How much of the model's context window a request fills (once per
    /// request), after trimming; the estimate calibrated by the provider's
    /// last reported prompt tokens.
    ContextUsage {
        session_id: String,
        estimated_tokens: u32,
        context_window: u32,
        /// Old tool results replaced by a short note in this request.
        trimmed_tool_results: u32,
        /// The model the request goes to: known before the first token, so
        /// the answer being streamed can name it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        model: Option<String>,
    },
    /// A summary now stands in for the oldest turns (a divider in the chat).
    ContextSummarized {
        session_id: String,
        summary: SummaryView,
    },
    /// The stored assistant message `messageId` is incomplete (its stream
    /// was cut): shown so, never sent back as a finished answer.
    MessageIncomplete {
        session_id: String,
        #[ts(type = "number")]
        message_id: i64,
        reason: String,
        /// Whether the person stopped it or the connection cut it.
        cause: IncompleteCause,
    },
    /// An event of a sub-agent (a sync `execute_task`), to be nested under
    /// the card of the call that started it (`parent_call_id`). Its own
    /// `TurnStarted` / `TurnEnded` mark the sub-agent starting and ending;
    /// a sub-agent's sub-agent is nested under a call of that sub-agent.
    SubAgent {
        session_id: String,
        /// The sub-agent's frame (`session_stack.id`).
        #[ts(type = "number")]
        frame_id: i64,
        agent_id: String,
        /// 1 for a sub-agent of the root agent.
        depth: u32,
        parent_call_id: String,
        event: Box<SessionEvent>,
    },
    /// A background task's run (async or cron) ended; `session_id` is the
    /// conversation it reports to (the parent, or Home for cron).
    TaskEnded {
        session_id: String,
        #[ts(type = "number")]
        task_id: i64,
        #[ts(type = "number")]
        run_id: i64,
        title: String,
        /// `done`, `failed`, `cancelled` or `interrupted`.
        status: String,
    },
    /// A task was started, scheduled, changed or deleted (the Tasks view refreshes).
    TasksChanged {
        session_id: String,
    },
}
