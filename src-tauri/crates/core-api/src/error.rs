//! The two ways a tool call goes wrong: the caller sent bad arguments, or the
//! tool ran and failed. Both are told to the model; only the CLI tells them
//! apart (exit 2 vs exit 1).

/// An error a tool returns. The message is written for the model: one line it
/// can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool's input type.
    #[error("invalid arguments for {tool}: {reason}")]
    InvalidArguments { tool: String, reason: String },
    /// No tool of that name is registered.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The tool ran and failed.
    #[error("{0}")]
    Failed(String),
    /// A sync-only entry point was called on a tool that implements neither
    /// `execute` nor `execute_async`.
    #[error("{0} does not implement execute")]
    NotImplemented(String),
}

impl ToolError {
    pub fn failed(msg: impl Into<String>) -> Self {
        ToolError::Failed(msg.into())
    }

    pub fn is_invalid_arguments(&self) -> bool {
        matches!(self, ToolError::InvalidArguments { .. })
    }
}
