//! Starting one command: the `sh` wrapper, its watchdog, and the line the
//! wrapper writes before the command's first byte.
//!
//! The child is `/bin/sh -c WRAPPER skald-exec <command> <cgroup dir> <tag>
//! <watchdog script>`
//! in a new process group (pgid = its pid) with stdout *and* stderr on the
//! write end of one pipe, so the two streams interleave exactly as written,
//! and stdin on a pipe whose only write end the host holds.
//!
//! The wrapper
//! 1. starts the watchdog ([`WATCHDOG`]): a background `read` on that stdin
//!    pipe, in a session of its own where `setsid` exists, ignoring
//!    SIGTERM/SIGHUP/SIGINT so a stop's SIGTERM cannot disarm it mid-kill;
//! 2. moves itself into the command's cgroup (when one was made);
//! 3. writes `C <watchdog pid>` (in the cgroup) or `G <watchdog pid>` (not),
//!    one line, before anything of the command;
//! 4. exports `SKALD_EXEC_TAG` and `exec`s `/bin/sh -c <command>` with stdin
//!    at `/dev/null` (same pid: the group leader stays the shell).
//!
//! The host disarms the watchdog by writing `done` once it has finished with
//! the command (after a normal exit, or after its own kill). If the host dies
//! first — SIGKILL included, where no destructor runs — the read sees EOF and
//! the watchdog kills the cgroup (`cgroup.kill`, else each pid in it), the
//! group, every process carrying the tag (a `/proc` scan, three rounds at
//! most), removes the cgroup, then its own group (itself, and the group too
//! where it could not leave it). The watchdog was started before the wrapper set
//! the tag or entered the cgroup, so neither kill reaches it early. No
//! `unsafe` is needed (`PR_SET_PDEATHSIG` would need it, and would reach
//! only the direct child).

use std::io::PipeWriter;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use skald_core_api::ToolError;
use tokio::process::{Child, ChildStdout};

use super::procs;
use crate::tool_names as tn;

pub(crate) const SHELL: &str = "/bin/sh";

const WRAPPER: &str = r#"exec 3<&0 </dev/null
s=; command -v setsid >/dev/null 2>&1 && s=setsid
{ exec $s /bin/sh -c "$4" skald-watchdog "$$" "$2" "$3" "$s" <&3; } >/dev/null 2>&1 &
w=$!
exec 3<&-
m=G
if [ -n "$2" ] && { echo $$ > "$2/cgroup.procs"; } 2>/dev/null; then m=C; fi
printf '%s %s\n' "$m" "$w"
export SKALD_EXEC_TAG="$3"
exec /bin/sh -c "$1""#;

/// `sh -c WATCHDOG skald-watchdog <pgid> <cgroup dir> <tag> <setsid or
/// empty>`, stdin on the host's pipe. In a session of its own where `setsid` exists, so neither a
/// stop's signals to the group nor a test of the group counts it; it ignores
/// SIGTERM/SIGHUP/SIGINT either way, so it outlives any signal but SIGKILL.
const WATCHDOG: &str = r#"trap '' TERM HUP INT
read -r s; [ "$s" = done ] && exit 0
if [ -n "$2" ]; then
  echo 1 > "$2/cgroup.kill" || for p in $(cat "$2/cgroup.procs"); do kill -s KILL "$p"; done
fi
# Still in the command's group (no setsid): killing it now would end this.
[ -n "$4" ] && kill -s KILL -- "-$1"
i=0
while [ $i -lt 3 ]; do
  i=$((i+1)); h=
  for d in /proc/[0-9]*; do
    grep -qaF "SKALD_EXEC_TAG=$3" "$d/environ" && kill -s KILL "${d#/proc/}" && h=1
  done
  [ -n "$h" ] || break
done
if [ -n "$2" ]; then
  i=0; until rmdir "$2"; do i=$((i+1)); [ $i -gt 20 ] && break; sleep 0.1; done
  rmdir "${2%/*}"
fi
kill -s KILL -- "-$1""#;

/// A started command.
pub(crate) struct Spawned {
    pub child: Child,
    pub output: ChildStdout,
    /// The watchdog's pipe: writing `done` disarms it, closing it fires it.
    pub disarm: PipeWriter,
    /// `pipe:[inode]` of the output pipe (Linux).
    pub pipe: Option<String>,
}

/// A value no other command of any process shares: host pid, host start
/// (ns), counter; the trailing dot keeps `…1.` from matching `…10.`.
pub(crate) fn new_tag() -> String {
    static START: OnceLock<u128> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let start = START.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{}.{start}.{n}.", std::process::id())
}

