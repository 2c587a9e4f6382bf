//! The processes of one command and how they end.
//!
//! A command's processes are found by every net available (see [`Tracking`]):
//! its cgroup, its process group, the environment tag each of them inherits
//! and, when killing, the output pipe any of them still holds. Killing is
//! SIGTERM to all of them, then after [`TERM_GRACE`] SIGKILL in rounds until
//! none is left or [`KILL_WAIT`] has passed; the [`KillReport`] says how many
//! died and names each one that did not — it never claims more than it saw.
//!
//! [`TreeGuard`] kills from `Drop`, so a dropped future (a `/stop`) or a
//! runtime shutting down still cleans up: the work runs on a short-lived std
//! thread. Once the host has finished (killed or, after a normal exit, looked
//! at what was left) it disarms the watchdog; a host that dies first leaves
//! the kill to the watchdog (see `spawn`).

use std::collections::BTreeSet;
use std::io::{PipeWriter, Write};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use super::cgroup::CommandCgroup;
use super::procs::{self, Marks};

/// How long a command gets to exit on SIGTERM before SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_millis(200);
/// How long SIGKILL rounds go on before the rest is reported as survivors.
pub(crate) const KILL_WAIT: Duration = Duration::from_secs(1);
/// How often a kill checks what is left.
const KILL_POLL: Duration = Duration::from_millis(5);
/// What the host writes to disarm the watchdog.
const DISARM: &[u8] = b"done\n";
/// The environment variable every process of a command inherits.
pub const TAG_ENV: &str = "SKALD_EXEC_TAG";

/// How a command's processes are tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tracking {
    /// Its own cgroup v2, plus group, tag and pipe (Linux).
    Cgroup,
    /// Process group, environment tag and output pipe, read from `/proc`.
    GroupAndTag,
    /// The process group only: no `/proc` to read (macOS, the BSDs).
    GroupOnly,
}

/// A process of the command still alive after the kill (or, after a normal
/// exit, left running in the background).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Survivor {
    pub pid: i32,
    pub command: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KillReport {
    pub tracking: Tracking,
    /// Processes seen alive that are gone now.
    pub killed: usize,
    pub survivors: Vec<Survivor>,
}

pub(crate) struct Tree {
    pgid: i32,
    tracking: Tracking,
    cgroup: Option<CommandCgroup>,
    /// `SKALD_EXEC_TAG=<value>`, the entry as it appears in `/proc/<pid>/environ`.
    tag: Vec<u8>,
    /// `pipe:[inode]` of the output pipe.
    pipe: Option<String>,
    /// The shell's start time (clock ticks since boot).
    since: u64,
    watchdog: Option<i32>,
    disarm: Option<PipeWriter>,
}

impl Tree {
    pub(crate) fn new(
        pgid: i32,
        cgroup: Option<CommandCgroup>,
        tag_value: &str,
        pipe: Option<String>,
        disarm: PipeWriter,
    ) -> Self {
        let tracking = match (&cgroup, procs::proc_available()) {
            (Some(_), true) => Tracking::Cgroup,
            (None, true) => Tracking::GroupAndTag,
            (_, false) => Tracking::GroupOnly,
        };
        Self {
            pgid,
            tracking,
            cgroup,
            tag: format!("{TAG_ENV}={tag_value}").into_bytes(),
            pipe,
            since: procs::stat(pgid).map_or(0, |s| s.start),
            watchdog: None,
            disarm: Some(disarm),
        }
    }

    /// What the wrapper said: whether the shell entered its cgroup, and the
    /// watchdog's pid (a helper, not counted as one of the command's).
    pub(crate) fn started(&mut self, in_cgroup: bool, watchdog: Option<i32>) {
        self.watchdog = watchdog;
        if !in_cgroup && let Some(cg) = self.cgroup.take() {
            tracing::debug!("execute_cmd: the shell could not enter its cgroup");
            cg.discard();
            if self.tracking == Tracking::Cgroup {
                self.tracking = Tracking::GroupAndTag;
            }
        }
    }

    /// Live processes of the command; `with_pipe` adds those holding the
    /// output pipe (costlier: reads the descriptors of newer processes).
    fn members(&self, with_pipe: bool) -> BTreeSet<i32> {
        let mut set = BTreeSet::new();
        if let Some(cg) = &self.cgroup {
            set.extend(cg.procs().into_iter().filter(|&p| procs::is_live(p)));
        }
        if self.tracking != Tracking::GroupOnly {
            set.extend(procs::marked(&Marks {
                pgid: self.pgid,
                tag: &self.tag,
                pipe: if with_pipe {
                    self.pipe.as_deref()
                } else {
                    None
                },
                since: self.since,
                host: std::process::id() as i32,
            }));
        }
        if let Some(w) = self.watchdog {
            set.remove(&w);
        }
        set
    }

