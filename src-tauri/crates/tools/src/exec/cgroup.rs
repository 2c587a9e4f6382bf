//! One cgroup v2 per command (Linux, where the hierarchy is writable): a
//! process cannot leave its cgroup without write access to another one, so
//! `setsid`, double forks and daemons stay where the kill reaches them.
//!
//! Layout: `<this process's cgroup>/skald-<pid>/cmd-<n>`. The host creates
//! `cmd-<n>`; the shell wrapper moves itself in (`echo $$ > cgroup.procs`)
//! before it `exec`s the command, so no process of the command ever runs
//! outside it (and no `pre_exec` is needed). Killing writes `cgroup.kill`
//! (kernel ≥ 5.14), else signals every pid in `cgroup.procs`. A cgroup is
//! removed once empty; one left populated by background jobs of a finished
//! command is parked and removed by a later command once they exit.
//!
//! Discovery happens once; when anything is missing or not writable (no
//! cgroup2 mount, a normal user without delegation, a read-only mount) every
//! command falls back to process group + environment tag (see `tree`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// `SKALD_EXEC_CGROUP=off` (or `0`) turns cgroups off: every command is then
/// contained by process group and environment tag only.
pub const CGROUP_ENV: &str = "SKALD_EXEC_CGROUP";

/// A command's own cgroup directory.
#[derive(Debug)]
pub(crate) struct CommandCgroup {
    dir: PathBuf,
}

static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
static NEXT: AtomicU64 = AtomicU64::new(1);
/// Cgroups of finished commands still holding background jobs.
static PARKED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the environment asks for no cgroups.
pub(crate) fn disabled_by_env() -> bool {
    std::env::var(CGROUP_ENV).is_ok_and(|v| matches!(v.trim(), "0" | "off" | "no" | "false"))
}

impl CommandCgroup {
    /// A fresh, empty cgroup for one command, or `None` where cgroups are
    /// unusable.
    pub(crate) fn create() -> Option<Self> {
        let base = BASE.get_or_init(discover).as_deref()?;
        remove_parked();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("cmd-{n}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => Some(Self { dir }),
            Err(e) => {
                tracing::debug!(dir = %dir.display(), "execute_cmd: no cgroup for this command: {e}");
                None
            }
        }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Live-or-dying pids in this cgroup and any cgroup the command made below it.
    pub(crate) fn procs(&self) -> Vec<i32> {
        let mut pids = Vec::new();
        collect_procs(&self.dir, 0, &mut pids);
        pids
    }

    /// SIGKILL to every process inside, atomically where `cgroup.kill`
    /// exists, else one by one (a fork in between is caught by the next
    /// round of the caller's loop).
    pub(crate) fn kill(&self) {
        if std::fs::write(self.dir.join("cgroup.kill"), "1").is_ok() {
            return;
        }
        for pid in self.procs() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }

    /// Removes the cgroup now if it is empty, else parks it for later.
    pub(crate) fn release(self) {
        if !remove_tree(&self.dir, 0)
            && let Ok(mut parked) = PARKED.lock()
        {
            parked.push(self.dir);
        }
    }

    /// Removes the cgroup that the shell did not enter (it is empty).
    pub(crate) fn discard(self) {
        let _ = remove_tree(&self.dir, 0);
    }
}

/// How deep below a command's cgroup we look; a command nesting deeper
/// gets its inner cgroups reported as not removable, nothing worse.
const MAX_DEPTH: usize = 8;

fn collect_procs(dir: &Path, depth: usize, out: &mut Vec<i32>) {
    if let Ok(text) = std::fs::read_to_string(dir.join("cgroup.procs")) {
        out.extend(text.lines().filter_map(|l| l.trim().parse::<i32>().ok()));
    }
    if depth < MAX_DEPTH {
        for sub in subdirs(dir) {
            collect_procs(&sub, depth + 1, out);
        }
    }
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// `rmdir` children first; true when `dir` is gone.
fn remove_tree(dir: &Path, depth: usize) -> bool {
    if depth < MAX_DEPTH {
        for sub in subdirs(dir) {
            remove_tree(&sub, depth + 1);
        }
    }
    match std::fs::remove_dir(dir) {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

fn remove_parked() {
    if let Ok(mut parked) = PARKED.lock() {
        parked.retain(|dir| !remove_tree(dir, 0));
    }
}

/// `<cgroup2 mount><own cgroup>/skald-<pid>`, created; `None` when there is
/// no usable cgroup v2 hierarchy.
fn discover() -> Option<PathBuf> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let (root, mount) = cgroup2_mount(&mountinfo)?;
    let own = own_cgroup(&std::fs::read_to_string("/proc/self/cgroup").ok()?)?;
    let rel = own.strip_prefix(root.as_str())?.trim_start_matches('/');
    let parent = Path::new(&mount).join(rel);
    sweep_stale(&parent);
    let base = parent.join(format!("skald-{}", std::process::id()));
    match std::fs::create_dir(&base) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            tracing::debug!(dir = %base.display(), "execute_cmd: cgroups unusable: {e}");
            return None;
        }
    }
    if !base.join("cgroup.procs").exists() {
        let _ = std::fs::remove_dir(&base);
        return None;
    }
    tracing::debug!(dir = %base.display(), "execute_cmd: one cgroup per command");
    Some(base)
}

/// Removes `skald-<pid>` cgroups of processes that are gone (a crash or a
/// normal exit leaves the empty parent behind); populated ones stay.
fn sweep_stale(parent: &Path) {
    for dir in subdirs(parent) {
        let Some(pid) = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("skald-"))
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
            == Err(nix::errno::Errno::ESRCH);
        if gone {
            remove_tree(&dir, 0);
        }
    }
}

