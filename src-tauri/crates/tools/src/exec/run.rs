//! Running one command: spawn (see `spawn`), read, wait, end.
//!
//! The call ends in one of three ways:
//!
//! * **Exited** — the shell exited and the pipe reached EOF: the status line
//!   is `[exit code: N]` or `[killed by signal N (SIGX)]`. Processes that
//!   detached their output are left running, and the status line names them
//!   (`; left running in the background: pid N `cmd``).
//! * **Lingering output** — the shell exited but something it started still
//!   holds the pipe open (`server &`). Reading to EOF would hang until that
//!   job ends, so after [`DRAIN_AFTER_EXIT`] every process of the command is
//!   killed and the status line counts them.
//! * **Timed out** — every process is killed; the status line says
//!   `[timed out after N s; killed K processes]`, naming any survivor.
//!
//! Dropping the future (a `/stop`) kills them all through [`TreeGuard`].

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use nix::sys::signal::Signal;
use skald_core_api::{ProgressReporter, ToolError, ToolResult};
use tokio::io::AsyncReadExt;
use tokio::process::ChildStdout;
use tokio::time::Instant;

use super::cgroup::CommandCgroup;
use super::output::OutputBuffer;
use super::spawn::{StartLine, spawn};
use super::status::{kill_text, left_running_text};
use super::tree::{KILL_WAIT, KillReport, TERM_GRACE, Tree, TreeGuard};
use crate::tool_names as tn;

/// How long output is still read after the shell exits before the jobs
/// holding the pipe open are killed.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(250);
/// Upper bound for collecting the last output (and reaping the shell) once
/// the kill has begun.
const FINAL_DRAIN: Duration = Duration::from_millis(500);
const READ_CHUNK: usize = 64 * 1024;

enum Ending {
    Exited(ExitStatus),
    LingeringOutput(ExitStatus),
    TimedOut,
}

