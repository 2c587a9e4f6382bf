//! The fs path policy: canonicalisation, `path_under`, display, secrets and
//! memory detection, `check_read_allowed`, `path_arg`.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::json;
use skald_tools::fs::*;

#[test]
fn resolve_keeps_absolute_and_joins_relative_onto_cwd() {
    assert_eq!(resolve("/etc/hosts"), PathBuf::from("/etc/hosts"));
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(resolve("src/lib.rs"), cwd.join("src/lib.rs"));
}

#[test]
fn canonicalize_normalises_dots_and_keeps_missing_tail() {
    let (_d, root) = tmp();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    let c = canonicalize_for_policy(Path::new("docs/../secrets/x"), &root);
    assert_eq!(c, root.join("secrets/x"));
    let c = canonicalize_for_policy(Path::new("./a/./b/../c"), &root);
    assert_eq!(c, root.join("a/c"));
    let c = canonicalize_for_policy(&root.join("new/deep/file.txt"), Path::new("/"));
    assert_eq!(c, root.join("new/deep/file.txt"));
    // `..` above the root stays at the root.
    assert_eq!(
        canonicalize_for_policy(Path::new("/../../etc"), Path::new("/")),
        PathBuf::from("/etc")
    );
}

#[cfg(unix)]
#[test]
fn canonicalize_follows_symlinks_even_dangling_ones() {
    use std::os::unix::fs::symlink;
    let (_d, root) = tmp();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::create_dir_all(root.join("pub")).unwrap();
    symlink(root.join("secrets"), root.join("pub/link")).unwrap();
    assert_eq!(
        canonicalize_for_policy(Path::new("pub/link/key"), &root),
        root.join("secrets/key")
    );
    // Dangling: the target does not exist yet, still resolved.
    symlink(root.join("secrets/not-yet"), root.join("dangling")).unwrap();
    assert_eq!(
        canonicalize_for_policy(Path::new("dangling"), &root),
        root.join("secrets/not-yet")
    );
    // Relative link target.
    symlink("../secrets", root.join("pub/rel")).unwrap();
    assert_eq!(
        canonicalize_for_policy(Path::new("pub/rel/k"), &root),
        root.join("secrets/k")
    );
    // `..` after a symlink steps up from the link's target, as the OS does.
    std::fs::create_dir_all(root.join("secrets/sub")).unwrap();
    symlink(root.join("secrets/sub"), root.join("pub/deep")).unwrap();
    assert_eq!(
        canonicalize_for_policy(Path::new("pub/deep/../y"), &root),
        root.join("secrets/y")
    );
}

#[cfg(unix)]
#[test]
fn canonicalize_survives_symlink_loops() {
    use std::os::unix::fs::symlink;
    let (_d, root) = tmp();
    symlink(root.join("b"), root.join("a")).unwrap();
    symlink(root.join("a"), root.join("b")).unwrap();
    symlink(root.join("self"), root.join("self")).unwrap();
    // Returns (does not hang or panic); the result is somewhere in the loop.
    let c = canonicalize_for_policy(Path::new("a/x"), &root);
    assert!(c.starts_with(&root), "{c:?}");
    let c = canonicalize_for_policy(Path::new("self"), &root);
    assert!(c.starts_with(&root), "{c:?}");
    // And the read gate refuses it cleanly: a path that cannot be resolved
    // is never joined as text and used.
    let e = check_read_allowed(&root.join("a/x"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("too many levels of symbolic links"), "{e}");
}

#[test]
fn path_under_is_component_wise() {
    assert!(path_under(Path::new("/a/b/c"), Path::new("/a/b")));
    assert!(path_under(Path::new("/a/b"), Path::new("/a/b")));
    assert!(!path_under(Path::new("/a/bc"), Path::new("/a/b")));
    assert!(!path_under(Path::new("/a"), Path::new("/a/b")));
}

#[test]
fn relativize_for_display_inside_and_outside() {
    let root = Path::new("/proj");
    assert_eq!(
        relativize_for_display(Path::new("/proj/src/a.rs"), root),
        "src/a.rs"
    );
    assert_eq!(relativize_for_display(Path::new("/proj"), root), ".");
    assert_eq!(
        relativize_for_display(Path::new("/other/x"), root),
        "/other/x"
    );
    assert_eq!(
        relativize_for_display(Path::new("/projX/x"), root),
        "/projX/x"
    );
}

#[test]
fn secret_paths_match_the_component_case_insensitively() {
    for p in [
        "/w/secrets",
        "/w/secrets/",
        "/w/secrets/a/b",
        "/w/Secrets/x",
        "/w/SECRETS/x",
        "/secrets",
    ] {
        assert!(is_secret_path(Path::new(p)), "{p}");
    }
    for p in [
        "/w/secretsX/a",
        "/w/secrets.txt",
        "/w/my-secrets/a",
        "/w/secret/a",
        "/w",
    ] {
        assert!(!is_secret_path(Path::new(p)), "{p}");
    }
}

#[test]
fn skip_dirs_are_the_documented_ones() {
    assert_eq!(SKIP_DIRS, &[".git", "node_modules", "target", "secrets"]);
    assert!(is_skip_dir_name("SECRETS".as_ref()));
    assert!(is_skip_dir_name("node_modules".as_ref()));
    assert!(!is_skip_dir_name("Target2".as_ref()));
}

#[test]
fn memory_paths_after_canonicalisation() {
    let (_d, root) = tmp();
    std::fs::create_dir_all(root.join("memory")).unwrap();
    assert!(is_memory_path(Path::new("memory/notes.md"), &root));
    assert!(is_memory_path(&root.join("memory/a/b.md"), &root));
    assert!(!is_memory_path(Path::new("memory/../src/x"), &root));
    assert!(!is_memory_path(Path::new("memoryX/x"), &root));
    assert!(!is_memory_path(Path::new("memory"), &root));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("src"), root.join("memory/escape")).unwrap();
        assert!(!is_memory_path(Path::new("memory/escape/main.rs"), &root));
    }
}

#[test]
fn check_read_allowed_refuses_secrets_without_detail() {
    let (_d, root) = tmp();
    put(&root, "secrets/key", "TOPSECRET");
    let e = check_read_allowed(&root.join("secrets/key"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("secrets/"), "{e}");
    assert!(!e.contains("TOPSECRET") && !e.contains("key"), "{e}");
    // Non-existent files under secrets/ get the same answer (no existence oracle).
    let e2 = check_read_allowed(&root.join("secrets/nope"))
        .unwrap_err()
        .to_string();
    assert_eq!(e, e2);
    let ok = check_read_allowed(&root.join("docs/../README")).unwrap();
    assert_eq!(ok, root.join("README"));
}

#[test]
fn path_arg_reads_a_trimmed_non_empty_path() {
    assert_eq!(path_arg(&json!({"path": "a.rs"})), Some("a.rs".to_string()));
    assert_eq!(path_arg(&json!({"path": "  "})), None);
    assert_eq!(path_arg(&json!({"path": 3})), None);
    assert_eq!(path_arg(&json!({})), None);
}
