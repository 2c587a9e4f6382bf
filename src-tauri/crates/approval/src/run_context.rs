//! [`RunContext`]: what a session (and the tasks it starts) runs with — its
//! permission group, an extra system prompt, extra readable and writable
//! directories, and the working directory — and the fast paths it opens:
//! a `require` becomes `allow` for read tools under the working directory,
//! its `docs/` and `skills/`, or an allow-list entry, and for write tools
//! under an `allow_fs_writes` entry.
//!
//! A fast path never touches a `deny`, never opens anything under a
//! `secrets` directory (`is_secret_path`, on the canonical and the as-written
//! path), and is decided on the canonical path only, so `..` and symlinks
//! cannot reach outside what was granted.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skald_store::DEFAULT_GROUP;
use skald_tools::fs::{canonicalize_for_policy, is_secret_path, path_under};

use crate::call::CallContext;
use crate::decision::FastPath;
use crate::paths::lexical;
use crate::pattern::ToolClass;

/// The per-session run settings the gate reads. Stored as JSON on the
/// session (`chat_sessions.run_context`) and inherited by its tasks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunContext {
    /// The permission group whose rules apply (then `default`'s).
    pub permission_group: String,
    /// Appended to the agent's system prompt.
    pub extra_system_prompt: Option<String>,
    /// Extra directories read tools may use without asking.
    pub allow_fs_reads: Vec<PathBuf>,
    /// Extra directories read and write tools may use without asking.
    pub allow_fs_writes: Vec<PathBuf>,
    /// The session's working directory.
    pub working_dir: Option<PathBuf>,
}

impl Default for RunContext {
    fn default() -> Self {
        Self {
            permission_group: DEFAULT_GROUP.to_string(),
            extra_system_prompt: None,
            allow_fs_reads: Vec::new(),
            allow_fs_writes: Vec::new(),
            working_dir: None,
        }
    }
}

impl RunContext {
    /// A context in the `default` group with this working directory.
    pub fn in_dir(working_dir: impl Into<PathBuf>) -> Self {
        Self {
            working_dir: Some(working_dir.into()),
            ..Self::default()
        }
    }

    /// This context with the working directory and every allow-list entry
    /// canonicalised (relative entries against the working directory). The
    /// fast paths compare canonical call paths with the entries as they are,
    /// so an entry that is (or runs through) a symlink only opens its target
    /// once canonicalised; call this once when the session's RunContext is
    /// loaded. Reads the disk.
    pub fn canonicalized(&self) -> Self {
        let base = self
            .working_dir
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let canon = |p: &PathBuf| {
            if p.as_os_str().is_empty() {
                p.clone()
            } else {
                canonicalize_for_policy(p, &base)
            }
        };
        Self {
            permission_group: self.permission_group.clone(),
            extra_system_prompt: self.extra_system_prompt.clone(),
            allow_fs_reads: self.allow_fs_reads.iter().map(canon).collect(),
            allow_fs_writes: self.allow_fs_writes.iter().map(canon).collect(),
            working_dir: self.working_dir.as_ref().map(canon),
        }
    }

    /// The fast path that lets `call` run without asking, if any. Pure:
    /// the call's paths were resolved when it was built.
    pub fn fast_path(&self, call: &CallContext) -> Option<FastPath> {
        let path = call.path()?;
        if !path.is_resolved() || is_secret_path(path.canonical()) || is_secret_path(path.lexical())
        {
            return None;
        }
        let canonical = path.canonical();
        let workdir = call.canonical_workdir();
        let under_any = |entries: &[PathBuf]| {
            entries
                .iter()
                .filter(|e| !e.as_os_str().is_empty())
                .any(|e| path_under(canonical, &lexical(&workdir.join(e))))
        };
        let under = |dir: &Path| path_under(canonical, dir);
        if ToolClass::FsRead.contains(call.traits()) {
            if under(&workdir.join("docs")) {
                Some(FastPath::Docs)
            } else if under(&workdir.join("skills")) {
                Some(FastPath::Skills)
            } else if under(workdir) {
                Some(FastPath::WorkingDir)
            } else if under_any(&self.allow_fs_reads) {
                Some(FastPath::AllowFsReads)
            } else if under_any(&self.allow_fs_writes) {
                Some(FastPath::AllowFsWrites)
            } else {
                None
            }
        } else if ToolClass::FsWrite.contains(call.traits()) && under_any(&self.allow_fs_writes) {
            Some(FastPath::AllowFsWrites)
        } else {
            None
        }
    }
}
