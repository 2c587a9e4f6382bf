//! Lexical path helpers for matching already-canonicalised paths: `.` and
//! `..` folded without touching the disk, and ASCII case folding for the
//! restrictive spellings. Canonicalisation itself is
//! `skald_tools::fs::canonicalize_for_policy`; nothing here reads the disk.

use std::path::{Component, Path, PathBuf};

/// `p` with `.` dropped and `..` popping the previous component (never above
/// the root), the way `canonicalize_for_policy` treats a not-yet-existing
/// tail. Trailing slashes disappear (`docs/` is `docs`).
pub(crate) fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

/// `p` with ASCII letters lower-cased (`Secrets/K` → `secrets/k`), for
/// comparisons that must also catch case variants of a name.
pub(crate) fn fold_case(p: &Path) -> PathBuf {
    PathBuf::from(p.to_string_lossy().to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_folds_dots_and_trailing_slashes() {
        assert_eq!(
            lexical(Path::new("/a/b/../c/./d/")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(lexical(Path::new("/../../x")), PathBuf::from("/x"));
        assert_eq!(lexical(Path::new("/a//b")), PathBuf::from("/a/b"));
    }

    #[test]
    fn fold_case_lowers_ascii_only() {
        assert_eq!(
            fold_case(Path::new("/W/Secrets/K")),
            PathBuf::from("/w/secrets/k")
        );
    }
}
