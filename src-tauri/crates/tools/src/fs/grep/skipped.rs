//! What a search could not look at, and why: "No matches" must never hide
//! a file that was not searched. Binary files and symlinks are left out by
//! design (documented), so they are not listed here.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::FileType;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::io::Errno;

use super::super::access::one_line;
use super::super::resolve::OpenError;

/// Directories deeper than this (below the searched root) are not entered.
pub const MAX_DEPTH: usize = 100;
/// Longest line searched, in bytes, for the smallest patterns (larger ones
/// get less, see `pattern::budget`): the engine holds a whole line in
/// memory and cannot be stopped inside one, so a line without end is
/// refused.
pub const MAX_LINE_BYTES: usize = 8 << 20;
/// How many unsearchable paths are named in the outcome.
pub const MAX_EXAMPLES: usize = 5;

/// Why a path was not (completely) searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// A directory at [`MAX_DEPTH`]: not entered.
    TooDeep,
    /// A FIFO, socket or device: never opened.
    NotRegular(&'static str),
    /// The directory's `.gitignore` (or `.ignore`, `.git`) is a FIFO or
    /// device the walker would block on: not entered.
    IgnoreFileNotRegular(&'static str, &'static str),
    PermissionDenied,
    /// Over `PATH_MAX` or a name over 255 bytes.
    NameTooLong,
    /// A line longer than the limit (at most [`MAX_LINE_BYTES`]): searched
    /// up to that line.
    LineTooLong(usize),
    /// Replaced while the search ran (a directory on the way became a
    /// symlink, the file became something else).
    Changed,
    /// Removed while the search ran.
    Vanished,
    Other(String),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooDeep => write!(f, "too deep: more than {MAX_DEPTH} levels, not entered"),
            Self::NotRegular(kind) => write!(f, "not a regular file: {kind}"),
            Self::IgnoreFileNotRegular(name, kind) => {
                write!(f, "not entered: its {name} is {kind}, not a regular file")
            }
            Self::PermissionDenied => f.write_str("permission denied"),
            Self::NameTooLong => f.write_str("path too long"),
            Self::LineTooLong(limit) if *limit < MAX_LINE_BYTES => write!(
                f,
                "a line longer than {} for a pattern this large; searched up to it",
                human(*limit)
            ),
            Self::LineTooLong(limit) => {
                write!(f, "a line longer than {}; searched up to it", human(*limit))
            }
            Self::Changed => f.write_str("changed while being searched"),
            Self::Vanished => f.write_str("removed while being searched"),
            Self::Other(why) => f.write_str(why),
        }
    }
}

/// One path that was not searched, relative to the searched root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsearchable {
    pub path: PathBuf,
    pub reason: SkipReason,
}

/// Collects unsearchable paths from the walker threads: all are counted,
/// the [`MAX_EXAMPLES`] first by path are kept (so the report does not
/// depend on thread timing).
#[derive(Debug, Default)]
pub(super) struct Skipped {
    count: AtomicU64,
    examples: Mutex<BTreeMap<PathBuf, SkipReason>>,
}

impl Skipped {
    pub(super) fn add(&self, path: PathBuf, reason: SkipReason) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut examples = match self.examples.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        examples.insert(path, reason);
        if examples.len() > MAX_EXAMPLES {
            examples.pop_last();
        }
    }

    pub(super) fn finish(&self) -> (u64, Vec<Unsearchable>) {
        let examples = match self.examples.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let examples = examples
            .iter()
            .map(|(path, reason)| Unsearchable {
                path: path.clone(),
                reason: reason.clone(),
            })
            .collect();
        (self.count.load(Ordering::Relaxed), examples)
    }
}

/// A kind of file that is not regular, as a phrase.
pub(super) fn kind_name(t: FileType) -> &'static str {
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symlink"
    } else {
        "not a regular file"
    }
}

pub(super) fn raw_kind_name(t: rustix::fs::FileType) -> &'static str {
    use rustix::fs::FileType as K;
    match t {
        K::Fifo => "a FIFO",
        K::Socket => "a socket",
        K::CharacterDevice => "a character device",
        K::BlockDevice => "a block device",
        K::Directory => "a directory",
        K::Symlink => "a symlink",
        K::RegularFile | K::Unknown => "of unknown kind",
    }
}

/// Why a file found by the walk could not be opened beneath the root.
pub(super) fn open_reason(e: &OpenError) -> SkipReason {
    match e {
        OpenError::NotRegular(kind) => SkipReason::NotRegular(raw_kind_name(*kind)),
        OpenError::Missing | OpenError::Os(Errno::NOENT) => SkipReason::Vanished,
        // A symlink or a non-directory where the walk saw a directory.
        OpenError::Changed | OpenError::Os(Errno::LOOP | Errno::XDEV | Errno::NOTDIR) => {
            SkipReason::Changed
        }
        OpenError::Os(e) => io_reason(&io::Error::from(*e), MAX_LINE_BYTES),
    }
}

/// `8 MB`, `16 KB`.
fn human(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MB", bytes >> 20)
    } else {
        format!("{} KB", bytes >> 10)
    }
}

/// Why reading a file failed; `line_limit` is the longest line the search
/// allowed.
pub(super) fn io_reason(e: &io::Error, line_limit: usize) -> SkipReason {
    match e.kind() {
        io::ErrorKind::PermissionDenied => SkipReason::PermissionDenied,
        io::ErrorKind::NotFound => SkipReason::Vanished,
        _ if e.raw_os_error() == Some(Errno::NAMETOOLONG.raw_os_error()) => SkipReason::NameTooLong,
        // grep-searcher's words when a line outgrows the heap limit.
        _ if e.to_string().contains("configured allocation limit") => {
            SkipReason::LineTooLong(line_limit)
        }
        _ => SkipReason::Other(one_line(&e.to_string())),
    }
}

/// The path and reason of a walk error; `None` for errors that hide
/// nothing (a bad glob in a `.gitignore` only means a rule does not apply).
pub(super) fn walk_error(e: &ignore::Error) -> Option<(Option<PathBuf>, SkipReason)> {
    match e {
        ignore::Error::WithPath { path, err } => {
            let (_, why) = walk_error(err)?;
            if is_ignore_file(path) {
                return None;
            }
            Some((Some(path.clone()), why))
        }
        ignore::Error::WithDepth { err, .. } => walk_error(err),
        ignore::Error::Partial(errs) => errs.iter().find_map(walk_error),
        ignore::Error::Io(io) => Some((None, io_reason(io, MAX_LINE_BYTES))),
        ignore::Error::Loop { child, .. } => Some((
            Some(child.clone()),
            SkipReason::Other("symlink loop".to_string()),
        )),
        ignore::Error::WithLineNumber { .. }
        | ignore::Error::Glob { .. }
        | ignore::Error::UnrecognizedFileType(_)
        | ignore::Error::InvalidDefinition => None,
    }
}

fn is_ignore_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == ".gitignore" || n == ".ignore" || n == "exclude")
}

/// `path` for a report: escaped, and cut in the middle when very long (a
/// path 100 levels deep).
pub(crate) fn shown_path(path: &Path) -> String {
    const HEAD: usize = 40;
    const TAIL: usize = 80;
    let full = super::super::escape_os_name(path.as_os_str());
    let n = full.chars().count();
    if n <= HEAD + TAIL + 1 {
        return if full.is_empty() {
            ".".to_string()
        } else {
            full
        };
    }
    let head: String = full.chars().take(HEAD).collect();
    let tail: String = full.chars().skip(n - TAIL).collect();
    format!("{head}…{tail}")
}
