//! Turning a tool's `path` argument into something safe to open: the policy
//! check (secrets deny) first, then the existence/kind checks, and every I/O
//! error mapped to one line the model can act on.
//!
//! Never opens a file itself beyond `metadata`.

use std::fs::Metadata;
use std::io;
use std::path::PathBuf;

use skald_core_api::ToolError;

use super::policy::{check_read_allowed, relativize_for_display, resolve};

/// A checked tool path: the canonical path to open and how to name it to the
/// model (relative to the current directory when inside it).
pub(crate) struct Target {
    pub canonical: PathBuf,
    pub display: String,
}

/// Resolves and policy-checks a `path` argument (secrets/ refused, reveals
/// nothing). Every fs tool, read or write, goes through here.
pub(crate) fn target(path: &str) -> Result<Target, ToolError> {
    if path.trim().is_empty() {
        return Err(ToolError::Failed(
            "path is empty: pass a file or directory path".to_string(),
        ));
    }
    let canonical = check_read_allowed(&resolve(path))?;
    Ok(Target {
        canonical,
        display: display_path(path),
    })
}

/// `path` as shown to the model: relative to the current directory when
/// inside it, otherwise as given (absolute).
pub(crate) fn display_path(path: &str) -> String {
    let p = resolve(path);
    match std::env::current_dir() {
        Ok(cwd) => relativize_for_display(&p, &cwd),
        Err(_) => path.to_string(),
    }
}

/// Metadata of a path that must be an existing regular file.
pub(crate) fn require_file(t: &Target) -> Result<Metadata, ToolError> {
    let meta = std::fs::metadata(&t.canonical).map_err(|e| io_failed(&e, "read", &t.display))?;
    if meta.is_dir() {
        return Err(ToolError::Failed(format!(
            "{} is a directory, not a file; use list_files to see what it contains",
            t.display
        )));
    }
    if !meta.is_file() {
        return Err(ToolError::Failed(format!(
            "{} is not a regular file (a device, socket or pipe); tools only read regular files",
            t.display
        )));
    }
    Ok(meta)
}

/// Metadata of a path that must be an existing directory.
pub(crate) fn require_dir(t: &Target) -> Result<Metadata, ToolError> {
    let meta = std::fs::metadata(&t.canonical).map_err(|e| io_failed(&e, "list", &t.display))?;
    if !meta.is_dir() {
        return Err(ToolError::Failed(format!(
            "{} is a file, not a directory; use read_file or search_file on it",
            t.display
        )));
    }
    Ok(meta)
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
