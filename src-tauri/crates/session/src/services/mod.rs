//! The operations behind the Rules, Settings and session-settings pages:
//! permission groups and rules, providers and models, a session's
//! RunContext and bypasses. The app's commands, the CLI and the agent's
//! config tools all call these, so validation and cache invalidation live in
//! one place and every face behaves alike; a Tauri command is the call plus
//! `ServiceError::to_ipc`.

pub mod chat_models;
pub mod providers;
pub mod rules;
pub mod run_context;

use skald_approval::ApprovalError;
use skald_protocol::{ErrorCode, IpcError};
use skald_store::StoreError;

use crate::SessionError;

/// Why a service call failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Storage(String),
    #[error("{0}")]
    Internal(String),
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl ServiceError {
    pub fn invalid(e: impl std::fmt::Display) -> Self {
        Self::Invalid(e.to_string())
    }

    /// `{code, message}` for a Tauri command's error.
    pub fn to_ipc(&self) -> IpcError {
        let code = match self {
            Self::NotFound(_) => ErrorCode::NotFound,
            Self::Invalid(_) => ErrorCode::InvalidInput,
            Self::Storage(_) => ErrorCode::Storage,
            Self::Internal(_) => ErrorCode::Internal,
            Self::Session(e) => return e.to_ipc(),
        };
        IpcError::new(code, self.to_string())
    }
}

impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound { .. } => Self::NotFound(e.to_string()),
            StoreError::Invalid(_) => Self::Invalid(e.to_string()),
            other => Self::Storage(other.to_string()),
        }
    }
}

/// Rule validation and edits report bad input (an unknown pattern, a second
/// catch-all) as well as store failures; both reach the person as the
/// message the approval crate wrote.
impl From<ApprovalError> for ServiceError {
    fn from(e: ApprovalError) -> Self {
        Self::Invalid(e.to_string())
    }
}

impl From<ServiceError> for IpcError {
    fn from(e: ServiceError) -> Self {
        e.to_ipc()
    }
}