/// Runs `command` in `dir` and renders the output and status line.
/// `use_cgroup`: try a cgroup of its own first (Linux, where writable).
pub(crate) async fn run_shell(
    command: &str,
    dir: &Path,
    timeout: Duration,
    use_cgroup: bool,
    progress: Option<ProgressReporter>,
) -> ToolResult {
    tracing::info!(
        command = %command,
        workdir = %dir.display(),
        timeout_secs = timeout.as_secs(),
        "execute_cmd: running shell command"
    );
    let started = Instant::now();
    let cgroup = if use_cgroup {
        CommandCgroup::create()
    } else {
        None
    };
    let cgroup_dir = cgroup.as_ref().map(|c| c.dir().to_path_buf());
    let tag = super::spawn::new_tag();
    let spawned = match spawn(command, dir, cgroup_dir.as_deref(), &tag) {
        Ok(s) => s,
        Err(e) => {
            if let Some(cg) = cgroup {
                cg.discard();
            }
            return Err(e);
        }
    };
    let mut child = spawned.child;
    let mut reader = spawned.output;
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    let Some(pgid) = pgid else {
        // Reaped already (cannot happen before we wait): nothing to track.
        return Err(ToolError::failed(format!(
            "{}: the shell exited before it could be tracked",
            tn::EXECUTE_CMD
        )));
    };
    // From here on, any early return or drop of this future kills the tree.
    let mut guard = TreeGuard::new(Tree::new(pgid, cgroup, &tag, spawned.pipe, spawned.disarm));
    let mut start_line = StartLine::default();
    let mut out = OutputBuffer::default();
    let mut buf = vec![0u8; READ_CHUNK];
    let deadline = started + timeout;
    let mut status: Option<ExitStatus> = None;
    let mut eof = false;
    let mut drain_until: Option<Instant> = None;

    let ending = loop {
        if let (true, Some(s)) = (eof, status) {
            break Ending::Exited(s);
        }
        let wake = drain_until.map_or(deadline, |d| d.min(deadline));
        tokio::select! {
            r = reader.read(&mut buf), if !eof => match r {
                Ok(0) | Err(_) => {
                    eof = true;
                    let rest = start_line.flush();
                    if let Some(p) = &progress {
                        p.output(&rest);
                    }
                    out.push(&rest);
                }
                Ok(n) => {
                    let (report, rest) = start_line.feed(&buf[..n]);
                    if let (Some(s), Some(tree)) = (report, guard.get_mut()) {
                        tree.started(s.in_cgroup, s.watchdog);
                    }
                    if let Some(p) = &progress {
                        p.output(&rest);
                    }
                    out.push(&rest);
                }
            },
            s = child.wait(), if status.is_none() => match s {
                Ok(s) => {
                    status = Some(s);
                    drain_until = Some(Instant::now() + DRAIN_AFTER_EXIT);
                }
                Err(e) => {
                    return Err(ToolError::failed(format!(
                        "{}: waiting for the shell failed: {e}",
                        tn::EXECUTE_CMD
                    )));
                }
            },
            () = tokio::time::sleep_until(wake) => match status {
                Some(s) => break Ending::LingeringOutput(s),
                None => break Ending::TimedOut,
            },
        }
    };

    let status_line = match ending {
        Ending::Exited(s) => {
            let left = match guard.take() {
                Some(tree) => tokio::task::spawn_blocking(move || tree.left_running())
                    .await
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            let left = left_running_text(&left);
            if left.is_empty() {
                status_text(s)
            } else {
                format!("{}; {left}", status_text(s))
            }
        }
        Ending::LingeringOutput(s) => {
            out.push(&start_line.flush());
            let report = kill_all(&mut guard, &mut reader, &mut buf, &mut out, None).await;
            format!(
                "{}; the output was still open after the shell exited: {}",
                status_text(s),
                report_text(report.as_ref(), "background process")
            )
        }
        Ending::TimedOut => {
            out.push(&start_line.flush());
            let report = kill_all(
                &mut guard,
                &mut reader,
                &mut buf,
                &mut out,
                Some(&mut child),
            )
            .await;
            format!(
                "timed out after {} s; {}",
                timeout.as_secs(),
                report_text(report.as_ref(), "process")
            )
        }
    };
    Ok(render(out.finish(), &status_line))
}

/// Kills the whole tree on a blocking thread while collecting the last
/// output and reaping the shell; the report, when the kill finished.
async fn kill_all(
    guard: &mut TreeGuard,
    reader: &mut ChildStdout,
    buf: &mut [u8],
    out: &mut OutputBuffer,
    child: Option<&mut tokio::process::Child>,
) -> Option<KillReport> {
    let tree = guard.take()?;
    // Should this future be dropped meanwhile, the kill still runs to its end.
    let kill = tokio::task::spawn_blocking(move || tree.kill());
    let _ = tokio::time::timeout(FINAL_DRAIN + TERM_GRACE, async {
        read_to_end(reader, buf, out).await;
        if let Some(child) = child {
            let _ = child.wait().await;
        }
    })
    .await;
    let report = tokio::time::timeout(TERM_GRACE + KILL_WAIT + KILL_SLACK, kill).await;
    match report {
        Ok(Ok(r)) => Some(r),
        _ => None,
    }
}

/// Slack for the kill's own scans beyond its grace and wait.
const KILL_SLACK: Duration = Duration::from_secs(2);

fn report_text(report: Option<&KillReport>, noun: &str) -> String {
    match report {
        Some(r) => kill_text(r, noun),
        None => "the kill did not finish in time; some processes may still be running".to_string(),
    }
}

async fn read_to_end(reader: &mut ChildStdout, buf: &mut [u8], out: &mut OutputBuffer) {
    loop {
        match reader.read(buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => out.push(&buf[..n]),
        }
    }
}

/// `exit code: N` or `killed by signal N (SIGX)`.
fn status_text(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code: {code}");
    }
    match status.signal() {
        Some(sig) => match Signal::try_from(sig) {
            Ok(s) => format!("killed by signal {sig} ({})", s.as_str()),
            Err(_) => format!("killed by signal {sig}"),
        },
        None => "exit status unknown".to_string(),
    }
}

/// The output, then the status line in brackets on its own line.
fn render(output: String, status_line: &str) -> String {
    let mut text = if output.is_empty() {
        "(no output)".to_string()
    } else {
        output
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push('[');
    text.push_str(status_line);
    text.push(']');
    text
}