/// `(root, mount point)` of the first cgroup2 mount in `/proc/self/mountinfo`.
fn cgroup2_mount(mountinfo: &str) -> Option<(String, String)> {
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        if right.split_whitespace().next()? != "cgroup2" {
            return None;
        }
        let mut f = left.split_whitespace();
        let root = f.nth(3)?;
        let mount = f.next()?;
        Some((unescape(root), unescape(mount)))
    })
}

/// The cgroup v2 path in `/proc/self/cgroup` (the `0::` line).
fn own_cgroup(text: &str) -> Option<String> {
    let path = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    // A cgroup removed under us cannot take children.
    (!path.ends_with(" (deleted)")).then(|| path.to_string())
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && let Some(oct) = s.get(i + 1..i + 4)
            && let Ok(v) = u8::from_str_radix(oct, 8)
        {
            out.push(v);
            i += 4;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_cgroup2_mount_in_hybrid_and_unified_layouts() {
        let hybrid = "35 25 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n\
                      41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
        assert_eq!(
            cgroup2_mount(hybrid),
            Some(("/".into(), "/sys/fs/cgroup/unified".into()))
        );
        let unified = "30 23 0:26 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
        assert_eq!(
            cgroup2_mount(unified),
            Some(("/".into(), "/sys/fs/cgroup".into()))
        );
        let spaced = r"30 23 0:26 /a\040b /mnt/c\040g rw - cgroup2 none rw";
        assert_eq!(
            cgroup2_mount(spaced),
            Some(("/a b".into(), "/mnt/c g".into()))
        );
        assert_eq!(cgroup2_mount("1 2 3:4 / /proc rw - proc proc rw\n"), None);
    }

    #[test]
    fn own_cgroup_is_the_v2_line() {
        let text = "4:memory:/x\n0::/user.slice/app.scope\n";
        assert_eq!(own_cgroup(text).as_deref(), Some("/user.slice/app.scope"));
        assert_eq!(own_cgroup("0::/gone (deleted)\n"), None);
        assert_eq!(own_cgroup("4:memory:/x\n"), None);
    }
}
