//! The filesystem path policy every tool shares: resolving a tool's `path`,
//! canonicalising it for security decisions (symlinks and `..` resolved the way
//! the OS resolves them, so `docs/../secrets/x` or a symlink into `secrets/`
//! cannot pass for something else), the `secrets/` read deny, the `memory/`
//! write carve-out, and the directories recursive tools never enter.
//!
//! This module decides; it never reads a file's contents.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;
use skald_core_api::ToolError;

/// Directories recursive tools (`list_files`, `grep_files`) never descend into.
/// `secrets` is matched ASCII-case-insensitively, like [`is_secret_path`].
pub const SKIP_DIRS: &[&str] = &[".git", "node_modules", "target", "secrets"];

/// The name of the directory no read tool may look into.
const SECRETS: &str = "secrets";

/// How many symlinks one resolution may follow before it is called a loop.
/// Above the kernel's own limit (40), so anything the OS can open we resolve.
const MAX_SYMLINK_HOPS: usize = 128;

/// The one-line refusal for `secrets/`. It names the rule, never the contents
/// (not even whether the file exists).
pub const SECRETS_DENIED: &str = "access denied: tools may not read or write paths under secrets/";

/// A tool's `path` argument as a path: absolute as is, otherwise relative to
/// the process's current directory. Tools normally receive absolute paths
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

/// The canonical absolute form of `path` for prefix-matching policy decisions.
///
/// `path` is joined onto `base` when relative. The existing part of the path
/// is then resolved component by component exactly as the OS would: symlinks
/// are followed (even dangling ones, so a symlink to a not-yet-existing file
/// under `secrets/` still resolves into `secrets/`), and `..` steps up from
/// the *resolved* directory (`link/../x` where `link → /a/b` is `/a/x`, as for
/// `open(2)`). The first component that does not exist ends the walk; the rest
/// (the not-yet-existing tail) is normalised lexically and appended. A symlink
/// loop never hangs: after [`MAX_SYMLINK_HOPS`] the walk stops and the path is
/// returned as resolved so far (opening it fails with "too many levels of
/// symbolic links" anyway).
pub fn canonicalize_for_policy(path: &Path, base: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut hops = 0usize;
    let mut resolved = PathBuf::new();
    // Components still to walk, as a stack (reversed, for cheap pops).
    let mut rest: Vec<PathBuf> = components_rev(&abs);
    while let Some(comp) = rest.pop() {
        match classify(&comp) {
            Step::Root => {
                resolved = comp.clone();
            }
            Step::Cur => {}
            Step::Parent => {
                resolved.pop();
                if resolved.as_os_str().is_empty() {
                    resolved.push(Component::RootDir.as_os_str());
                }
            }
            Step::Normal => {
                let candidate = resolved.join(&comp);
                match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        hops += 1;
                        let target = match std::fs::read_link(&candidate) {
                            Ok(t) if hops <= MAX_SYMLINK_HOPS => t,
                            // A loop (or an unreadable link): stop here.
                            _ => {
                                resolved = candidate;
                                append_lexical(&mut resolved, rest);
                                return resolved;
                            }
                        };
                        // Walk the target next, then what was left.
                        let mut target_rev = components_rev(&target);
                        if target.is_absolute() {
                            resolved = PathBuf::new();
                        }
                        rest.append(&mut target_rev);
                    }
                    Ok(_) => resolved = candidate,
                    Err(_) => {
                        // Not there (or not reachable): the rest is a tail
                        // that does not exist yet.
                        resolved = candidate;
                        append_lexical(&mut resolved, rest);
                        return resolved;
                    }
                }
            }
        }
    }
    if resolved.as_os_str().is_empty() {
        resolved.push(Component::RootDir.as_os_str());
    }
    resolved
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
/// A Windows prefix and its root directory stay together as one root step.
fn components_rev(p: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for c in p.components() {
        match c {
            Component::RootDir => {
                if let Some(last) = out.last_mut()
                    && matches!(last.components().next(), Some(Component::Prefix(_)))
                {
                    last.push(c.as_os_str());
                    continue;
                }
                out.push(PathBuf::from(c.as_os_str()));
            }
            _ => out.push(PathBuf::from(c.as_os_str())),
        }
    }
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

/// Whether a directory entry's name is `secrets`, ASCII-case-insensitively
/// (`Secrets`, `SECRETS` are; `secretsX`, `secrets.txt` are not).
pub fn is_secrets_name(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|s| s.eq_ignore_ascii_case(SECRETS))
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

/// The gate every read tool passes first: canonicalises `path` (relative to
/// the current directory) and refuses anything under `secrets/` with a
/// one-line error that reveals nothing about what is there. Both the canonical
/// path and the path as written are checked, so neither a symlink into
/// `secrets/` nor a `secrets/link` pointing elsewhere gets through.
pub fn check_read_allowed(path: &Path) -> Result<PathBuf, ToolError> {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let canonical = canonicalize_for_policy(path, &base);
    let mut as_written = PathBuf::new();
    append_lexical(&mut as_written, components_rev(&base.join(path)));
    if is_secret_path(&canonical) || is_secret_path(&as_written) {
        return Err(ToolError::Failed(SECRETS_DENIED.to_string()));
    }
    Ok(canonical)
}

/// The `path` argument of a call (trimmed, non-empty), for `target_path`.
pub fn path_arg(args: &Value) -> Option<String> {
    args.get("path")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}
