//! Rule patterns: which tools a rule names ([`ToolPattern`], including the
//! filesystem classes [`ToolClass`]) and which paths ([`PathPattern`]).
//!
//! Patterns only compare names, declared traits and already-resolved paths;
//! they never touch the disk. Class membership is what a tool declares
//! (`Tool::traits`), never a list of names.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use skald_core_api::ToolTraits;

use crate::call::CallContext;
use crate::error::{ApprovalError, Result};
use crate::paths::{fold_case, lexical};

/// A named class of tools a pattern can stand for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolClass {
    /// `@fs_read`: tools that declare `reads_files`.
    FsRead,
    /// `@fs_write`: tools that declare `writes_files`.
    FsWrite,
    /// `@fs_any`: both.
    FsAny,
}

impl ToolClass {
    /// Every class.
    pub const ALL: [ToolClass; 3] = [ToolClass::FsRead, ToolClass::FsWrite, ToolClass::FsAny];

    /// The pattern text, e.g. `@fs_read`.
    pub const fn as_pattern(self) -> &'static str {
        match self {
            ToolClass::FsRead => "@fs_read",
            ToolClass::FsWrite => "@fs_write",
            ToolClass::FsAny => "@fs_any",
        }
    }

    /// The class a pattern text names, if any.
    pub fn parse(pattern: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_pattern() == pattern)
    }

    /// Whether a tool declaring `traits` belongs to the class.
    pub fn contains(self, traits: ToolTraits) -> bool {
        match self {
            ToolClass::FsRead => traits.reads_files,
            ToolClass::FsWrite => traits.writes_files,
            ToolClass::FsAny => traits.reads_files || traits.writes_files,
        }
    }
}

/// Which tools a rule names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ToolPattern {
    /// `*`: every tool.
    Any,
    /// A tool name, compared exactly (case-sensitive).
    Exact(String),
    /// `prefix*`: every tool whose name starts with `prefix`
    /// (`mcp__gmail__*`).
    Prefix(String),
    /// `@fs_read`, `@fs_write`, `@fs_any`.
    Class(ToolClass),
}

impl ToolPattern {
    /// Parses `*`, `@class`, `prefix*` or an exact name. A `*` anywhere but
    /// at the end, whitespace, an empty pattern and an unknown `@class` are
    /// errors.
    pub fn parse(pattern: &str) -> Result<Self> {
        let bad = |reason: &str| ApprovalError::InvalidToolPattern {
            pattern: pattern.to_string(),
            reason: reason.to_string(),
        };
        if pattern.is_empty() {
            return Err(bad("empty"));
        }
        if pattern.chars().any(char::is_whitespace) {
            return Err(bad("contains whitespace"));
        }
        if pattern == "*" {
            return Ok(Self::Any);
        }
        if pattern.starts_with('@') {
            return ToolClass::parse(pattern)
                .map(Self::Class)
                .ok_or_else(|| bad("unknown class (known: @fs_read, @fs_write, @fs_any)"));
        }
        match pattern.find('*') {
            None => Ok(Self::Exact(pattern.to_string())),
            Some(i) if i + 1 == pattern.len() => Ok(Self::Prefix(pattern[..i].to_string())),
            Some(_) => Err(bad("`*` is only allowed at the end")),
        }
    }

    /// Whether `tool`, declaring `traits`, is named by this pattern.
    pub fn matches(&self, tool: &str, traits: ToolTraits) -> bool {
        match self {
            Self::Any => true,
            Self::Exact(name) => tool == name,
            Self::Prefix(prefix) => tool.starts_with(prefix.as_str()),
            Self::Class(class) => class.contains(traits),
        }
    }
}

impl fmt::Display for ToolPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Any => f.write_str("*"),
            Self::Exact(name) => f.write_str(name),
            Self::Prefix(prefix) => write!(f, "{prefix}*"),
            Self::Class(class) => f.write_str(class.as_pattern()),
        }
    }
}

/// Which paths a rule names. Relative patterns are taken against the call's
/// working directory; absolute ones stand for themselves.
///
/// - `*`: any path (but the call must have one).
/// - `dir/*` (or `dir/`): `dir` itself and its whole subtree, with a `/`
///   boundary — `docs/*` matches `docs`, `docs/a` and `docs/x/y`, never
///   `docsX/a`.
/// - `prefix*`: paths whose last named component starts with the text after
///   the last `/` — `docs/dr*` matches `docs/draft.md` and `docs/drafts/x`.
/// - anything else: exactly that path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PathPattern {
    text: String,
    kind: PathKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum PathKind {
    AnyPath,
    Subtree(PathBuf),
    Exact(PathBuf),
    /// Directory, then the start of the next component's name.
    Prefix(PathBuf, String),
}