    fn is_gone(&self, members: &BTreeSet<i32>) -> bool {
        match self.tracking {
            Tracking::GroupOnly => killpg(Pid::from_raw(self.pgid), None) == Err(Errno::ESRCH),
            _ => members.is_empty(),
        }
    }

    fn signal(&self, members: &BTreeSet<i32>, sig: Signal) {
        if sig == Signal::SIGKILL
            && let Some(cg) = &self.cgroup
        {
            cg.kill();
        }
        let _ = killpg(Pid::from_raw(self.pgid), sig);
        for &pid in members {
            let _ = kill(Pid::from_raw(pid), sig);
        }
    }

    /// Kills every process of the command; blocks up to
    /// [`TERM_GRACE`] + [`KILL_WAIT`].
    pub(crate) fn kill(mut self) -> KillReport {
        let mut left = self.members(true);
        let mut seen = left.clone();
        self.signal(&left, Signal::SIGTERM);
        let mut phase = (Signal::SIGTERM, Instant::now() + TERM_GRACE);
        loop {
            if self.is_gone(&left) {
                break;
            }
            if Instant::now() >= phase.1 {
                if phase.0 == Signal::SIGKILL {
                    break;
                }
                tracing::debug!(
                    pgid = self.pgid,
                    "execute_cmd: survivors of SIGTERM; SIGKILL"
                );
                phase = (Signal::SIGKILL, Instant::now() + KILL_WAIT);
            }
            if phase.0 == Signal::SIGKILL {
                // Every round: whatever forked since the last one dies too.
                self.signal(&left, Signal::SIGKILL);
            }
            std::thread::sleep(KILL_POLL);
            left = self.members(true);
            seen.extend(&left);
        }
        let survivors = describe(&left);
        self.finish(!survivors.is_empty());
        KillReport {
            tracking: self.tracking,
            killed: seen.len() - left.len(),
            survivors,
        }
    }

    /// After a normal exit: the processes left running in the background
    /// (they detached from the output); they are not touched.
    pub(crate) fn left_running(mut self) -> Vec<Survivor> {
        let left = describe(&self.members(false));
        self.finish(!left.is_empty());
        left
    }

    /// Disarms the watchdog and removes (or parks) the cgroup.
    fn finish(&mut self, populated: bool) {
        if let Some(mut w) = self.disarm.take() {
            // Fails only when the watchdog is gone already.
            let _ = w.write_all(DISARM);
        }
        if let Some(cg) = self.cgroup.take() {
            if populated {
                tracing::debug!(dir = %cg.dir().display(), "execute_cmd: cgroup kept for its background processes");
            }
            cg.release();
        }
    }
}

fn describe(pids: &BTreeSet<i32>) -> Vec<Survivor> {
    pids.iter()
        .map(|&pid| Survivor {
            pid,
            command: procs::command_line(pid),
        })
        .collect()
}

/// Kills the command's tree when dropped, unless taken.
pub(crate) struct TreeGuard {
    tree: Option<Tree>,
}

impl TreeGuard {
    pub(crate) fn new(tree: Tree) -> Self {
        Self { tree: Some(tree) }
    }

    pub(crate) fn get_mut(&mut self) -> Option<&mut Tree> {
        self.tree.as_mut()
    }

    /// The tree, no longer guarded: the caller ends it.
    pub(crate) fn take(&mut self) -> Option<Tree> {
        self.tree.take()
    }
}

impl Drop for TreeGuard {
    fn drop(&mut self) {
        let Some(tree) = self.tree.take() else {
            return;
        };
        let pgid = tree.pgid;
        // The cheap part now, before this process may exit (a CLI stopped by
        // SIGTERM returns right after the drop); the scans and SIGKILL follow
        // on the thread, and the watchdog finishes them should we exit first.
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
        if let Some(cg) = &tree.cgroup {
            for pid in cg.procs() {
                let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
            }
        }
        let work = move || {
            let report = tree.kill();
            if !report.survivors.is_empty() {
                tracing::warn!(pgid, survivors = ?report.survivors, "execute_cmd: processes of a stopped command survived SIGKILL");
            }
        };
        // Never blocks the caller, which may be an async thread.
        let spawned = std::thread::Builder::new()
            .name("execute_cmd-kill".to_string())
            .spawn(work);
        if let Err(e) = spawned {
            tracing::warn!(
                pgid,
                "execute_cmd: no thread to kill a stopped command on ({e}); SIGKILL now"
            );
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        }
    }
}
