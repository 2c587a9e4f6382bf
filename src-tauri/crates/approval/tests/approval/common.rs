//! Shared fixtures: a real temp workspace full of hostile symlinks, and the
//! seeded rules as an in-memory snapshot (ids as a fresh database gives them).

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use skald_approval::{Rule, RulesSnapshot, SEED_RULES};
use tempfile::TempDir;

/// Ids the seeds get in a fresh database (checked by `seed::fresh_ids_match_the_table`).
pub const SECRETS_DENY: i64 = 1;
pub const MEMORY_ALLOW: i64 = 2;
pub const EXEC_REQUIRE: i64 = 3;
pub const RESTART_REQUIRE: i64 = 4;
pub const TODOS_ALLOW: i64 = 5;
pub const NOTIFY_ALLOW: i64 = 6;
pub const ACTIVATE_ALLOW: i64 = 7;
pub const SHOW_FILE_ALLOW: i64 = 8;
pub const SCRATCHPAD_ALLOW: i64 = 9;
pub const ASK_ALLOW: i64 = 10;
pub const CATCH_ALL: i64 = 11;
pub const READ_NOTIFICATION_ALLOW: i64 = 12;
pub const EXECUTE_TASK_ALLOW: i64 = 13;
pub const LIST_ITEMS_ALLOW: i64 = 14;

/// The seeded rules with ids 1..=14 in seed order.
pub fn seeded_rules() -> Vec<Rule> {
    SEED_RULES
        .iter()
        .zip(1..)
        .map(|(seed, id)| {
            let mut rule = Rule::new(id, "default", seed.tool_pattern, seed.action)
                .unwrap()
                .with_priority(seed.priority);
            if let Some(p) = seed.path_pattern {
                rule = rule.with_path(p).unwrap();
            }
            rule.note = Some(seed.note.to_string());
            rule
        })
        .collect()
}

pub fn seeded_snapshot() -> RulesSnapshot {
    RulesSnapshot::new(seeded_rules())
}

/// A working directory and a directory outside it, both real.
///
/// ```text
/// root/  docs/{a.md,draft.md,sub/b.md}  skills/s.md  src/main.rs  memory/notes.md
///        secrets/{k,sub/k2}  secretsX/k  secrets.txt  out/
///        docs/link -> ../secrets      docs/loopA <-> docs/loopB   docs/ext -> <ext>
///        docs/up -> ..                public -> secrets           secrets/out -> ../docs
///        secrets/loop1 <-> loop2      memory/link -> ../docs      memory/sec -> ../secrets
///        loopR -> loopR
/// ext/   x.txt  secrets/k
/// ```
pub struct Workspace {
    _root_guard: TempDir,
    _ext_guard: TempDir,
    pub root: PathBuf,
    pub ext: PathBuf,
}

impl Workspace {
    pub fn new() -> Self {
        let root_guard = tempfile::tempdir().unwrap();
        let ext_guard = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root_guard.path()).unwrap();
        let ext = std::fs::canonicalize(ext_guard.path()).unwrap();
        for dir in [
            "docs/sub",
            "skills",
            "src",
            "memory",
            "secrets/sub",
            "secretsX",
            "out",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in [
            "docs/a.md",
            "docs/draft.md",
            "docs/sub/b.md",
            "skills/s.md",
            "src/main.rs",
            "memory/notes.md",
            "secrets/k",
            "secrets/sub/k2",
            "secretsX/k",
            "secrets.txt",
        ] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        std::fs::create_dir_all(ext.join("secrets")).unwrap();
        std::fs::write(ext.join("x.txt"), "x").unwrap();
        std::fs::write(ext.join("secrets/k"), "x").unwrap();
        let links: [(&str, &Path); 12] = [
            ("docs/link", Path::new("../secrets")),
            ("docs/loopA", Path::new("loopB")),
            ("docs/loopB", Path::new("loopA")),
            ("docs/ext", &ext),
            ("docs/up", Path::new("..")),
            ("public", Path::new("secrets")),
            ("secrets/out", Path::new("../docs")),
            ("secrets/loop1", Path::new("loop2")),
            ("secrets/loop2", Path::new("loop1")),
            ("memory/link", Path::new("../docs")),
            ("memory/sec", Path::new("../secrets")),
            ("loopR", Path::new("loopR")),
        ];
        for (at, target) in links {
            symlink(target, root.join(at)).unwrap();
        }
        Self {
            _root_guard: root_guard,
            _ext_guard: ext_guard,
            root,
            ext,
        }
    }

    /// `s` with `{root}`, `{ext}` and `{rootname}` filled in.
    pub fn fill(&self, s: &str) -> String {
        let rootname = self.root.file_name().unwrap().to_string_lossy();
        s.replace("{root}", &self.root.to_string_lossy())
            .replace("{ext}", &self.ext.to_string_lossy())
            .replace("{rootname}", &rootname)
    }
}
