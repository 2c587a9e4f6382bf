//! Shared helpers for the fs tool tests: temp trees, running a tool by name
//! through the real registry, and a privilege probe for permission tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use skald_core_api::ToolError;
use skald_tools::ToolRegistry;

/// A registry with just the fs tools.
pub fn registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    skald_tools::fs::register(&mut r);
    r
}

/// Runs tool `name` synchronously (its `execute`).
pub fn run(name: &str, args: Value) -> Result<String, ToolError> {
    let r = registry();
    let tool = r.get(name).unwrap_or_else(|| panic!("no tool {name}"));
    tool.execute(args)
}

/// Runs and expects success.
pub fn ok(name: &str, args: Value) -> String {
    match run(name, args.clone()) {
        Ok(s) => s,
        Err(e) => panic!("{name} {args} failed: {e}"),
    }
}

/// Runs and expects failure; returns the message.
pub fn err(name: &str, args: Value) -> String {
    match run(name, args.clone()) {
        Ok(s) => panic!("{name} {args} unexpectedly succeeded: {s}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "error is not one line: {msg:?}");
            msg
        }
    }
}

/// A temp dir and its canonical path.
pub fn tmp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

/// Writes `content` at `root/rel`, creating parents.
pub fn put(root: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    p
}

pub fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Whether permission bits are bypassed here (root / CAP_DAC_OVERRIDE):
/// probes by trying to read a chmod-000 file.
#[cfg(unix)]
pub fn permissions_bypassed() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let (_d, root) = tmp();
    let p = put(&root, "probe", "x");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::read(&p).is_ok()
}
