//! Atomic file replacement: write a temp file in the same directory, fsync,
//! carry the original's permissions over, rename onto the target. A crash or
//! an error at any step leaves the original byte-identical (the temp file is
//! removed when dropped).
//!
//! The caller passes the canonical path, so a symlink is preserved and its
//! target updated. Hard links to the original are not (the inode changes).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use skald_core_api::ToolError;

use super::access::io_failed;

/// Whether the write created the file or replaced an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteKind {
    Created,
    Overwrote,
}

/// Replaces (or creates) `path` with `bytes` atomically. Parent directories
/// must already exist (see [`create_parents`]). An existing file must be
/// writable by us: a read-only file is refused, not silently replaced.
pub(crate) fn write_atomic(
    path: &Path,
    display: &str,
    bytes: &[u8],
) -> Result<WriteKind, ToolError> {
    let parent = path.parent().ok_or_else(|| {
        ToolError::Failed(format!(
            "cannot write {display}: it has no parent directory"
        ))
    })?;
    let existing = match std::fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_failed(&e, "write", display)),
    };
    if let Some(meta) = &existing {
        if meta.is_dir() {
            return Err(ToolError::Failed(format!(
                "{display} is a directory; pass a file path to write"
            )));
        }
        if !meta.is_file() {
            return Err(ToolError::Failed(format!(
                "{display} is not a regular file (a device, socket or pipe); refusing to replace it"
            )));
        }
        // Respect a read-only file the way a plain write would.
        OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| io_failed(&e, "write", display))?;
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(".skald-").suffix(".tmp");
    #[cfg(unix)]
    {
        // New files get the usual 0666 & !umask, not tempfile's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(parent)
        .map_err(|e| io_failed(&e, "write", display))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| io_failed(&e, "write", display))?;
    if let Some(meta) = &existing {
        std::fs::set_permissions(tmp.path(), meta.permissions())
            .map_err(|e| io_failed(&e, "write", display))?;
    }
    tmp.persist(path)
        .map_err(|e| io_failed(&e.error, "write", display))?;
    Ok(if existing.is_some() {
        WriteKind::Overwrote
    } else {
        WriteKind::Created
    })
}

/// Creates the missing parent directories of `path`.
pub(crate) fn create_parents(path: &Path, display: &str) -> Result<(), ToolError> {
    match path.parent() {
        Some(parent) => std::fs::create_dir_all(parent)
            .map_err(|e| io_failed(&e, "create the parent directories of", display)),
        None => Ok(()),
    }
}
