//! Approvals over IPC: what a person is asked about when a rule says
//! `require` (the `ApprovalRequired` event, the Agent Inbox), and how they
//! answer.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What kind of call waits, with what the card shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ApprovalKind {
    /// A file write (`write_file`, `edit_file`, `insert_at_line`,
    /// `replace_lines`): the file now and as the call would leave it.
    Write {
        /// Absolute path of the file.
        path: String,
        /// The content now; `None` when the file does not exist yet.
        old_content: Option<String>,
        /// The predicted content after the call; `None` when it cannot be
        /// predicted (the call would fail, or the file is not text).
        new_content: Option<String>,
    },
    /// A shell command (`execute_cmd`).
    Command {
        /// The full command, as it will run.
        command: String,
        /// Where it runs.
        working_dir: Option<String>,
    },
    /// Any other tool: the arguments tell.
    Generic,
}

/// One call waiting for a person, as the approval card and the Inbox show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// The durable tool_call_id: what `approve` / `reject` take.
    pub tool_call_id: String,
    /// The tool's name.
    pub name: String,
    pub label_short: String,
    pub label_full: String,
    /// The file the call acts on, if any.
    pub path: Option<String>,
    /// Effective arguments (working directory applied).
    pub arguments: serde_json::Value,
    /// Why it is asked, e.g. "no rule matched: asking" or
    /// "asked by rule 5: execute_cmd".
    pub reason: String,
    /// What the card shows.
    pub kind: ApprovalKind,
}

/// One entry of the Agent Inbox: a pending approval in some session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PendingApprovalView {
    pub session_id: String,
    pub session_title: String,
    pub request: ApprovalRequest,
    /// Unix milliseconds when the call was made.
    #[ts(type = "number")]
    pub created_at: i64,
    /// Whether a live turn is waiting for the answer (otherwise answering
    /// runs the call on its own, e.g. after a restart).
    pub live: bool,
}

/// How an approval was settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ApprovalResolution {
    /// A live turn was waiting; it takes it from here (its events stream on
    /// the turn's own channel).
    Live,
    /// No turn was waiting: the call was settled here (run, or recorded as
    /// rejected) and, when possible, the model answered.
    Settled,
}
