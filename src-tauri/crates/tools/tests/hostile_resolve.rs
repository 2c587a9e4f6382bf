//! The classes of path the old text-joining policy let through (issue 8,
//! item 1): a missing directory then `..`, a file used as a directory, a
//! component over 255 bytes, a path over PATH_MAX, a chain of symlinks over
//! the kernel's 40, names that alias `secrets` on other filesystems — each
//! against every read tool and every write tool. Every case must end in a
//! refusal that reveals no secret byte and writes nothing under `secrets/`;
//! `proptest` then throws generated paths of `..`, links, long and non-UTF-8
//! components at the same fixture.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

mod common;

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use common::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use skald_tools::tool_names as tn;

const MARKER: &str = "SKALD-SECRET-MARKER-51c0";

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

/// `<tmp>/w` with `secrets/k.txt`, links into it, a `memory/` whose `notes`
/// points at `../secrets`, and a plain file for file-as-directory paths.
fn fixture() -> Fixture {
    let (dir, tmp_root) = tmp();
    let root = tmp_root.join("w");
    put(&root, "secrets/k.txt", format!("{MARKER}\n"));
    put(&root, "a.txt", "plain\n");
    put(&root, "docs/readme.md", "docs\n");
    std::fs::create_dir_all(root.join("memory")).unwrap();
    symlink("secrets", root.join("link")).unwrap();
    symlink("../secrets", root.join("memory/notes")).unwrap();
    // A chain of 129 links ending in secrets/, and one of 30 ending in docs.
    symlink("secrets", root.join("chain128")).unwrap();
    for i in (0..128).rev() {
        symlink(format!("chain{}", i + 1), root.join(format!("chain{i}"))).unwrap();
    }
    symlink("docs", root.join("ok29")).unwrap();
    for i in (0..29).rev() {
        symlink(format!("ok{}", i + 1), root.join(format!("ok{i}"))).unwrap();
    }
    Fixture { _dir: dir, root }
}

fn read_calls(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        (tn::READ_FILE, json!({"path": path})),
        (tn::SEARCH_FILE, json!({"path": path, "query": "SKALD"})),
        (tn::GREP_FILES, json!({"path": path, "pattern": "SKALD"})),
        (tn::LIST_FILES, json!({"path": path})),
    ]
}

fn write_calls(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        (tn::WRITE_FILE, json!({"path": path, "content": "x"})),
        (
            tn::EDIT_FILE,
            json!({"path": path, "old_string": "SKALD", "new_string": "y"}),
        ),
        (
            tn::INSERT_AT_LINE,
            json!({"path": path, "line": 1, "content": "y"}),
        ),
        (
            tn::REPLACE_LINES,
            json!({"path": path, "start_line": 1, "end_line": 1, "new_content": "y"}),
        ),
    ]
}

/// Every file under `secrets/` and its contents, to prove nothing changed.
fn secrets_snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.join("secrets")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Runs every tool on `path`; nothing may leak or land in secrets/, and
/// every call must answer (no panic).
fn assert_contained(f: &Fixture, path: &str) {
    let before = secrets_snapshot(&f.root);
    for (name, args) in read_calls(path).into_iter().chain(write_calls(path)) {
        let text = match run(name, args.clone()) {
            Ok(s) => s,
            Err(e) => e.to_string(),
        };
        assert!(
            !text.contains(MARKER),
            "{name} {args} leaked the secret: {text}"
        );
    }
    assert_eq!(
        secrets_snapshot(&f.root),
        before,
        "something under secrets/ changed via {path:?}"
    );
}

