//! `execute_cmd`: one shell command per call, run with `sh -c` in its own
//! process group (and, on Linux where cgroup v2 is writable, its own cgroup),
//! its stdout and stderr read from one pipe so they interleave as produced.
//!
//! Lifecycle (see [`run`]): the call ends when the shell has exited *and* the
//! output pipe is closed. Timeout, `/stop` (the default
//! [`SimpleExecution`](skald_core_api::SimpleExecution) drops the work future)
//! and dropping the future all kill **every process of the command** (see
//! [`tree`]: cgroup, process group, environment tag, output pipe) — SIGTERM,
//! then SIGKILL after a short grace — so background jobs, `setsid` children
//! and daemons die too. The status line counts what was killed and names
//! what survived; it never claims a kill it did not see. This module never
//! blocks an async thread.
//!
//! Outcome: a non-zero exit code, a death by signal and a timeout are all
//! *completed* calls — the model reads the status line after the output. Only
//! bad arguments, a bad working directory or a failure to start the shell are
//! errors.

mod cgroup;
mod output;
mod procs;
mod run;
mod spawn;
mod status;
mod tree;

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, ProgressReporter, RestartHint, SimpleExecution, Tool, ToolCategory,
    ToolDescriptionLength, ToolError, ToolExecution, ToolPresentation, ToolResult, input_schema,
    parse_args, truncate_label,
};

use crate::ToolRegistry;
use crate::tool_names as tn;

pub use cgroup::CGROUP_ENV;
pub use output::{OUTPUT_HEAD_BYTES, OUTPUT_LIMIT_BYTES, OUTPUT_TAIL_BYTES};
pub use procs::{live_group_members, processes_running};
pub use tree::TAG_ENV;

/// Timeout when the call gives none, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Largest timeout a call may ask for, in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 600;

/// Arguments of `execute_cmd`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExecuteCmdInput {
    /// The shell command, run with `sh -c` (pipes, `&&`, redirections and
    /// multi-line scripts work). stdin is closed: nothing can prompt.
    command: String,
    /// Absolute path of the directory to run in. Defaults to the session's
    /// working directory.
    #[serde(default)]
    workdir: Option<String>,
    /// Time limit in seconds, 1–600 (default 120). When it runs out the
    /// command and every process it started are killed.
    #[serde(default)]
    #[schemars(range(min = 1, max = 600))]
    timeout: Option<u64>,
}

/// The `execute_cmd` tool.
pub struct ExecuteCmd {
    description: String,
    use_cgroup: bool,
}

impl ExecuteCmd {
    /// Contains each command in a cgroup of its own where the system allows
    /// it, unless [`CGROUP_ENV`] is `off`.
    pub fn new() -> Self {
        Self::with_cgroups(!cgroup::disabled_by_env())
    }

    /// Process group and environment tag only, never a cgroup: what runs
    /// where cgroup v2 is missing or not writable.
    pub fn without_cgroup() -> Self {
        Self::with_cgroups(false)
    }

    fn with_cgroups(use_cgroup: bool) -> Self {
        let description = format!(
            "Run a shell command (`sh -c`) and return its stdout and stderr, interleaved as \
             produced, followed by a status line such as `[exit code: 0]`. A non-zero exit code \
             is reported in that line, not as an error. Output over 100 KB keeps the first and \
             last 50 KB. The command and every process it started are killed on timeout \
             (default {DEFAULT_TIMEOUT_SECS} s, max {MAX_TIMEOUT_SECS} s) or when the user stops \
             the call; background jobs still writing to the output when the shell exits are \
             killed too (redirect their output, e.g. `cmd > log 2>&1 &`, to keep them running; \
             the status line names what was left running). \
             Prefer the dedicated tools to shell equivalents: {read} instead of cat/head/tail, \
             {grep} instead of grep/rg, {list} instead of ls/find, {edit} instead of sed/awk.",
            read = tn::READ_FILE,
            grep = tn::GREP_FILES,
            list = tn::LIST_FILES,
            edit = tn::EDIT_FILE,
        );
        Self {
            description,
            use_cgroup,
        }
    }
}

