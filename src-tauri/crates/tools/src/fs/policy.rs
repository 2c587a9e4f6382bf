//! The filesystem path policy every tool shares: canonicalising a tool's
//! `path` for security decisions (through the one resolver, [`super::resolve`],
//! that the tools also open files by, so `docs/../secrets/x` or a symlink into
//! `secrets/` cannot pass for something else), the `secrets/` deny, the
//! `memory/` write carve-out, and the directories recursive tools never enter.
//!
//! This module decides; it never reads a file's contents.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;
use skald_core_api::ToolError;

pub use super::access::open_for_read;
use super::access::resolve_failed;
use super::resolve::resolve as resolve_path;
pub use super::resolve::{Intent, MAX_PATH_BYTES, MAX_SYMLINK_HOPS, ResolveError};
pub use super::secret_name::is_secrets_name;

/// Directories recursive tools (`list_files`, `grep_files`) never descend into.
/// `secrets` is matched ASCII-case-insensitively, like [`is_secret_path`].
pub const SKIP_DIRS: &[&str] = &[".git", "node_modules", "target", "secrets"];

/// The one-line refusal for `secrets/`. It names the rule, never the contents
/// (not even whether the file exists).
pub const SECRETS_DENIED: &str = "access denied: tools may not read or write paths under secrets/";

/// A tool's `path` argument as a path: absolute as is, otherwise relative to
/// the process's current directory (joined as text: it is resolved later). Tools normally receive absolute paths
/// already (see `Tool::effective_args`).
pub fn resolve(path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(p),
        Err(_) => p.to_path_buf(),
    }
}

/// The canonical absolute form of `path` (relative ones against `base`)
/// for prefix-matching policy decisions: the [`resolve`](super::resolve)
/// walk in lookup mode, the same one the tools open files by. Missing
/// directories are imagined empty (a write would create them), so
/// `memory/new/../notes` is judged where a write would land. Where the walk
/// stops early the path as far as it got is returned: for a `secrets`
/// component that path contains it (so every secrets check still fires);
/// for a path that cannot be resolved at all (a file used as a directory, a
/// loop) the lexical form, which no tool will open anyway — use
/// [`resolve_for_policy`] to tell the two apart.
pub fn canonicalize_for_policy(path: &Path, base: &Path) -> PathBuf {
    match resolve_for_policy(path, base) {
        Ok(p) => p,
        Err(ResolveError::Secret(at)) => at,
        Err(_) => {
            let mut out = PathBuf::new();
            append_lexical(&mut out, components_rev(&base.join(path)));
            out
        }
    }
}

/// [`canonicalize_for_policy`], saying why a path could not be resolved.
pub fn resolve_for_policy(path: &Path, base: &Path) -> Result<PathBuf, ResolveError> {
    resolve_path(path, base, Intent::Lookup).map(|r| r.canonical().to_path_buf())
}

enum Step {
    Root,
    Cur,
    Parent,
    Normal,
}

fn classify(comp: &Path) -> Step {
    match comp.components().next() {
        Some(Component::Prefix(_)) | Some(Component::RootDir) => Step::Root,
        Some(Component::CurDir) | None => Step::Cur,
        Some(Component::ParentDir) => Step::Parent,
        Some(Component::Normal(_)) => Step::Normal,
    }
}

/// The components of `p` as single-component paths, reversed (a pop stack).
fn components_rev(p: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = p
        .components()
        .map(|c| PathBuf::from(c.as_os_str()))
        .collect();
    out.reverse();
    out
}

/// Appends the remaining (reversed) components lexically: `.` dropped, `..`
/// pops (never above the root).
fn append_lexical(resolved: &mut PathBuf, mut rest: Vec<PathBuf>) {
    while let Some(comp) = rest.pop() {
        match classify(&comp) {
            Step::Root => *resolved = comp,
            Step::Cur => {}
            Step::Parent => {
                if resolved.parent().is_some() {
                    resolved.pop();
                }
            }
            Step::Normal => resolved.push(&comp),
        }
    }
}

/// Whether `child` is `base` or inside it, compared component by component
/// (`/a/bc` is not under `/a/b`). Purely lexical: canonicalise both first.
pub fn path_under(child: &Path, base: &Path) -> bool {
    child.starts_with(base)
}

/// `path` for display: relative to `root` when inside it (`.` for the root
/// itself), otherwise absolute.
pub fn relativize_for_display(path: &Path, root: &Path) -> String {
    if let Some(rel) = strip_under(path, root) {
        return rel;
    }
    // Same place reached through different spellings (a symlinked temp dir,
    // `..`): compare the canonical forms too.
    let cp = canonicalize_for_policy(path, root);
    let cr = canonicalize_for_policy(root, root);
    if let Some(rel) = strip_under(&cp, &cr) {
        return rel;
    }
    path.display().to_string()
}

fn strip_under(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    if rel.as_os_str().is_empty() {
        Some(".".to_string())
    } else {
        Some(rel.display().to_string())
    }
}

/// Whether a directory entry with this name is one recursive tools skip
/// ([`SKIP_DIRS`]; `secrets` case-insensitively).
pub fn is_skip_dir_name(name: &OsStr) -> bool {
    is_secrets_name(name) || SKIP_DIRS.iter().any(|d| OsStr::new(d) == name)
}

/// Whether any component of `canonical` is a `secrets` directory (see
/// [`is_secrets_name`]). Pass a canonical path: this check is lexical.
pub fn is_secret_path(canonical: &Path) -> bool {
    canonical.components().any(|c| match c {
        Component::Normal(name) => is_secrets_name(name),
        Component::Prefix(_) | Component::RootDir | Component::CurDir | Component::ParentDir => {
            false
        }
    })
}

/// Whether `path` lies inside `<workdir>/memory/` once both are canonicalised
/// (relative paths are taken against `workdir`). Writes there skip approval.
/// `memory` itself is not "inside" it.
pub fn is_memory_path(path: &Path, workdir: &Path) -> bool {
    let canon = canonicalize_for_policy(path, workdir);
    let memory = canonicalize_for_policy(&workdir.join("memory"), workdir);
    canon != memory && path_under(&canon, &memory)
}

/// The policy check for a path some other code will read (the viewer, a
/// write preview): refuses anything under `secrets/` with a one-line error
/// that reveals nothing about what is there, and a path that cannot be
/// resolved. Returns the canonical path. Prefer [`open_for_read`], which
/// also opens the file it judged.
pub fn check_read_allowed(path: &Path) -> Result<PathBuf, ToolError> {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    resolve_for_policy(path, &base)
        .map_err(|e| resolve_failed(&e, "read", &path.display().to_string()))
}

/// The `path` argument of a call (trimmed, non-empty), for `target_path`.
pub fn path_arg(args: &Value) -> Option<String> {
    args.get("path")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}
