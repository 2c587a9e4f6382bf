//! What goes wrong with an MCP server or call, in words a person or the
//! model can act on.

/// An MCP error.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("{0}")]
    InvalidConfig(String),
    #[error("no MCP server named `{0}`")]
    UnknownServer(String),
    #[error("MCP server `{0}` is disabled")]
    Disabled(String),
    #[error("MCP server `{server}` is not ready: {reason}{}", stderr_note(.stderr))]
    NotReady {
        server: String,
        reason: String,
        stderr: String,
    },
    /// The server wants OAuth tokens Skald does not have (or can no longer refresh).
    #[error("sign-in required: {0}")]
    SignInRequired(String),
    #[error("OAuth: {0}")]
    OAuth(String),
    #[error("cannot start the server: {0}")]
    Spawn(String),
    #[error("MCP handshake failed: {0}")]
    Handshake(String),
    #[error("the secret `{0}` is not set (skald secrets / the Secrets page)")]
    MissingSecret(String),
    #[error("MCP server `{server}` did not answer within {ms} ms (the call was cancelled)")]
    Timeout { server: String, ms: u64 },
    #[error("MCP call failed: {0}")]
    Call(String),
    /// `isError: true`: the tool's own message.
    #[error("{0}")]
    ToolFailed(String),
    #[error(transparent)]
    Store(#[from] skald_store::StoreError),
}

fn stderr_note(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("\nlast stderr lines:\n{stderr}")
    }
}
