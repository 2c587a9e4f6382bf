//! Reading the process table (`/proc`, Linux): which live processes belong to
//! a command. Where `/proc` is missing (macOS, the BSDs) every query answers
//! "none", and callers must not read that as "all gone" — see
//! [`proc_available`].
//!
//! Three nets find a command's processes besides its cgroup: its process
//! group, the environment tag every process it starts inherits, and the
//! output pipe a process still holds. Only processes started no earlier than
//! the command's shell are examined (a descendant cannot be older than its
//! ancestor), which keeps a scan to one `stat` read per older process.

use std::collections::BTreeSet;

/// The fields of `/proc/<pid>/stat` this module needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    /// Start time in clock ticks since boot.
    pub start: u64,
}

impl Stat {
    /// Zombies and dead entries are exited processes waiting for a reaper.
    pub fn is_live(&self) -> bool {
        self.state != 'Z' && self.state != 'X'
    }
}

/// `/proc/<pid>/stat` is `pid (comm) state ppid pgrp … starttime …`, where
/// `comm` may itself hold spaces and parentheses; `starttime` is field 22.
pub(crate) fn parse_stat(stat: &str) -> Option<Stat> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let ppid = fields.get(1)?.parse().ok()?;
    let pgrp = fields.get(2)?.parse().ok()?;
    // Field 3 (state) is fields[0], so field 22 is fields[19].
    let start = fields.get(19).and_then(|s| s.parse().ok()).unwrap_or(0);
    Some(Stat {
        state,
        ppid,
        pgrp,
        start,
    })
}

/// Whether this system has a process table to read.
pub(crate) fn proc_available() -> bool {
    cfg!(target_os = "linux") && std::path::Path::new("/proc/self/stat").exists()
}

pub(crate) fn stat(pid: i32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

pub(crate) fn is_live(pid: i32) -> bool {
    stat(pid).is_some_and(|s| s.is_live())
}

fn pids() -> impl Iterator<Item = i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
}

/// PIDs of the live (non-zombie) processes whose process group is `pgid`,
/// read from `/proc` (Linux; empty elsewhere). Used to check that a stopped
/// call left nothing behind — by the kill follow-up, the tests and the
/// `exec-stop-bench` benchmark.
pub fn live_group_members(pgid: i32) -> Vec<i32> {
    pids()
        .filter(|&pid| stat(pid).is_some_and(|s| s.pgrp == pgid && s.is_live()))
        .collect()
}

/// PIDs of the live processes whose command line is exactly `argv` (Linux;
/// empty elsewhere). Tests and the benchmark find what a command left
/// behind by giving it a unique argument, e.g. `sleep 3001.4242`.
pub fn processes_running(argv: &[&str]) -> Vec<i32> {
    let want: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    pids()
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == want) && is_live(pid)
        })
        .collect()
}

/// What marks a process as the command's, besides its group.
pub(crate) struct Marks<'a> {
    pub pgid: i32,
    /// The whole environment entry, `NAME=value`.
    pub tag: &'a [u8],
    /// `pipe:[inode]` of the output pipe; `None` skips the (costlier) fd scan.
    pub pipe: Option<&'a str>,
    /// The shell's start time: older processes are not examined.
    pub since: u64,
    /// This process, which holds the pipe's read end.
    pub host: i32,
}

/// Live processes in the group, carrying the tag or holding the pipe.
pub(crate) fn marked(m: &Marks<'_>) -> BTreeSet<i32> {
    pids()
        .filter(|&pid| {
            let Some(s) = stat(pid) else {
                return false; // exited meanwhile
            };
            if !s.is_live() {
                return false;
            }
            if s.pgrp == m.pgid {
                return true;
            }
            // The host's own children are either the shell (in the group) or
            // another call's shell between fork and exec, which still holds
            // every descriptor of the host, this pipe included: never ours.
            s.start >= m.since
                && s.ppid != m.host
                && pid != m.host
                && (carries_tag(pid, m.tag) || m.pipe.is_some_and(|p| holds_pipe(pid, p)))
        })
        .collect()
}

/// `/proc/<pid>/environ` is the environment the process was started with
/// (NUL-separated); only an `exec` with a new environment drops the tag.
fn carries_tag(pid: i32, tag: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|entry| entry == tag))
}

fn holds_pipe(pid: i32, pipe: &str) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == pipe))
}

/// `pipe:[inode]` of an open file descriptor of this process.
pub(crate) fn fd_link(fd: i32) -> Option<String> {
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    link.to_str().map(str::to_string)
}

/// The command line of `pid` for a report: arguments joined by spaces,
/// control characters escaped, cut to [`MAX_SHOWN`] characters.
pub(crate) fn command_line(pid: i32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let args: Vec<String> = raw
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let joined = if args.is_empty() {
        // Kernel threads and exiting processes have no command line.
        std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .map(|c| format!("[{}]", c.trim()))
            .unwrap_or_else(|_| "?".to_string())
    } else {
        args.join(" ")
    };
    shown(&joined)
}

const MAX_SHOWN: usize = 80;

fn shown(s: &str) -> String {
    let escaped: String = s
        .chars()
        .flat_map(|c| {
            let e: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            e
        })
        .collect();
    if escaped.chars().count() <= MAX_SHOWN {
        return escaped;
    }
    let mut cut: String = escaped.chars().take(MAX_SHOWN - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_with_odd_command_names() {
        let tail = "0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 777 1000 10";
        let s = parse_stat(&format!("42 (sleep) S 1 40 40 {tail}")).unwrap();
        assert_eq!((s.state, s.ppid, s.pgrp, s.start), ('S', 1, 40, 777));
        let s = parse_stat(&format!("42 (a) b (c) Z 1 7 7 {tail}")).unwrap();
        assert_eq!((s.state, s.pgrp, s.is_live()), ('Z', 7, false));
        // A truncated line still gives the group; the start time is unknown.
        assert_eq!(
            parse_stat("42 (x) R 1 9").map(|s| (s.pgrp, s.start)),
            Some((9, 0))
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn command_lines_are_escaped_and_cut() {
        assert_eq!(shown("sleep 3001"), "sleep 3001");
        assert_eq!(shown("a\nb\u{1b}"), "a\\nb\\u{1b}");
        let long = "x".repeat(200);
        let s = shown(&long);
        assert_eq!(s.chars().count(), MAX_SHOWN);
        assert!(s.ends_with('…'));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn own_group_has_a_live_member() {
        let me = std::process::id() as i32;
        let pgid = nix::unistd::getpgid(None)
            .map(nix::unistd::Pid::as_raw)
            .unwrap();
        let members = live_group_members(pgid);
        assert!(members.contains(&me), "{members:?}");
        assert!(is_live(me));
        assert!(stat(me).unwrap().start > 0);
        assert!(
            command_line(me).contains("skald_tools"),
            "{}",
            command_line(me)
        );
    }
}
