//! Every type that crosses the IPC boundary between the Rust backend and the
//! webview: command parameters and results, events, error codes.
//!
//! This crate must never depend on Tauri, the database or any tool logic: it is
//! plain serde data, camelCase on the wire, and the TypeScript bindings in
//! `ui/src/bindings.ts` are generated from it (see [`bindings`]).

mod app;
mod approval;
pub mod bindings;
mod chat_model;
#[cfg(test)]
mod commands_ts;
mod companion;
mod content;
mod error;
mod mcp;
mod rules;
mod session;
mod settings;
mod tasks;
mod tools;
mod viewer;

pub use app::AppInfo;
pub use approval::{ApprovalKind, ApprovalRequest, ApprovalResolution, PendingApprovalView};
pub use chat_model::{ChatModelsView, ModelChoiceView};
pub use companion::{
    PendingQuestionView, ScratchpadEntryView, TodoListView, TodoStatusView, TodoView,
};
pub use content::ContentBlock;
pub use error::{ErrorCode, IpcError};
pub use mcp::{
    ElicitationAction, McpImportView, McpServerInput, McpServerView, McpStatusChanged,
    McpStatusView, McpTestView, McpToolView, McpTransportView,
};
pub use rules::{
    BypassScopeView, BypassView, GroupView, RuleActionView, RuleInput, RuleView, RunContextView,
};
pub use session::{
    ChatMessage, ChatRole, IncompleteCause, SessionEvent, SessionSearchHit, SessionSummary,
    SubAgentTranscript, SummaryView, ToolCallView, TurnOutcome, UsageView, WritePreview,
};
pub use settings::{
    EnvEndpointView, LocalOllamaView, ModelView, NewProviderInput, ProviderEditInput, ProviderKind,
    ProviderTestView, ProviderView, ReasoningSetting, UnknownProviderKind,
};
pub use tasks::{TaskDetailView, TaskRunView, TaskView, TimeZoneView};
pub use tools::{
    AllTools, ToolCallStatus, ToolCategory, ToolInfo, ToolKind, ToolPresentation,
    UnknownToolCallStatus,
};
pub use viewer::{
    LatexView, OutlineEntry, PdfFindHit, PdfInfo, PdfPageSize, PdfSpotView, PdfTextRun,
    SourceLineView, TexErrorView, ViewInfo, ViewKind, ViewerChanged,
};
