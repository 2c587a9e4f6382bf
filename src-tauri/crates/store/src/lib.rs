//! Skald's persistence layer: SQLite through `sqlx`.
//!
//! This crate owns the schema (`migrations/NNNN_*.sql`, embedded with
//! `sqlx::migrate!`) and one repository per aggregate, reached from a [`Store`]:
//! sessions, the agent stack, history, tool calls (`chat_llm_tools`), known
//! tools, approval groups and rules, MCP servers and grants, the scratchpad, scheduled
//! jobs, secrets, settings and providers.
//!
//! It must never know about Tauri, the UI or what tools do: it stores rows and
//! hands back typed structs. It is the only crate in the workspace that uses
//! `sqlx`; nothing from `sqlx` needs to leak beyond [`Store::pool`].
//!
//! Conventions: timestamps are `i64` unix milliseconds (UTC), JSON columns are
//! `serde_json::Value` in Rust and checked TEXT in SQLite, and every
//! enumerated column has a Rust enum with `as_str`/`parse` and a SQL `CHECK`.

#![warn(missing_docs)]

mod columns;
mod error;
mod lease;
pub mod repo;
mod store;
mod unique;

pub use error::{Result, StoreError};
pub use lease::{SessionLease, StartupLock};
pub use repo::approval::{
    ApprovalRepo, ApprovalRuleRow, DEFAULT_GROUP, NewApprovalRule, PermissionGroupRow, RuleAction,
};
pub use repo::clarifications::{
    ClarificationRow, ClarificationsRepo, ElicitationRequest, NewClarification,
};
pub use repo::grants::GrantsRepo;
pub use repo::history::{
    AssistantExtras, HistoryRepo, Incomplete, MessageRow, MessageUsage, NewMessage, Role,
};
pub use repo::jobs::{
    JobExtras, JobKind, JobRow, JobRunRow, JobRunStatus, JobsRepo, NewJob, RunTrigger,
};
pub use repo::known_tools::{KnownToolRow, KnownToolsRepo, NewKnownTool};
pub use repo::mcp_servers::{McpServerRow, McpServersRepo, NewMcpServer};
pub use repo::providers::{
    ModelRow, NewModel, NewProvider, ProviderKind, ProviderRow, ProvidersRepo,
};
pub use repo::scratchpad::{ScratchpadEntry, ScratchpadRepo, ScratchpadRow};
pub use repo::secrets::SecretsRepo;
pub use repo::sessions::{ModelRef, NewSession, SessionRow, SessionsRepo};
pub use repo::settings::SettingsRepo;
pub use repo::stack::{FrameStatus, NewStackFrame, StackFrameRow, StackRepo};
pub use repo::summaries::{NewSummary, SummariesRepo, SummaryRow};
pub use repo::tool_calls::{NewToolCall, ToolCallRow, ToolCallStatus, ToolCallsRepo};
pub use store::{DATA_DIR_ENV, DB_FILE_NAME, Store, default_data_dir, known_schema_version};
