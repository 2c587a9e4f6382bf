//! Killing a command's whole process group: SIGTERM now, SIGKILL after
//! [`TERM_GRACE`] for whatever is still alive.
//!
//! [`GroupGuard`] does this from `Drop`, so it works where no async context
//! exists (a dropped future, a runtime shutting down): the SIGKILL follow-up
//! runs on a short-lived std thread that polls every [`KILL_POLL`] and exits
//! as soon as the group is gone.

use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// How long a group gets to exit on SIGTERM before SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_millis(200);
/// How often the SIGKILL follow-up checks whether the group is gone.
const KILL_POLL: Duration = Duration::from_millis(5);

/// Kills the process group `pgid` when dropped, unless disarmed.
pub(crate) struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    pub(crate) fn new(pgid: i32) -> Self {
        Self {
            pgid: Some(Pid::from_raw(pgid)),
        }
    }

    /// The command finished normally: leave the group alone (background jobs
    /// that detached their output keep running).
    pub(crate) fn disarm(&mut self) {
        self.pgid = None;
    }

    /// Kills the group now (at most once).
    pub(crate) fn terminate(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            terminate_group(pgid);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// SIGTERM to the group, then SIGKILL after [`TERM_GRACE`] if any member is
/// still alive. Never blocks the caller.
fn terminate_group(pgid: Pid) {
    if killpg(pgid, Signal::SIGTERM) == Err(Errno::ESRCH) {
        return;
    }
    let follow_up = std::thread::Builder::new()
        .name("execute_cmd-kill".to_string())
        .spawn(move || {
            let start = Instant::now();
            while start.elapsed() < TERM_GRACE {
                std::thread::sleep(KILL_POLL);
                if group_is_gone(pgid) {
                    return;
                }
            }
            tracing::debug!(
                pgid = pgid.as_raw(),
                "execute_cmd: group survived SIGTERM; SIGKILL"
            );
            let _ = killpg(pgid, Signal::SIGKILL);
        });
    if follow_up.is_err() {
        // No thread to wait with: skip the grace.
        let _ = killpg(pgid, Signal::SIGKILL);
    }
}

/// No member is left, or (Linux) only zombies awaiting their reaper.
fn group_is_gone(pgid: Pid) -> bool {
    if killpg(pgid, None) == Err(Errno::ESRCH) {
        return true;
    }
    cfg!(target_os = "linux") && live_group_members(pgid.as_raw()).is_empty()
}

/// PIDs of the live (non-zombie) processes whose process group is `pgid`,
/// read from `/proc` (Linux; empty elsewhere). Used to check that a stopped
/// call left nothing behind — by the kill follow-up, the tests and the
/// `exec-stop-bench` benchmark.
pub fn live_group_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false; // exited meanwhile
            };
            matches!(parse_stat(&stat), Some((state, pgrp)) if pgrp == pgid && state != 'Z' && state != 'X')
        })
        .collect()
}

/// `(state, pgrp)` from a `/proc/<pid>/stat` line: `pid (comm) state ppid
/// pgrp …`, where `comm` may itself hold spaces and parentheses.
fn parse_stat(stat: &str) -> Option<(char, i32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_with_odd_command_names() {
        assert_eq!(parse_stat("42 (sleep) S 1 40 40 0 -1"), Some(('S', 40)));
        assert_eq!(parse_stat("42 (a) b (c) Z 1 7 7 0"), Some(('Z', 7)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn own_group_has_a_live_member() {
        let me = std::process::id() as i32;
        let pgid = nix::unistd::getpgid(None).map(Pid::as_raw).unwrap();
        let members = live_group_members(pgid);
        assert!(members.contains(&me), "{members:?}");
    }
}