impl Default for ExecuteCmd {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers `execute_cmd`.
pub fn register(registry: &mut ToolRegistry) {
    registry.register(ExecuteCmd::new());
}

impl ExecuteCmd {
    async fn shell(&self, args: Value, progress: Option<ProgressReporter>) -> ToolResult {
        let input: ExecuteCmdInput = parse_args(tn::EXECUTE_CMD, args)?;
        let timeout = validate(&input)?;
        let dir = working_dir(input.workdir.as_deref()).await?;
        run::run_shell(&input.command, &dir, timeout, self.use_cgroup, progress).await
    }
}

impl Tool for ExecuteCmd {
    fn name(&self) -> &str {
        tn::EXECUTE_CMD
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters_schema(&self) -> Value {
        input_schema::<ExecuteCmdInput>()
    }

    /// ``execute_cmd `cargo test` ``: the command's first line, cut so the
    /// closing backtick survives; `…` marks further lines.
    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let name = tn::EXECUTE_CMD;
        let Some(command) = args.get("command").and_then(Value::as_str) else {
            return name.to_string();
        };
        let mut lines = command.trim().lines();
        let Some(first) = lines.next() else {
            return name.to_string();
        };
        let mut shown = first.trim().to_string();
        if lines.any(|l| !l.trim().is_empty()) {
            shown.push_str(" …");
        }
        let budget = length.max_chars().saturating_sub(name.chars().count() + 3);
        format!("{name} `{}`", truncate_label(&shown, budget))
    }

    /// Fills a missing `workdir` with the session's working directory and
    /// makes a relative one absolute against it.
    fn effective_args(&self, mut args: Value, workdir: &Path) -> Value {
        let Some(obj) = args.as_object_mut() else {
            return args;
        };
        let resolved = match obj.get("workdir") {
            None | Some(Value::Null) => Some(workdir.to_path_buf()),
            Some(Value::String(s)) if s.trim().is_empty() => Some(workdir.to_path_buf()),
            Some(Value::String(s)) if Path::new(s).is_relative() => Some(workdir.join(s)),
            Some(_) => None,
        };
        if let Some(dir) = resolved {
            obj.insert(
                "workdir".to_string(),
                Value::String(dir.to_string_lossy().into_owned()),
            );
        }
        args
    }

    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(self.shell(args, None))
    }

    /// Streams the output to the card as it is produced.
    fn run<'a>(&'a self, args: Value) -> Box<dyn ToolExecution + 'a> {
        Box::new(SimpleExecution::with_progress(move |progress| {
            Box::pin(self.shell(args, Some(progress)))
        }))
    }

    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        validate(&parse_args::<ExecuteCmdInput>(
            tn::EXECUTE_CMD,
            args.clone(),
        )?)
        .map(drop)
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Shell
    }

    fn restart_hint(&self) -> RestartHint {
        RestartHint::Reask
    }

    fn presentation(&self) -> ToolPresentation {
        ToolPresentation::Command
    }
}

/// The argument checks that need no I/O; the timeout to run with.
fn validate(input: &ExecuteCmdInput) -> Result<Duration, ToolError> {
    let timeout_secs = input.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS);
    if !(1..=MAX_TIMEOUT_SECS).contains(&timeout_secs) {
        return Err(invalid(format!(
            "timeout must be between 1 and {MAX_TIMEOUT_SECS} seconds, got {timeout_secs}"
        )));
    }
    if input.command.trim().is_empty() {
        return Err(invalid("command is empty".to_string()));
    }
    Ok(Duration::from_secs(timeout_secs))
}

fn invalid(reason: String) -> ToolError {
    ToolError::InvalidArguments {
        tool: tn::EXECUTE_CMD.to_string(),
        reason,
    }
}

/// The directory to run in: the argument (relative ones against the process
/// directory, for callers that skipped `effective_args`) or the process
/// directory; it must exist and be a directory.
async fn working_dir(arg: Option<&str>) -> Result<PathBuf, ToolError> {
    let cwd = || {
        std::env::current_dir().map_err(|e| {
            ToolError::failed(format!(
                "no workdir given and the current directory is unusable: {e}"
            ))
        })
    };
    let dir = match arg.map(str::trim).filter(|s| !s.is_empty()) {
        None => cwd()?,
        Some(s) if Path::new(s).is_absolute() => PathBuf::from(s),
        Some(s) => cwd()?.join(s),
    };
    match tokio::fs::metadata(&dir).await {
        Ok(m) if m.is_dir() => Ok(dir),
        Ok(_) => Err(ToolError::failed(format!(
            "workdir `{}` is not a directory; pass an existing directory",
            dir.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ToolError::failed(format!(
            "workdir `{}` does not exist; pass an existing directory",
            dir.display()
        ))),
        Err(e) => Err(ToolError::failed(format!(
            "workdir `{}` is not accessible: {e}",
            dir.display()
        ))),
    }
}
