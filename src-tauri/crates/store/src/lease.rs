//! Cross-process claims on a session. The desktop app and `skald` commands
//! may open the same database; a turn in one must not look like a crash to
//! the other (which would report its running calls as interrupted, or run a
//! second turn beside it). A lease is an exclusive advisory lock (`flock`) on
//! `<db>.locks/<session id>`: the kernel drops it when the holder exits in any
//! way, SIGKILL included, so a crashed process never leaves a stale claim.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::{Result, StoreError};

/// Held while a turn (or a resume) runs in one session; dropping it releases
/// the session for other processes.
#[derive(Debug)]
pub struct SessionLease {
    _file: File,
}

/// The directory of lock files beside the database file.
pub(crate) fn locks_dir(db_path: &Path) -> PathBuf {
    let mut name = db_path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".locks");
    db_path.with_file_name(name)
}

/// A file name for `session_id`: ids are UUIDs, anything else is escaped so
/// no id can name a path outside the locks directory.
fn lock_file_name(session_id: &str) -> String {
    session_id
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' => c.to_string(),
            // Fixed width, so no two ids can spell the same name.
            other => format!("%{:06x}", other as u32),
        })
        .collect()
}

/// The scheduler's lock file. `.` is escaped in session lock names, so no
/// session can own it.
pub(crate) const SCHEDULER_LOCK: &str = ".scheduler";

/// `Ok(None)` when another process (or another handle in this one) holds it.
pub(crate) fn try_lease(db_path: &Path, session_id: &str) -> Result<Option<SessionLease>> {
    try_lease_file(db_path, &lock_file_name(session_id))
}

/// A lease on the lock file `name` in the locks directory.
pub(crate) fn try_lease_file(db_path: &Path, name: &str) -> Result<Option<SessionLease>> {
    let dir = locks_dir(db_path);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| StoreError::Io { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let path = dir.join(name);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io(&path))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(SessionLease { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(io(&path)(e)),
    }
}

/// Held while this process migrates or seeds the database: every start of
/// every process takes it, so twenty first starts at once run the
/// migrations and the seeding one after another, never side by side.
#[derive(Debug)]
pub struct StartupLock {
    _file: File,
}

/// Waits for the startup lock (off the async workers).
pub(crate) async fn startup_lock(db_path: &Path) -> Result<StartupLock> {
    let dir = locks_dir(db_path);
    // `.` is escaped in session lock names, so no session can own this one.
    let path = dir.join(".startup");
    let shown = path.clone();
    let io = |source: std::io::Error| {
        use std::io::ErrorKind as K;
        // A data dir that cannot be written is a read-only database.
        if matches!(source.kind(), K::PermissionDenied | K::ReadOnlyFilesystem) {
            StoreError::ReadOnly {
                detail: format!("{} cannot be written ({source})", shown.display()),
            }
        } else {
            StoreError::Io {
                path: shown.clone(),
                source,
            }
        }
    };
    let file = tokio::task::spawn_blocking(move || -> std::io::Result<File> {
        std::fs::create_dir_all(&dir)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        file.lock()?;
        Ok(file)
    })
    .await
    .map_err(|e| io(std::io::Error::other(e)))?
    .map_err(io)?;
    Ok(StartupLock { _file: file })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn one_holder_at_a_time_and_free_again_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("skald.db");
        let first = try_lease(&db, "s-1").unwrap().unwrap();
        assert!(
            try_lease(&db, "s-1").unwrap().is_none(),
            "a second handle is refused"
        );
        assert!(
            try_lease(&db, "s-2").unwrap().is_some(),
            "other sessions are free"
        );
        drop(first);
        assert!(try_lease(&db, "s-1").unwrap().is_some());
        assert!(dir.path().join("skald.db.locks").is_dir());
    }

    #[test]
    fn odd_ids_stay_inside_the_locks_dir() {
        assert_eq!(lock_file_name("../x/y"), "%00002e%00002e%00002fx%00002fy");
        assert_ne!(lock_file_name(".5"), lock_file_name("\u{2e5}"));
        assert_eq!(lock_file_name("1b4e28ba-2fa1-11d2"), "1b4e28ba-2fa1-11d2");
    }
}
