//! Turning a tool's `path` argument into something safe to use: the one
//! resolver ([`super::resolve`]) judges it (secrets deny, every symlink hop)
//! and hands back the handles it judged, so the tools read and write exactly
//! that; every resolution and I/O error becomes one line the model can act on.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use rustix::fs::FileType;
use skald_core_api::ToolError;

use super::policy::{SECRETS_DENIED, relativize_for_display, resolve};
use super::resolve::{Intent, MAX_PATH_BYTES, Node, OpenError, ResolveError, Resolved};

/// A checked tool path: what the policy judged (its canonical path and the
/// handles to it) and how to name it to the model.
pub(crate) struct Target {
    pub canonical: PathBuf,
    pub display: String,
    pub resolved: Resolved,
}

/// What the edit tools need to know of an existing file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileInfo {
    pub len: u64,
    pub mode: u32,
}

/// Resolves a `path` argument that must exist (read tools).
pub(crate) fn target(path: &str) -> Result<Target, ToolError> {
    target_with(path, Intent::Read, "read")
}

/// Resolves a `path` argument a write will create or replace: missing parent
/// directories are created, but only once a side-effect-free walk found
/// nothing to refuse, so a refused write leaves no trace.
pub(crate) fn target_for_write(path: &str) -> Result<Target, ToolError> {
    target_with(path, Intent::Lookup, "write")?;
    let t = target_with(path, Intent::Write, "write")?;
    if t.resolved.parent_and_name().is_none() {
        return Err(ToolError::Failed(format!(
            "{} is a directory; pass a file path to write",
            t.display
        )));
    }
    Ok(t)
}

fn target_with(path: &str, intent: Intent, action: &str) -> Result<Target, ToolError> {
    if path.trim().is_empty() {
        return Err(ToolError::Failed(
            "path is empty: pass a file or directory path".to_string(),
        ));
    }
    let display = display_path(path);
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let resolved = super::resolve::resolve(Path::new(path), &base, intent)
        .map_err(|e| resolve_failed(&e, action, &display))?;
    Ok(Target {
        canonical: resolved.canonical().to_path_buf(),
        display,
        resolved,
    })
}

/// `path` as shown to the model: relative to the current directory when
/// inside it, otherwise as given (absolute). Long or odd input is cut and
/// escaped, never echoed raw.
pub(crate) fn display_path(path: &str) -> String {
    if path.len() > MAX_PATH_BYTES || path.chars().any(char::is_control) {
        let shown: String = path.chars().take(80).flat_map(char::escape_debug).collect();
        let more = if path.chars().count() > 80 { "…" } else { "" };
        return format!("\"{shown}{more}\"");
    }
    let p = resolve(path);
    match std::env::current_dir() {
        Ok(cwd) => relativize_for_display(&p, &cwd),
        Err(_) => path.to_string(),
    }
}

/// The size and mode of a path that must be an existing regular file.
pub(crate) fn require_file(t: &Target) -> Result<FileInfo, ToolError> {
    match t.resolved.node() {
        Node::Missing => Err(not_found(&t.display)),
        Node::Existing { kind, handle } => match kind {
            FileType::RegularFile => {
                let st = rustix::fs::fstat(handle)
                    .map_err(|e| io_failed(&e.into(), "read", &t.display))?;
                Ok(FileInfo {
                    len: u64::try_from(st.st_size).unwrap_or(0),
                    mode: st.st_mode,
                })
            }
            FileType::Directory => Err(ToolError::Failed(format!(
                "{} is a directory, not a file; use list_files to see what it contains",
                t.display
            ))),
            _ => Err(not_regular(&t.display)),
        },
    }
}

/// Checks the path is an existing directory.
pub(crate) fn require_dir(t: &Target) -> Result<(), ToolError> {
    match t.resolved.kind() {
        Some(FileType::Directory) => Ok(()),
        None => Err(not_found(&t.display)),
        Some(_) => Err(ToolError::Failed(format!(
            "{} is a file, not a directory; use read_file or search_file on it",
            t.display
        ))),
    }
}

/// Opens the judged file (or directory) for reading.
pub(crate) fn open_target(t: &Target) -> Result<File, ToolError> {
    t.resolved
        .open_read()
        .map_err(|e| open_failed(&e, "read", &t.display))
}

