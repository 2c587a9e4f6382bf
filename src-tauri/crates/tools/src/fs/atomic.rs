//! Writing a file the way the policy judged it, and never losing an edit.
//!
//! A write takes an exclusive `flock` on the directory that holds the file
//! (the handle the resolver judged, so it is the right directory even if its
//! path was swapped meanwhile). Every Skald writer, in this process or any
//! other, takes the same lock, so an edit's read-modify-write cannot
//! interleave with another's: twenty parallel edits of one file all land.
//! Under the lock the file is looked at again by name (a symlink or FIFO
//! slipped in is refused), then replaced atomically: a temp file created in
//! that same directory handle, written, fsynced, given the old permissions
//! and renamed over the name. A crash or an error at any step leaves the
//! original byte-identical.
//!
//! Hard links to the original are not preserved (the inode changes).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{self as rfs, AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;
use skald_core_api::ToolError;

use super::access::{FileInfo, Target, io_failed, open_failed};
use super::resolve::OpenError;

/// How long a write waits for another writer in the same directory.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Whether the write created the file or replaced an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteKind {
    Created,
    Overwrote,
}

/// An exclusive hold on the directory of a file being written. Released
/// when dropped (the kernel drops it with the handle, even on SIGKILL).
pub(crate) struct WriteLock<'a> {
    dir: OwnedFd,
    name: &'a OsStr,
    display: &'a str,
}

/// The file as found under the lock.
pub(crate) struct Current {
    pub file: File,
    pub info: FileInfo,
}

impl<'a> WriteLock<'a> {
    /// Locks the directory holding `t`, waiting up to [`LOCK_WAIT`].
    pub fn take(t: &'a Target) -> Result<Self, ToolError> {
        let display = t.display.as_str();
        let Some((parent, name)) = t.resolved.parent_and_name() else {
            return Err(ToolError::Failed(format!(
                "{display} is a directory; pass a file path to write"
            )));
        };
        let dir = rfs::openat(
            parent,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_failed(&e.into(), "write", display))?;
        let deadline = Instant::now() + LOCK_WAIT;
        loop {
            match rfs::flock(&dir, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => break,
                Err(Errno::WOULDBLOCK | Errno::INTR) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(Errno::WOULDBLOCK) => {
                    return Err(ToolError::Failed(format!(
                        "cannot write {display}: another write in its directory has not finished \
                         after {} s; try again",
                        LOCK_WAIT.as_secs()
                    )));
                }
                Err(e) => return Err(io_failed(&e.into(), "write", display)),
            }
        }
        Ok(Self { dir, name, display })
    }

    /// The file now at the name, opened for reading; `None` if there is none.
    /// Anything but a writable regular file is refused.
    pub fn current(&self) -> Result<Option<Current>, ToolError> {
        let display = self.display;
        let handle = match rfs::openat(
            &self.dir,
            self.name,
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(h) => h,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(io_failed(&e.into(), "write", display)),
        };
        let st = rfs::fstat(&handle).map_err(|e| io_failed(&e.into(), "write", display))?;
        match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => {}
            FileType::Directory => {
                return Err(ToolError::Failed(format!(
                    "{display} is a directory; pass a file path to write"
                )));
            }
            FileType::Symlink => {
                return Err(ToolError::Failed(format!(
                    "cannot write {display}: it was replaced by a symlink while being written; try again"
                )));
            }
            _ => {
                return Err(ToolError::Failed(format!(
                    "{display} is not a regular file (a device, socket or pipe); refusing to replace it"
                )));
            }
        }
        // Read-only means read-only, for root too: nobody may write it.
        if st.st_mode & 0o222 == 0 {
            return Err(ToolError::Failed(format!(
                "{display} is read-only (mode {:o}); tools do not replace read-only files — \
                 change its permissions first if that is intended",
                st.st_mode & 0o7777
            )));
        }
        // Read and write access, as a plain write would need (a file of
        // another user is refused even though renaming over it would work).
        let fd = rfs::openat(
            &self.dir,
            self.name,
            OFlags::RDWR | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_failed(&e.into(), "write", display))?;
        let got = rfs::fstat(&fd).map_err(|e| io_failed(&e.into(), "read", display))?;
        if (got.st_dev, got.st_ino) != (st.st_dev, st.st_ino) {
            return Err(open_failed(&OpenError::Changed, "write", display));
        }
        rfs::fcntl_setfl(&fd, OFlags::empty())
            .map_err(|e| io_failed(&e.into(), "read", display))?;
        Ok(Some(Current {
            file: File::from(fd),
            info: FileInfo {
                len: u64::try_from(got.st_size).unwrap_or(0),
                mode: got.st_mode,
            },
        }))
    }

    /// Replaces the file with `bytes` (keeping `old`'s permissions).
    pub fn replace(&self, bytes: &[u8], old: Option<&FileInfo>) -> Result<WriteKind, ToolError> {
        let display = self.display;
        let tmp = temp_name();
        let fd = rfs::openat(
            &self.dir,
            &tmp,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .map_err(|e| io_failed(&e.into(), "write", display))?;
        let guard = TempGuard {
            dir: &self.dir,
            name: &tmp,
            armed: true,
        };
        let mut file = File::from(fd);
        file.write_all(bytes)
            .map_err(|e| io_failed(&e, "write", display))?;
        if let Some(old) = old {
            rfs::fchmod(&file, Mode::from_raw_mode(old.mode & 0o7777))
                .map_err(|e| io_failed(&e.into(), "write", display))?;
        }
        file.sync_all()
            .map_err(|e| io_failed(&e, "write", display))?;
        rfs::renameat(&self.dir, &tmp, &self.dir, self.name)
            .map_err(|e| io_failed(&e.into(), "write", display))?;
        guard.disarm();
        Ok(if old.is_some() {
            WriteKind::Overwrote
        } else {
            WriteKind::Created
        })
    }
}

/// Removes the temp file unless it was renamed into place.
struct TempGuard<'a> {
    dir: &'a OwnedFd,
    name: &'a OsStr,
    armed: bool,
}

impl TempGuard<'_> {
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for TempGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = rfs::unlinkat(self.dir, self.name, AtFlags::empty());
        }
    }
}

/// A temp name no other writer (thread or process) will pick.
fn temp_name() -> OsString {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    OsString::from(format!(".skald-{}-{n}-{nanos:x}.tmp", std::process::id()))
}

/// A read-modify-write of an existing text file under the write lock: `f`
/// gets the current text and returns the new text (or refuses); nothing
/// another writer does can slip in between the read and the write.
pub(crate) fn edit_locked<R>(
    t: &Target,
    tool: &str,
    f: impl FnOnce(&str) -> Result<(String, R), ToolError>,
) -> Result<R, ToolError> {
    let lock = WriteLock::take(t)?;
    let Some(mut current) = lock.current()? else {
        return Err(ToolError::Failed(format!(
            "{} does not exist; use list_files to see which files are there",
            t.display
        )));
    };
    let text = super::text::read_for_edit(&mut current.file, &t.display, tool, current.info.len)?;
    let (updated, out) = f(&text)?;
    lock.replace(updated.as_bytes(), Some(&current.info))?;
    Ok(out)
}

/// Creates or replaces the file at `t` with `bytes` under the write lock.
pub(crate) fn write_locked(t: &Target, bytes: &[u8]) -> Result<WriteKind, ToolError> {
    let lock = WriteLock::take(t)?;
    let current = lock.current()?;
    lock.replace(bytes, current.as_ref().map(|c| &c.info))
}