#[test]
fn the_issue_repros_are_refused() {
    let f = fixture();
    let r = &f.root;
    // `nope` is missing, so the kernel itself could not open this path;
    // the read tools agree (and reveal nothing of what `link` leads to).
    let e = err(
        tn::READ_FILE,
        json!({"path": s(&r.join("nope/../link/k.txt"))}),
    );
    assert!(e.contains("does not exist"), "{e}");
    // The gate judges it as a write would land: in secrets/.
    let judged = skald_tools::fs::canonicalize_for_policy(Path::new("nope/../link/k.txt"), r);
    assert_eq!(judged, r.join("secrets/k.txt"));
    let e = err(
        tn::WRITE_FILE,
        json!({"path": s(&r.join("memory/nope/../notes/p.txt")), "content": "x"}),
    );
    assert!(e.contains("access denied"), "{e}");
    assert!(!r.join("secrets/p.txt").exists());
    // The refused write left no trace either: the missing directory it
    // would have had to create first is not there.
    assert!(!r.join("memory/nope").exists());
    assert_contained(&f, &s(&r.join("nope/../link/k.txt")));
    assert_contained(&f, &s(&r.join("memory/nope/../notes/p.txt")));
}

#[test]
fn a_file_used_as_a_directory_is_refused() {
    let f = fixture();
    let path = s(&f.root.join("a.txt/x/../../link/k.txt"));
    let e = err(tn::READ_FILE, json!({"path": path}));
    assert!(
        e.contains("is not a directory") || e.contains("access denied"),
        "{e}"
    );
    assert_contained(&f, &path);
    let plain = s(&f.root.join("a.txt/x/../.."));
    let e = err(tn::LIST_FILES, json!({"path": plain}));
    assert!(e.contains("a.txt is not a directory"), "{e}");
    assert_contained(&f, &plain);
}

#[test]
fn a_component_over_255_bytes_is_refused() {
    let f = fixture();
    let long = "a".repeat(300);
    let path = s(&f.root.join(format!("{long}/../link/k.txt")));
    assert_contained(&f, &path);
    let plain = s(&f.root.join(format!("{long}/../a.txt")));
    let e = err(tn::READ_FILE, json!({"path": plain}));
    assert!(e.contains("longer than the filesystem allows"), "{e}");
    let e = err(tn::WRITE_FILE, json!({"path": plain, "content": "x"}));
    assert!(e.contains("longer than the filesystem allows"), "{e}");
}

#[test]
fn a_path_over_path_max_is_refused() {
    let f = fixture();
    let deep = "./".repeat(2100);
    let path = format!("{}/{deep}link/k.txt", f.root.display());
    assert!(path.len() > 4096);
    let e = err(tn::READ_FILE, json!({"path": path}));
    assert!(
        e.contains("longer than 4096 bytes") || e.contains("access denied"),
        "{e}"
    );
    assert_contained(&f, &path);
    let plain = format!("{}/{deep}a.txt", f.root.display());
    let e = err(tn::READ_FILE, json!({"path": plain}));
    assert!(e.contains("longer than 4096 bytes"), "{e}");
    // The error does not echo 4 KB of path back.
    assert!(e.len() < 400, "{} bytes: {e}", e.len());
}

#[test]
fn a_chain_of_129_symlinks_is_refused_and_29_are_followed() {
    let f = fixture();
    let path = s(&f.root.join("chain0/k.txt"));
    let e = err(tn::READ_FILE, json!({"path": path}));
    assert!(e.contains("too many levels of symbolic links"), "{e}");
    assert_contained(&f, &path);
    let out = ok(
        tn::READ_FILE,
        json!({"path": s(&f.root.join("ok0/readme.md"))}),
    );
    assert!(out.contains("docs"), "{out}");
}

#[test]
fn names_that_alias_secrets_elsewhere_are_refused_here() {
    let f = fixture();
    for name in [
        "Secrets",
        "ＳＥＣＲＥＴＳ",
        "ſecrets",
        "sec\u{200B}rets",
        "secrets.",
    ] {
        let p = put(&f.root, &format!("{name}/x.txt"), format!("{MARKER}\n"));
        let e = err(tn::READ_FILE, json!({"path": s(&p)}));
        assert!(e.contains("access denied"), "{name:?}: {e}");
        let e = err(
            tn::WRITE_FILE,
            json!({"path": s(&f.root.join(name).join("new.txt")), "content": "x"}),
        );
        assert!(e.contains("access denied"), "{name:?}: {e}");
        let listing = ok(tn::LIST_FILES, json!({"path": s(&f.root)}));
        assert!(!listing.contains(name), "{name:?} listed:\n{listing}");
    }
}

