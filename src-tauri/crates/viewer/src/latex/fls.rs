//! The `-recorder` file (`<job>.fls`): every file TeX opened, which is how a
//! compile learns its inputs without parsing `\input`, `\include` or
//! `\includegraphics` itself.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Inputs split into the document's own files (hashed for the cache and
/// watched) and the TeX distribution's (checked by size and mtime only).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Inputs {
    pub project: Vec<PathBuf>,
    pub system: Vec<PathBuf>,
}

/// Roots of TeX distributions and system files: an input under one of them
/// belongs to the installation, not the document.
const SYSTEM_ROOTS: &[&str] = &[
    "/usr/",
    "/etc/",
    "/var/lib/texmf",
    "/var/cache/",
    "/opt/texlive",
    "/dev/",
    "/proc/",
];

/// Parses an `.fls`. Relative names are relative to its `PWD` line; files
/// TeX also wrote (`OUTPUT`: the `.aux` it reads back) and anything under
/// `build_dir` are the compile's own, not inputs.
pub fn parse(fls: &str, build_dir: &Path) -> Inputs {
    let mut pwd = PathBuf::new();
    let mut outputs = HashSet::new();
    let mut inputs = Vec::new();
    for line in fls.lines() {
        if let Some(dir) = line.strip_prefix("PWD ") {
            pwd = PathBuf::from(dir);
        } else if let Some(p) = line.strip_prefix("OUTPUT ") {
            outputs.insert(absolute(&pwd, p));
        } else if let Some(p) = line.strip_prefix("INPUT ") {
            inputs.push(absolute(&pwd, p));
        }
    }
    let mut seen = HashSet::new();
    let mut out = Inputs::default();
    for path in inputs {
        if outputs.contains(&path) || path.starts_with(build_dir) || !seen.insert(path.clone()) {
            continue;
        }
        if is_system(&path) {
            out.system.push(path);
        } else {
            out.project.push(path);
        }
    }
    out
}

pub fn is_system(path: &Path) -> bool {
    let s = path.to_string_lossy();
    SYSTEM_ROOTS.iter().any(|root| s.starts_with(root))
}

/// Joins and removes `.` components (TeX writes `./chapter.tex`), without
/// touching the filesystem.
fn absolute(pwd: &Path, name: &str) -> PathBuf {
    let joined = pwd.join(name);
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
