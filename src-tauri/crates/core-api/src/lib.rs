//! The tool core: the [`Tool`] definition, a live [`ToolExecution`] and its
//! lifecycle ([`ToolExecutionState`], [`ExecutionOutcome`], [`SimpleExecution`],
//! [`drive_execution`]), typed arguments and display labels.
//!
//! This crate must never touch the database, the UI or any concrete tool: the
//! session driver mirrors execution state to SQLite and emits events.

mod arg_error;
mod call_scope;
mod content;
mod def;
mod error;
mod execution;
mod input;
mod label;
mod name;
mod progress;
mod tool;
mod typed;

pub use call_scope::{current_call_id, scope_call};
pub use content::{ContentBlock, ToolOutput};
pub use def::{DefView, ToolDef};
pub use error::ToolError;
pub use execution::{
    BoxFuture, ExecutionOutcome, SimpleExecution, ToolExecution, ToolExecutionState,
    drive_execution,
};
pub use input::{input_schema, parse_args};
pub use label::{MAX_LABEL_FULL, MAX_LABEL_SHORT, ToolDescriptionLength, truncate_label};
pub use name::{MCP_PREFIX, ToolName, ToolNamespace};
pub use progress::{
    PROGRESS_INTERVAL, PROGRESS_TAIL_BYTES, ProgressReporter, ProgressWatch, ToolProgress,
    drive_with_progress,
};
pub use skald_protocol::{ToolCallStatus, ToolCategory, ToolPresentation};
pub use tokio_util::sync::CancellationToken;
pub use tool::{CallRoute, RestartHint, Tool, ToolResult, ToolTraits};
pub use typed::TypedTool;