/// Resolves, checks and opens `path` (absolute, or relative to the current
/// directory) for reading: the policy of the read tools for code outside
/// them (the viewer, write previews). Returns the canonical path, the open
/// regular file and its size.
pub fn open_for_read(path: &Path) -> Result<(PathBuf, File, u64), ToolError> {
    let t = target(&path.to_string_lossy())?;
    let info = require_file(&t)?;
    let file = open_target(&t)?;
    Ok((t.canonical, file, info.len))
}

/// One line for a path the resolver refused.
pub(crate) fn resolve_failed(e: &ResolveError, action: &str, display: &str) -> ToolError {
    let at = |p: &Path| {
        std::env::current_dir()
            .map(|cwd| relativize_for_display(p, &cwd))
            .unwrap_or_else(|_| p.display().to_string())
    };
    let msg = match e {
        ResolveError::Secret(_) => return ToolError::Failed(SECRETS_DENIED.to_string()),
        ResolveError::NotFound(_) => return not_found(display),
        ResolveError::NotADirectory(p) => format!(
            "cannot {action} {display}: {} is not a directory (a file cannot hold other paths)",
            at(p)
        ),
        ResolveError::TooManyLinks(_) => format!(
            "cannot {action} {display}: too many levels of symbolic links (a loop, or a chain of more than {})",
            super::resolve::MAX_SYMLINK_HOPS
        ),
        ResolveError::PathTooLong => {
            format!("cannot {action} the path: it is longer than {MAX_PATH_BYTES} bytes")
        }
        ResolveError::NameTooLong(_) => format!(
            "cannot {action} {display}: a component of the path is longer than the filesystem allows (255 bytes)"
        ),
        ResolveError::PermissionDenied(p) => {
            format!(
                "permission denied: cannot {action} {display} ({} is not accessible)",
                at(p)
            )
        }
        ResolveError::Nul => format!("cannot {action} the path: it contains a NUL byte"),
        ResolveError::Os(_, why) => format!("cannot {action} {display}: {}", one_line(why)),
    };
    ToolError::Failed(msg)
}

/// One line for a judged path that could not be opened.
pub(crate) fn open_failed(e: &OpenError, action: &str, display: &str) -> ToolError {
    match e {
        OpenError::Missing => not_found(display),
        OpenError::NotRegular(_) => not_regular(display),
        OpenError::Changed => ToolError::Failed(format!(
            "cannot {action} {display}: it was replaced while being opened; try again"
        )),
        OpenError::Os(errno) => io_failed(&io::Error::from(*errno), action, display),
    }
}

fn not_found(display: &str) -> ToolError {
    ToolError::Failed(format!(
        "{display} does not exist; use list_files to see which files are there"
    ))
}

fn not_regular(display: &str) -> ToolError {
    ToolError::Failed(format!(
        "{display} is not a regular file (a device, socket or pipe); tools only read regular files"
    ))
}

/// One line for an I/O error while trying to `action` (`read`, `write`, …)
/// the path shown as `display`.
pub(crate) fn io_failed(e: &io::Error, action: &str, display: &str) -> ToolError {
    let msg = match e.kind() {
        io::ErrorKind::NotFound => {
            format!("{display} does not exist; use list_files to see which files are there")
        }
        io::ErrorKind::PermissionDenied => {
            format!("permission denied: cannot {action} {display}")
        }
        io::ErrorKind::IsADirectory => {
            format!("{display} is a directory, not a file; use list_files to see what it contains")
        }
        io::ErrorKind::NotADirectory => {
            format!("cannot {action} {display}: a parent of this path is a file, not a directory")
        }
        io::ErrorKind::StorageFull => format!("cannot {action} {display}: the disk is full"),
        io::ErrorKind::ReadOnlyFilesystem => {
            format!("cannot {action} {display}: the filesystem is read-only")
        }
        _ => match e.raw_os_error() {
            // ELOOP: a symlink loop.
            Some(40) => format!(
                "cannot {action} {display}: symlink loop (too many levels of symbolic links)"
            ),
            _ => format!("cannot {action} {display}: {}", one_line(&e.to_string())),
        },
    };
    ToolError::Failed(msg)
}

/// Collapses a multi-line message into one line.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
