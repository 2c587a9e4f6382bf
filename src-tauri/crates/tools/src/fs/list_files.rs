//! `list_files`: a sorted, gitignore-aware listing of a directory tree.
//!
//! Walk semantics match `grep_files`: `.gitignore` honoured, hidden entries
//! shown, [`SKIP_DIRS`](super::SKIP_DIRS) neither shown nor entered, anything
//! named `secrets` (any case) omitted, symlinks listed but never followed (a
//! symlink that resolves into `secrets/` is omitted).

use std::path::Path;

use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits, TypedTool,
};

use super::access::{open_target, require_dir, target};
use super::label::{absolutize_path, path_label, str_arg};
use super::names::escape_name;
use super::policy::{canonicalize_for_policy, is_secret_path, is_secrets_name, is_skip_dir_name};
use crate::tool_names as tn;

/// Entries listed before the output is capped.
pub const MAX_LIST_ENTRIES: usize = 1000;
/// Deepest `depth` accepted.
const MAX_DEPTH: u64 = 20;

fn default_path() -> String {
    ".".to_string()
}

fn default_depth() -> u64 {
    3
}

/// Arguments of `list_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesInput {
    /// Directory to list. Default "." (the working directory).
    #[serde(default = "default_path")]
    pub path: String,
    /// How many levels deep to list, 1–20 (1 = direct children only). Default 3.
    #[serde(default = "default_depth")]
    pub depth: u64,
    /// List directories only. Default false.
    #[serde(default)]
    pub dirs_only: bool,
}

/// Lists a directory tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListFiles;

impl TypedTool for ListFiles {
    type Input = ListFilesInput;

    fn name(&self) -> &str {
        tn::LIST_FILES
    }

    fn description(&self) -> &str {
        "List files and directories under a path (default: the working directory), sorted, \
         relative to that path, directories ending in `/`. Use this instead of ls/find/tree via \
         the shell. Goes 3 levels deep by default (depth 1–20); dirs_only=true for structure only. \
         Respects .gitignore, shows hidden files, never lists .git, node_modules, target or \
         secrets. Output is capped at 1000 entries — list a subdirectory or lower depth for more."
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        path_label(
            self.name(),
            "",
            Some(str_arg(args, "path").unwrap_or(".")),
            "",
            length,
        )
    }

    fn effective_args(&self, args: Value, workdir: &Path) -> Value {
        absolutize_path(args, workdir, true)
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }

    fn validate(&self, input: &ListFilesInput) -> Result<(), ToolError> {
        validate(input).map(drop)
    }
    fn run(&self, input: ListFilesInput) -> ToolResult {
        list_files(&input)
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READS_DIR
    }
}

/// The argument checks that need no I/O.
fn validate(input: &ListFilesInput) -> Result<(), ToolError> {
    if input.depth == 0 || input.depth > MAX_DEPTH {
        return Err(ToolError::InvalidArguments {
            tool: tn::LIST_FILES.to_string(),
            reason: format!(
                "depth must be between 1 and {MAX_DEPTH} (got {})",
                input.depth
            ),
        });
    }
    Ok(())
}

fn list_files(input: &ListFilesInput) -> ToolResult {
    validate(input)?;
    let t = target(&input.path)?;
    require_dir(&t)?;
    // Walk the directory that was judged, by its handle: a path swapped for
    // a symlink since cannot redirect the listing.
    let dir = open_target(&t)?;
    let root = handle_path(&dir).unwrap_or_else(|| t.canonical.clone());

    let mut walk = WalkBuilder::new(&root);
    walk.hidden(false)
        .follow_links(false)
        .max_depth(Some(input.depth as usize))
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            if entry.depth() == 0 {
                return true;
            }
            let name = entry.file_name();
            if is_secrets_name(name) {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir && is_skip_dir_name(name) {
                return false;
            }
            // A symlink is listed, not followed; one resolving into
            // secrets/ is not listed at all.
            !(entry.path_is_symlink()
                && is_secret_path(&canonicalize_for_policy(entry.path(), Path::new("/"))))
        });

    let mut out = String::new();
    let mut listed = 0usize;
    let mut more = false;
    let mut unreadable = Unreadable::default();
    for result in walk.build() {
        let entry = match result {
            Ok(entry) => entry,
            Err(e) => {
                unreadable.add(&e, &root);
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if input.dirs_only && !is_dir {
            continue;
        }
        if listed == MAX_LIST_ENTRIES {
            more = true;
            break;
        }
        let rel = entry.path().strip_prefix(&root).unwrap_or(entry.path());
        out.push_str(&escape_name(&rel.to_string_lossy()));
        if is_dir {
            out.push('/');
        }
        out.push('\n');
        listed += 1;
    }
    if listed == 0 {
        if unreadable.count > 0 {
            return Err(ToolError::Failed(format!(
                "cannot list {}: {}",
                t.display,
                unreadable.summary()
            )));
        }
        return Ok(format!(
            "{} has no {}entries to list (gitignored files and .git, node_modules, target, secrets are not listed)",
            t.display,
            if input.dirs_only { "directory " } else { "" }
        ));
    }
    if more {
        out.push_str(&format!(
            "[listing capped at {MAX_LIST_ENTRIES} entries; list a subdirectory or use a smaller depth]\n"
        ));
    }
    if unreadable.count > 0 {
        out.push_str(&format!("[{}]\n", unreadable.summary()));
    }
    Ok(out)
}

/// A path naming an open directory handle (`/proc/self/fd/N`), so a walk by
/// path starts from exactly that directory. `None` without `/proc`.
fn handle_path(dir: &std::fs::File) -> Option<std::path::PathBuf> {
    use std::os::fd::AsRawFd;
    let p = std::path::PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
    p.is_dir().then_some(p)
}

/// What the walk could not read, with a few examples.
#[derive(Default)]
struct Unreadable {
    count: usize,
    examples: Vec<String>,
}

impl Unreadable {
    const EXAMPLES: usize = 3;

    fn add(&mut self, e: &ignore::Error, root: &Path) {
        self.count += 1;
        if self.examples.len() < Self::EXAMPLES {
            let (path, why) = error_parts(e);
            let shown = match path {
                Some(p) => {
                    let rel = p.strip_prefix(root).unwrap_or(&p);
                    let rel = if rel.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        rel
                    };
                    format!("{} ({why})", escape_name(&rel.to_string_lossy()))
                }
                None => why,
            };
            self.examples.push(shown);
        }
    }

    fn summary(&self) -> String {
        let what = if self.count == 1 { "entry" } else { "entries" };
        let more = if self.count > self.examples.len() {
            ", …"
        } else {
            ""
        };
        format!(
            "{} {what} could not be read: {}{more}",
            self.count,
            self.examples.join(", ")
        )
    }
}

/// The path and a short reason of a walk error.
fn error_parts(e: &ignore::Error) -> (Option<std::path::PathBuf>, String) {
    match e {
        ignore::Error::WithPath { path, err } => (Some(path.clone()), error_parts(err).1),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_parts(err)
        }
        ignore::Error::Io(io) => (
            None,
            match io.kind() {
                std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                _ => super::access::one_line(&io.to_string()),
            },
        ),
        ignore::Error::Loop { child, .. } => (Some(child.clone()), "symlink loop".to_string()),
        other => (None, super::access::one_line(&other.to_string())),
    }
}