impl PathPattern {
    /// Parses a path pattern; empty patterns and a `*` anywhere but at the
    /// end are errors.
    pub fn parse(pattern: &str) -> Result<Self> {
        let bad = |reason: &str| ApprovalError::InvalidPathPattern {
            pattern: pattern.to_string(),
            reason: reason.to_string(),
        };
        if pattern.trim().is_empty() {
            return Err(bad("empty"));
        }
        if pattern.contains('\0') {
            return Err(bad("contains a NUL byte"));
        }
        let star = pattern.find('*');
        if star.is_some_and(|i| i + 1 != pattern.len()) {
            return Err(bad("`*` is only allowed at the end"));
        }
        let kind = if pattern == "*" {
            PathKind::AnyPath
        } else if let Some(dir) = pattern.strip_suffix("/*") {
            PathKind::Subtree(dir_or_root(dir))
        } else if let Some(prefix) = pattern.strip_suffix('*') {
            let (dir, partial) = match prefix.rsplit_once('/') {
                Some((dir, partial)) => (dir_or_root(dir), partial),
                None => (PathBuf::from("."), prefix),
            };
            PathKind::Prefix(dir, partial.to_string())
        } else if pattern.ends_with('/') {
            PathKind::Subtree(dir_or_root(pattern.trim_end_matches('/')))
        } else {
            PathKind::Exact(PathBuf::from(pattern))
        };
        Ok(Self {
            text: pattern.to_string(),
            kind,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the call's path is named by this pattern. A call without a
    /// path never matches.
    ///
    /// `restrictive` (require and deny rules) widens the match to every
    /// spelling of the path — canonical and as written, against the canonical
    /// and the as-written working directory, and ASCII-case-folded — so
    /// `Secrets/k` or `secrets/link → ../docs` is still caught. Allow rules
    /// match only the canonical path, case-sensitively, so no spelling can
    /// reach beyond what the rule names.
    pub(crate) fn matches_call(&self, call: &CallContext, restrictive: bool) -> bool {
        let Some(path) = call.path() else {
            return false;
        };
        if restrictive {
            let paths = [path.canonical(), path.lexical()];
            let workdirs = [call.canonical_workdir(), call.lexical_workdir()];
            paths.iter().any(|p| {
                workdirs
                    .iter()
                    .any(|wd| self.matches_one(p, wd, false) || self.matches_one(p, wd, true))
            })
        } else if !path.is_resolved() {
            // An allow never vouches for a path that cannot be resolved.
            matches!(self.kind, PathKind::AnyPath)
        } else {
            self.matches_one(path.canonical(), call.canonical_workdir(), false)
        }
    }

    fn matches_one(&self, path: &Path, workdir: &Path, fold: bool) -> bool {
        let norm = |p: PathBuf| if fold { fold_case(&p) } else { p };
        let path = norm(path.to_path_buf());
        match &self.kind {
            PathKind::AnyPath => true,
            PathKind::Subtree(dir) => path.starts_with(norm(lexical(&workdir.join(dir)))),
            PathKind::Exact(p) => path == norm(lexical(&workdir.join(p))),
            PathKind::Prefix(dir, partial) => {
                let base = norm(lexical(&workdir.join(dir)));
                let partial = if fold {
                    partial.to_ascii_lowercase()
                } else {
                    partial.clone()
                };
                match path
                    .strip_prefix(&base)
                    .ok()
                    .map(|rest| rest.components().next())
                {
                    Some(Some(Component::Normal(name))) => {
                        name.to_string_lossy().starts_with(partial.as_str())
                    }
                    _ => false,
                }
            }
        }
    }
}

/// `""` (from `/*` or `/`) is the root; anything else as written.
fn dir_or_root(dir: &str) -> PathBuf {
    if dir.is_empty() {
        PathBuf::from("/")
    } else {
        PathBuf::from(dir)
    }
}

impl fmt::Display for PathPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_patterns_parse_and_print_back() {
        for text in [
            "*",
            "read_file",
            "mcp__gmail__*",
            "@fs_read",
            "@fs_write",
            "@fs_any",
        ] {
            assert_eq!(ToolPattern::parse(text).unwrap().to_string(), text);
        }
        for bad in ["", "read *", "*_file", "a*b*", "@fs", "@nope"] {
            assert!(
                ToolPattern::parse(bad).is_err(),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn path_patterns_parse() {
        for text in [
            "*",
            "docs/*",
            "docs/",
            "docs/a.md",
            "docs/dr*",
            "/abs/*",
            "/*",
            "x*",
        ] {
            assert_eq!(PathPattern::parse(text).unwrap().as_str(), text);
        }
        for bad in ["", "  ", "docs/*/x", "*/docs", "a*b"] {
            assert!(
                PathPattern::parse(bad).is_err(),
                "{bad:?} should be refused"
            );
        }
    }
}