/// Starts the wrapper for `command` in `dir`.
pub(crate) fn spawn(
    command: &str,
    dir: &Path,
    cgroup: Option<&Path>,
    tag: &str,
) -> Result<Spawned, ToolError> {
    let start_failed = |e: std::io::Error| {
        ToolError::failed(format!("{}: could not start {SHELL}: {e}", tn::EXECUTE_CMD))
    };
    let (out_reader, out_writer) = std::io::pipe().map_err(start_failed)?;
    let err_writer = out_writer.try_clone().map_err(start_failed)?;
    let (watch_reader, watch_writer) = std::io::pipe().map_err(start_failed)?;
    let pipe = procs::fd_link(out_reader.as_raw_fd());
    let cgroup_arg = cgroup.map(|p| p.as_os_str().to_owned()).unwrap_or_default();
    let mut cmd = tokio::process::Command::new(SHELL);
    cmd.arg("-c")
        .arg(WRAPPER)
        .arg("skald-exec")
        .arg(command)
        .arg(cgroup_arg)
        .arg(tag)
        .arg(WATCHDOG)
        .current_dir(dir)
        .stdin(watch_reader)
        .stdout(out_writer)
        .stderr(err_writer)
        .process_group(0)
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(start_failed)?;
    // The parent's copies of the child's ends must go, or EOF never comes.
    drop(cmd);
    let output = std::process::ChildStdout::from(OwnedFd::from(out_reader));
    let output = ChildStdout::from_std(output).map_err(start_failed)?;
    Ok(Spawned {
        child,
        output,
        disarm: watch_writer,
        pipe,
    })
}

/// The wrapper's line, split from the command's output that may follow it
/// in the same read.
#[derive(Default)]
pub(crate) struct StartLine {
    buf: Vec<u8>,
    done: bool,
}

/// What the wrapper reported.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Started {
    pub in_cgroup: bool,
    pub watchdog: Option<i32>,
}

/// Longer than any line the wrapper writes.
const MAX_START_LINE: usize = 32;

impl StartLine {
    /// Feeds bytes read from the pipe; returns the wrapper's report once the
    /// line is complete, and the bytes that belong to the command.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> (Option<Started>, Vec<u8>) {
        if self.done {
            return (None, bytes.to_vec());
        }
        self.buf.extend_from_slice(bytes);
        let Some(nl) = self.buf.iter().position(|&b| b == b'\n') else {
            if self.buf.len() > MAX_START_LINE {
                // Not the wrapper's line: hand everything to the output.
                self.done = true;
                return (None, std::mem::take(&mut self.buf));
            }
            return (None, Vec::new());
        };
        self.done = true;
        let rest = self.buf.split_off(nl + 1);
        let line = std::mem::take(&mut self.buf);
        match parse_start(&line[..nl]) {
            Some(s) => (Some(s), rest),
            None => {
                let mut all = line;
                all.extend_from_slice(&rest);
                (None, all)
            }
        }
    }

    /// At EOF: whatever was held back.
    pub(crate) fn flush(&mut self) -> Vec<u8> {
        self.done = true;
        std::mem::take(&mut self.buf)
    }
}

fn parse_start(line: &[u8]) -> Option<Started> {
    let text = std::str::from_utf8(line).ok()?;
    let (mode, pid) = text.split_once(' ')?;
    let in_cgroup = match mode {
        "C" => true,
        "G" => false,
        _ => return None,
    };
    Some(Started {
        in_cgroup,
        watchdog: pid.trim().parse().ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_line_is_split_from_the_output() {
        let mut s = StartLine::default();
        assert_eq!(s.feed(b"C 4"), (None, vec![]));
        let (started, rest) = s.feed(b"2\nhello");
        assert_eq!(
            started,
            Some(Started {
                in_cgroup: true,
                watchdog: Some(42)
            })
        );
        assert_eq!(rest, b"hello");
        assert_eq!(s.feed(b"C 1\n"), (None, b"C 1\n".to_vec()));
    }

    #[test]
    fn anything_else_is_output() {
        let mut s = StartLine::default();
        assert_eq!(s.feed(b"oops\nmore"), (None, b"oops\nmore".to_vec()));
        let mut s = StartLine::default();
        let long = vec![b'x'; MAX_START_LINE + 1];
        assert_eq!(s.feed(&long), (None, long.clone()));
        let mut s = StartLine::default();
        assert_eq!(s.feed(b"G 7"), (None, vec![]));
        assert_eq!(s.flush(), b"G 7");
    }

    #[test]
    fn tags_are_unique_and_terminated() {
        let (a, b) = (new_tag(), new_tag());
        assert_ne!(a, b);
        assert!(a.ends_with('.') && a.starts_with(&format!("{}.", std::process::id())));
    }
}
