//! [`Tool`]: the catalogue entry. A live invocation is a
//! [`ToolExecution`](crate::ToolExecution) produced by [`Tool::run`], on the
//! `Command` → `spawn()` → `Child` pattern.

use std::path::Path;

use serde_json::Value;

use crate::{
    BoxFuture, SimpleExecution, ToolCategory, ToolDef, ToolDescriptionLength, ToolError,
    ToolExecution, ToolPresentation,
};

pub type ToolResult = Result<String, ToolError>;

/// What crash recovery may do with a call that was interrupted mid-flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RestartHint {
    /// Safe to re-run from intent (reads, idempotent writes).
    Rerun,
    /// Side-effecting: never re-run silently; re-ask the person or report the
    /// call to the model as interrupted.
    Reask,
}

/// How the session driver runs an allowed call, declared by the tool (per
/// call: `execute_task` runs sync or in the background by its `mode`), so
/// the driver and crash resume never recognise these tools by name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum CallRoute {
    /// Run as an execution of the tool ([`Tool::run`]).
    #[default]
    Execute,
    /// Runs a sub-agent in a child frame of the turn while the caller waits
    /// (arguments `title`, `prompt`, `agent_id`); neighbouring calls of this
    /// route in one message run side by side, and crash resume continues the
    /// child frame instead of re-running the call.
    SyncSubAgent,
    /// Starts a background (or scheduled) task; the call's result is its id.
    BackgroundTask,
}

/// What a tool does to the machine, declared by the tool itself: the
/// approval classes (`@fs_read`, `@fs_write`), the write preview and the
/// path defaults read these instead of lists of names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ToolTraits {
    /// Reads files named by its `path` argument.
    pub reads_files: bool,
    /// Creates or changes files named by its `path` argument.
    pub writes_files: bool,
    /// Deletes or overwrites state that cannot be recovered.
    pub destructive: bool,
    /// Its `path` names a directory, and a missing one means the working
    /// directory (directory tools: `list_files`, `grep_files`).
    pub path_defaults_to_workdir: bool,
}

impl ToolTraits {
    pub const READS: Self = Self {
        reads_files: true,
        writes_files: false,
        destructive: false,
        path_defaults_to_workdir: false,
    };
    pub const WRITES: Self = Self {
        reads_files: false,
        writes_files: true,
        destructive: false,
        path_defaults_to_workdir: false,
    };
    /// A read tool whose `path` defaults to the working directory.
    pub const READS_DIR: Self = Self {
        reads_files: true,
        writes_files: false,
        destructive: false,
        path_defaults_to_workdir: true,
    };
}

/// A tool definition. Sync tools implement [`Tool::execute`]; async tools
/// override [`Tool::execute_async`] instead (never `block_in_place`).
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// JSON Schema object of the arguments, generated from a typed input
    /// struct with [`input_schema`](crate::input_schema).
    fn parameters_schema(&self) -> Value;

    /// UI/notification label for a call; see [`ToolDescriptionLength`].
    fn describe(&self, _args: &Value, _length: ToolDescriptionLength) -> String {
        self.name().to_string()
    }

    /// The single viewable file this call acts on, if any.
    fn target_path(&self, _args: &Value) -> Option<String> {
        None
    }

    /// The arguments as they will really run in `workdir`: relative paths made
    /// absolute, a missing working directory filled in. The session persists
    /// these, so a re-run after a crash acts on the same files.
    fn effective_args(&self, args: Value, _workdir: &Path) -> Value {
        args
    }

    /// Validates the arguments without side effects (no I/O): parsing into
    /// the typed input plus cheap range checks. Called before the approval
    /// gate, so a badly formed call fails at once instead of asking a person
    /// first. The default accepts everything.
    fn check_args(&self, _args: &Value) -> Result<(), ToolError> {
        Ok(())
    }

    fn execute(&self, _args: Value) -> ToolResult {
        Err(ToolError::NotImplemented(self.name().to_string()))
    }

    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(self.execute(args)))
    }

    /// Starts one execution. The default races `execute_async` against a stop
    /// token; override for a bespoke `stop()` that also tears down remote work.
    fn run<'a>(&'a self, args: Value) -> Box<dyn ToolExecution + 'a> {
        Box::new(SimpleExecution::new(self.execute_async(args)))
    }

    fn category(&self) -> ToolCategory;

    /// Visible only to sub-agents (depth ≥ 1).
    fn sub_agents_only(&self) -> bool {
        false
    }

    /// Visible only to the root agent (depth 0).
    fn root_agent_only(&self) -> bool {
        false
    }

    /// Whether a call interrupted by a crash may be re-run as is.
    fn restart_hint(&self) -> RestartHint {
        RestartHint::Rerun
    }

    /// How the driver runs a call with `args`; see [`CallRoute`].
    fn route(&self, _args: &Value) -> CallRoute {
        CallRoute::Execute
    }

    /// What the tool does to files; see [`ToolTraits`].
    fn traits(&self) -> ToolTraits {
        ToolTraits::default()
    }

    /// How a call's card shows it (a command line, a question to answer).
    fn presentation(&self) -> ToolPresentation {
        ToolPresentation::Generic
    }

    /// For a tool that writes files: the content a call with `args` would
    /// leave in its file, given the content now (`None`: no file), computed
    /// without writing — the approval card's diff. `None` when it cannot be
    /// predicted (the call would fail, or the tool does not say).
    fn predict_content(&self, _args: &Value, _current: Option<&str>) -> Option<String> {
        None
    }

    /// The definition offered to the model.
    fn definition(&self) -> ToolDef {
        ToolDef::new(self.name(), self.description(), self.parameters_schema())
    }

    fn openai_definition(&self) -> Value {
        self.definition().to_openai()
    }
}
