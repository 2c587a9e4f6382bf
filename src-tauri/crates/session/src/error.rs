//! [`SessionError`]: what can stop a turn from starting, or a call to the
//! handler from answering. Failures *inside* a running turn (the provider
//! gave up, a write failed) end the turn with `TurnOutcome::Failed` instead,
//! after the `TurnEnded` event, so the UI always sees the turn close.

use std::path::PathBuf;

use skald_llm::LlmError;
use skald_protocol::{ErrorCode, IpcError};
use skald_store::StoreError;

/// The session crate's one error type.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No session has this id.
    #[error("session {0} not found")]
    SessionNotFound(String),

    /// A turn is already running in this session; only one runs at a time.
    #[error("session {0} is busy: a turn is already running (stop it or wait for it to finish)")]
    Busy(String),

    /// Another Skald process (the app, another `skald` command) is running a
    /// turn in this session.
    #[error(
        "session {0} is busy in another Skald process (the app or another `skald` command); try again when its turn ends"
    )]
    BusyElsewhere(String),

    /// No call with this id waits for approval (unknown, or already settled).
    #[error("no pending approval {0} (unknown, or already answered)")]
    NoPendingApproval(String),

    /// No question with this id waits for an answer.
    #[error("no pending question {0} (unknown, already answered or withdrawn)")]
    NoPendingQuestion(String),

    /// A scratchpad key or value the person gave is not usable.
    #[error("{0}")]
    InvalidScratchpad(String),

    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),

    /// `agents/<id>/AGENT.md` does not exist.
    #[error("agent `{agent}` not found: {} does not exist", .path.display())]
    AgentNotFound {
        /// The agent id.
        agent: String,
        /// Where its AGENT.md was looked for.
        path: PathBuf,
    },

    /// An agent file or an included file could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    AgentRead {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },

    /// An `<!-- INCLUDE: path -->` names a file that does not exist.
    #[error("agent `{agent}`: {} includes `{include}`, which does not exist ({})", .from.display(), .resolved.display())]
    MissingInclude {
        /// The agent id.
        agent: String,
        /// The include as written.
        include: String,
        /// The file holding the include line.
        from: PathBuf,
        /// Where the include was looked for.
        resolved: PathBuf,
    },

    /// Includes form a cycle (or nest absurdly deep).
    #[error("agent `{agent}`: include cycle: {chain}")]
    IncludeCycle {
        /// The agent id.
        agent: String,
        /// The chain of files, `a -> b -> a`.
        chain: String,
    },

    /// `agents/<id>/meta.json` is malformed: the agent is skipped.
    #[error("agent `{agent}` is unusable: {}: {reason}", .path.display())]
    AgentInvalid {
        /// The agent id.
        agent: String,
        /// The broken file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// No LLM provider could be found for the turn.
    #[error("no LLM provider: {0}")]
    NoProvider(String),

    /// A provider client could not be built (bad URL, https without TLS, ...).
    #[error(transparent)]
    Llm(#[from] LlmError),

    /// A request the caller can fix (an empty model name, ...).
    #[error("{0}")]
    InvalidInput(String),

    /// No task (async task or cron job) has this id.
    #[error("no task {0}")]
    TaskNotFound(i64),

    /// A task could not start or be changed (a bad cron expression, ...).
    #[error("{0}")]
    Task(String),

    /// Even trimmed and summarised, the request does not fit the model's
    /// context window: the person's last message (or what the turn holds
    /// since) is too long on its own. Never cut silently.
    #[error(
        "the request does not fit the model's context window: about {estimated} tokens for a window of {window} (with room for the answer: {budget}), even after trimming old tool results and summarising earlier turns; shorten the last message or pick a model with a larger window"
    )]
    ContextOverflow {
        /// Estimated tokens of the smallest request that could be made.
        estimated: u32,
        /// The model's context window.
        window: u32,
        /// What a request may fill (the window less room for the answer).
        budget: u32,
    },

    /// "Compact", retry, regenerate or edit found nothing to act on.
    #[error("{0}")]
    NothingToDo(String),

    /// The session's working directory is unusable.
    #[error("working directory {}: {reason}", .path.display())]
    WorkingDir {
        /// The directory.
        path: PathBuf,
        /// Why it is unusable.
        reason: String,
    },
}

impl SessionError {
    /// The stable IPC code for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            SessionError::SessionNotFound(_)
            | SessionError::AgentNotFound { .. }
            | SessionError::NoPendingApproval(_)
            | SessionError::NoPendingQuestion(_)
            | SessionError::TaskNotFound(_) => ErrorCode::NotFound,
            SessionError::InvalidScratchpad(_) => ErrorCode::InvalidInput,
            SessionError::Busy(_)
            | SessionError::BusyElsewhere(_)
            | SessionError::NoProvider(_)
            | SessionError::InvalidInput(_)
            | SessionError::ContextOverflow { .. }
            | SessionError::NothingToDo(_)
            | SessionError::Task(_)
            | SessionError::WorkingDir { .. }
            | SessionError::MissingInclude { .. }
            | SessionError::IncludeCycle { .. }
            | SessionError::AgentInvalid { .. } => ErrorCode::InvalidInput,
            SessionError::Store(_) => ErrorCode::Storage,
            SessionError::AgentRead { .. } | SessionError::Llm(_) => ErrorCode::Internal,
        }
    }

    /// `{code, message}` for a Tauri command's error.
    pub fn to_ipc(&self) -> IpcError {
        IpcError::new(self.code(), self.to_string())
    }
}

impl From<SessionError> for IpcError {
    fn from(e: SessionError) -> Self {
        e.to_ipc()
    }
}
