//! The `ignore` crate opens a directory's `.ignore`, `.gitignore` and git
//! exclude files itself, blocking and following symlinks, when the walk
//! enters the directory (and for every ancestor of the root). One that is a
//! FIFO would hang the search for good, one that is `/dev/zero` would fill
//! memory; so such a directory is not entered and is reported instead.
//!
//! This is a check before use: a file swapped for a FIFO after it is not
//! covered (the crate offers no way to open them non-blocking). The files
//! this module reads itself (a worktree's `.git` file and its `commondir`)
//! are opened non-blocking and only when regular.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

use super::skipped::kind_name;

/// An ignore file that must not be opened: its name in the directory (as
/// shown) and its kind (`a FIFO`).
pub(super) type OddFile = (&'static str, &'static str);

/// The first ignore-related file in `dir` the walker would open that is
/// neither a regular file nor a directory: a reason not to enter `dir`.
pub(super) fn unsafe_ignore_file(dir: &Path) -> Option<OddFile> {
    for name in [".ignore", ".gitignore"] {
        if let Some(kind) = odd_kind(&dir.join(name)) {
            return Some((name, kind));
        }
    }
    let git = dir.join(".git");
    let git_dir = match std::fs::metadata(&git) {
        Ok(m) if m.is_dir() => git,
        // A worktree: `.git` names the real git directory.
        Ok(m) if m.is_file() => {
            let real = PathBuf::from(first_line(&git)?.strip_prefix("gitdir: ")?);
            if let Some(kind) = odd_kind(&real.join("commondir")) {
                return Some((".git (its commondir)", kind));
            }
            let common = first_line(&real.join("commondir"))?;
            if common.starts_with('.') {
                real.join(common)
            } else {
                PathBuf::from(common)
            }
        }
        // A FIFO named .git is never opened by the walker.
        _ => return None,
    };
    odd_kind(&git_dir.join("info/exclude")).map(|kind| (".git/info/exclude", kind))
}

/// The kind of `path` when it exists and is neither a regular file nor a
/// directory (a directory fails to read at once, which is harmless).
fn odd_kind(path: &Path) -> Option<&'static str> {
    let t = std::fs::metadata(path).ok()?.file_type();
    (!t.is_file() && !t.is_dir()).then(|| kind_name(t))
}

/// The first line of a small regular file, opened without blocking.
fn first_line(path: &Path) -> Option<String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut line = String::new();
    BufReader::new(file.take(4096)).read_line(&mut line).ok()?;
    Some(line.trim_end_matches(['\r', '\n']).to_string())
}

/// `unsafe_ignore_file` for `root` and every directory above it, which the
/// walker reads before it starts.
pub(super) fn unsafe_ignore_file_above(root: &Path) -> Option<(PathBuf, OddFile)> {
    root.ancestors()
        .find_map(|dir| unsafe_ignore_file(dir).map(|odd| (dir.to_path_buf(), odd)))
}
