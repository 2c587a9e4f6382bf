//! Running one command: spawn, read, wait, end.
//!
//! The child is `/bin/sh -c <command>` in a new process group (pgid = its
//! pid) with stdin at `/dev/null` and stdout *and* stderr on the write end of
//! one pipe, so the two streams interleave exactly as written.
//!
//! A watchdog shares the group: a background `read` on a pipe whose only
//! write end this process holds. If the host dies in any way — SIGKILL
//! included, where no destructor runs — the read sees EOF and the watchdog
//! kills the whole group, so a crashed Skald leaves no orphaned command. A
//! command that finished normally disarms it by writing `done`. This needs no
//! `unsafe` (`PR_SET_PDEATHSIG` would, and would reach only the direct child).
//!
//! The call ends in one of three ways:
//!
//! * **Exited** — the shell exited and the pipe reached EOF: the status line
//!   is `[exit code: N]` or `[killed by signal N (SIGX)]`. Leftover group
//!   members that detached their output are left running.
//! * **Lingering output** — the shell exited but something it started still
//!   holds the pipe open (`server &`). Reading to EOF would hang until that
//!   job ends, so after [`DRAIN_AFTER_EXIT`] the group is killed and the
//!   status line says so.
//! * **Timed out** — the group is killed; the status line says
//!   `[timed out after N s; process group killed]`.
//!
//! Dropping the future (a `/stop`) kills the group through [`GroupGuard`].

use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::Signal;
use skald_core_api::{ToolError, ToolResult};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdout};
use tokio::time::Instant;

use super::group::{GroupGuard, TERM_GRACE};
use super::output::OutputBuffer;
use crate::tool_names as tn;

/// How long output is still read after the shell exits before the jobs
/// holding the pipe open are killed.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(250);
/// Upper bound for collecting the last output (and reaping the shell) once
/// the group was killed; only a process that left the group can hold it up.
const FINAL_DRAIN: Duration = Duration::from_millis(500);
const READ_CHUNK: usize = 64 * 1024;
const SHELL: &str = "/bin/sh";
/// What the host writes to disarm the watchdog after a normal exit.
const DISARM: &[u8] = b"done\n";
/// Runs as `sh -c WRAPPER skald-exec <command>`: keeps the host's pipe on fd 3
/// for the watchdog only, gives the command `/dev/null` as stdin, then becomes
/// the command's shell (same pid, so the group leader stays the shell).
const WRAPPER: &str = r#"exec 3<&0 </dev/null
{ read -r state <&3; [ "$state" = done ] || kill -s KILL 0; } >/dev/null 2>&1 &
exec 3<&-
exec /bin/sh -c "$1""#;

enum Ending {
    Exited(ExitStatus),
    LingeringOutput(ExitStatus),
    TimedOut,
}

/// Runs `command` in `dir` and renders the output and status line.
pub(crate) async fn run_shell(command: &str, dir: &Path, timeout: Duration) -> ToolResult {
    tracing::info!(
        command = %command,
        workdir = %dir.display(),
        timeout_secs = timeout.as_secs(),
        "execute_cmd: running shell command"
    );
    let started = Instant::now();
    let (mut child, mut reader) = spawn(command, dir)?;
    // Held until the end: its closing (with this process) is the watchdog's cue.
    let mut watchdog = child.stdin.take();
    let Some(pid) = child.id() else {
        return Err(ToolError::failed(format!(
            "{}: the shell exited before it could be tracked",
            tn::EXECUTE_CMD
        )));
    };
    let Ok(pgid) = i32::try_from(pid) else {
        return Err(ToolError::failed(format!(
            "{}: unexpected pid {pid}",
            tn::EXECUTE_CMD
        )));
    };
    // From here on, any early return or drop of this future kills the group.
    let mut group = GroupGuard::new(pgid);
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
                Ok(0) | Err(_) => eof = true,
                Ok(n) => out.push(&buf[..n]),
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

    match ending {
        Ending::Exited(_) => {
            group.disarm();
            if let Some(mut w) = watchdog.take() {
                // A failed write means the watchdog is gone already.
                let _ = tokio::io::AsyncWriteExt::write_all(&mut w, DISARM).await;
            }
        }
        Ending::LingeringOutput(_) | Ending::TimedOut => {
            group.terminate();
            let _ = tokio::time::timeout(FINAL_DRAIN + TERM_GRACE, async {
                if !eof {
                    read_to_end(&mut reader, &mut buf, &mut out).await;
                }
                if status.is_none() {
                    let _ = child.wait().await;
                }
            })
            .await;
        }
    }

    let status_line = match ending {
        Ending::Exited(s) => status_text(s),
        Ending::LingeringOutput(s) => format!(
            "{}; background processes still holding the output open were killed",
            status_text(s)
        ),
        Ending::TimedOut => format!(
            "timed out after {} s; process group killed",
            timeout.as_secs()
        ),
    };
    Ok(render(out.finish(), &status_line))
}

/// Starts the shell with both output streams on one pipe.
fn spawn(command: &str, dir: &Path) -> Result<(Child, ChildStdout), ToolError> {
    let start_failed = |e: std::io::Error| {
        ToolError::failed(format!("{}: could not start {SHELL}: {e}", tn::EXECUTE_CMD))
    };
    let (pipe_reader, pipe_writer) = std::io::pipe().map_err(start_failed)?;
    let stderr_writer = pipe_writer.try_clone().map_err(start_failed)?;
    let mut cmd = tokio::process::Command::new(SHELL);
    cmd.arg("-c")
        .arg(WRAPPER)
        .arg("skald-exec")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(pipe_writer)
        .stderr(stderr_writer)
        .process_group(0)
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(start_failed)?;
    // The parent's copies of the write end must go, or EOF never comes.
    drop(cmd);
    let reader = std::process::ChildStdout::from(OwnedFd::from(pipe_reader));
    let reader = ChildStdout::from_std(reader).map_err(start_failed)?;
    Ok((child, reader))
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