#[test]
fn missing_arguments_mean_the_working_directory_like_an_empty_object() {
    let f = fixture();
    let r = registry();
    for name in [tn::LIST_FILES, tn::GREP_FILES] {
        let from_null = r.effective_args(name, Value::Null, &f.root);
        let from_empty = r.effective_args(name, json!({}), &f.root);
        assert_eq!(from_null, from_empty, "{name}");
        assert_eq!(from_null["path"], s(&f.root), "{name}");
    }
    let listing = r
        .get(tn::LIST_FILES)
        .unwrap()
        .execute(r.effective_args(tn::LIST_FILES, Value::Null, &f.root))
        .unwrap();
    assert!(listing.contains("docs/"), "{listing}");
}

#[test]
fn a_newline_in_a_file_name_cannot_forge_listing_lines() {
    let (_d, root) = tmp();
    put(&root, "evil\nsecrets/k.txt", "x");
    put(&root, "plain.txt", "x");
    let listing = ok(tn::LIST_FILES, json!({"path": s(&root)}));
    let lines: Vec<&str> = listing.lines().collect();
    assert!(lines.contains(&"evil\\nsecrets/"), "{listing}");
    assert!(lines.contains(&"evil\\nsecrets/k.txt"), "{listing}");
    assert!(!lines.iter().any(|l| l.starts_with("secrets")), "{listing}");
}

#[test]
fn a_huge_sparse_file_costs_what_is_shown() {
    let (_d, root) = tmp();
    let p = root.join("sparse.log");
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!("line {i}\n"));
    }
    std::fs::write(&p, &text).unwrap();
    // 5 GB, nearly all of it a hole: reading it all would take many seconds.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    let out = ok(tn::READ_FILE, json!({"path": s(&p), "limit": 1}));
    assert!(out.contains("1 | line 0"), "{out}");
    assert!(out.contains("of more than"), "{out}");
    assert!(out.contains("5.0 GB"), "{out}");
    let out = ok(tn::SEARCH_FILE, json!({"path": s(&p), "query": "nomatch"}));
    assert!(
        out.contains("stopped after the first 256.0 MB of 5.0 GB"),
        "{out}"
    );
}

#[test]
fn read_only_files_are_refused_for_root_too() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, root) = tmp();
    let p = put(&root, "ro.txt", "keep\n");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    for (name, args) in write_calls(&s(&p)) {
        let e = err(name, args);
        assert!(e.contains("read-only"), "{name}: {e}");
    }
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "keep\n");
}

/// One generated path component.
fn component() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"..".to_vec()),
        Just(b".".to_vec()),
        Just(b"link".to_vec()),
        Just(b"memory".to_vec()),
        Just(b"notes".to_vec()),
        Just(b"docs".to_vec()),
        Just(b"a.txt".to_vec()),
        Just(b"nope".to_vec()),
        Just(b"chain120".to_vec()),
        Just(b"k.txt".to_vec()),
        Just(vec![b'a'; 256]),
        Just(b"\xff\xfe".to_vec()),
        Just("Ｓecrets".as_bytes().to_vec()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn generated_paths_never_reach_a_secret(parts in prop::collection::vec(component(), 1..8)) {
        let f = fixture();
        let mut rel = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                rel.push(b'/');
            }
            rel.extend_from_slice(part);
        }
        let path = f.root.join(std::ffi::OsStr::from_bytes(&rel));
        // Non-UTF-8 paths reach the tools as lossy strings, as from JSON.
        assert_contained(&f, &path.to_string_lossy());
    }
}
