//! read_file, list_files and search_file on real temp files: happy paths and
//! every bad input.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

mod common;

use common::*;
use serde_json::json;
use skald_tools::tool_names as tn;

fn numbered_file(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

// ---- read_file ----

#[test]
fn read_file_whole_file_numbered() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "alpha\nbeta\r\ngamma");
    let out = ok(tn::READ_FILE, json!({"path": s(&p)}));
    assert_eq!(out, "     1 | alpha\n     2 | beta\n     3 | gamma\n");
}

#[test]
fn read_file_range_and_continuation_hint() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", numbered_file(50));
    let out = ok(
        tn::READ_FILE,
        json!({"path": s(&p), "start_line": 10, "end_line": 12}),
    );
    assert!(
        out.starts_with("    10 | line 10\n    11 | line 11\n    12 | line 12\n"),
        "{out}"
    );
    assert!(
        out.contains("[showing lines 10-12 of 50; continue with start_line=13]"),
        "{out}"
    );
    let out = ok(
        tn::READ_FILE,
        json!({"path": s(&p), "start_line": 45, "limit": 3}),
    );
    assert!(
        out.contains("    47 | line 47\n[showing lines 45-47 of 50; continue with start_line=48]")
    );
    let out = ok(tn::READ_FILE, json!({"path": s(&p), "start_line": 49}));
    assert!(
        out.ends_with("    50 | line 50\n[end of file: 50 lines]\n"),
        "{out}"
    );
    // end_line past the end is clamped and says the length.
    let out = ok(
        tn::READ_FILE,
        json!({"path": s(&p), "start_line": 48, "end_line": 99}),
    );
    assert!(out.contains("[end of file: 50 lines]"), "{out}");
}

#[test]
fn read_file_default_limit_is_2000_and_streams_huge_files() {
    let (_d, root) = tmp();
    let p = put(&root, "big.txt", numbered_file(5000));
    let out = ok(tn::READ_FILE, json!({"path": s(&p)}));
    assert_eq!(out.lines().filter(|l| l.contains(" | ")).count(), 2000);
    assert!(out.contains("[showing lines 1-2000 of 5000; continue with start_line=2001]"));
}

#[test]
fn read_file_cuts_huge_lines() {
    let (_d, root) = tmp();
    let long = "é".repeat(10_000);
    let p = put(&root, "long.txt", format!("{long}\nshort\n"));
    let out = ok(tn::READ_FILE, json!({"path": s(&p)}));
    assert!(out.contains("… [line cut]"), "{}", &out[..100]);
    assert!(out.contains("     2 | short"));
    assert!(out.contains("[lines longer than 2000 characters were cut]"));
    assert!(
        !out.contains('\u{FFFD}'),
        "a cut inside a character is not invalid UTF-8"
    );
}

#[test]
fn read_file_empty_file() {
    let (_d, root) = tmp();
    let p = put(&root, "empty.txt", "");
    assert!(ok(tn::READ_FILE, json!({"path": s(&p)})).contains("is empty (0 lines)"));
}

#[test]
fn read_file_non_utf8_is_decoded_lossily_with_a_note() {
    let (_d, root) = tmp();
    let p = put(&root, "latin1.txt", b"caf\xe9\nok\n");
    let out = ok(tn::READ_FILE, json!({"path": s(&p)}));
    assert!(out.contains("caf\u{FFFD}"), "{out}");
    assert!(out.contains("not valid UTF-8"), "{out}");
}

#[test]
fn read_file_bad_inputs() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", numbered_file(5));
    let bin = put(&root, "b.bin", b"\x7fELF\x00\x01\x02");
    let e = err(tn::READ_FILE, json!({}));
    assert!(e.contains("missing field `path`"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": 5}));
    assert!(e.contains("path: expected a string, got a number"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&p), "bogus": 1}));
    assert!(e.contains("unknown field"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&p), "start_line": 0}));
    assert!(e.contains("1-based"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&p), "start_line": -3}));
    assert!(e.contains("invalid"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&p), "start_line": 9}));
    assert!(
        e.contains("past the end") && e.contains("has 5 lines"),
        "{e}"
    );
    let e = err(
        tn::READ_FILE,
        json!({"path": s(&p), "start_line": 4, "end_line": 2}),
    );
    assert!(e.contains("before start_line"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&p), "limit": 5000}));
    assert!(e.contains("limit must be between 1 and 2000"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&root.join("nope.txt"))}));
    assert!(
        e.contains("does not exist") && e.contains("list_files"),
        "{e}"
    );
    let e = err(tn::READ_FILE, json!({"path": s(&root)}));
    assert!(
        e.contains("is a directory") && e.contains("list_files"),
        "{e}"
    );
    let e = err(tn::READ_FILE, json!({"path": s(&bin)}));
    assert!(e.contains("binary") && e.contains("get_ast_outline"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&root.join("a.txt/child"))}));
    assert!(
        e.contains("not a directory") || e.contains("does not exist"),
        "{e}"
    );
    let e = err(tn::READ_FILE, json!({"path": ""}));
    assert!(e.contains("path is empty"), "{e}");
}

#[cfg(unix)]
#[test]
fn read_file_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    if permissions_bypassed() {
        eprintln!("skipped: running with permission bypass (root)");
        return;
    }
    let (_d, root) = tmp();
    let p = put(&root, "locked.txt", "x");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    let e = err(tn::READ_FILE, json!({"path": s(&p)}));
    assert!(e.contains("permission denied"), "{e}");
}

#[tokio::test]
async fn read_file_runs_through_the_async_path() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "hi\n");
    let out = registry()
        .dispatch(tn::READ_FILE, json!({"path": s(&p)}))
        .await
        .unwrap();
    assert_eq!(out, "     1 | hi\n");
}

// ---- list_files ----

fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let (d, root) = tmp();
    std::fs::create_dir_all(root.join(".git")).unwrap(); // makes .gitignore apply
    put(&root, ".gitignore", "ignored.log\nbuild/\n");
    put(&root, "ignored.log", "x");
    put(&root, "build/out.o", "x");
    put(&root, "src/main.rs", "fn main() {}");
    put(&root, "src/deep/a/b/c.rs", "");
    put(&root, ".env.example", "");
    put(&root, "node_modules/pkg/index.js", "");
    put(&root, "target/debug/x", "");
    put(&root, "secrets/key", "");
    put(&root, "README.md", "");
    (d, root)
}

#[test]
fn list_files_sorted_relative_gitignore_aware() {
    let (_d, root) = tree();
    let out = ok(tn::LIST_FILES, json!({"path": s(&root)}));
    assert_eq!(
        out,
        ".env.example\n.gitignore\nREADME.md\nsrc/\nsrc/deep/\nsrc/deep/a/\nsrc/main.rs\n"
    );
    let out = ok(tn::LIST_FILES, json!({"path": s(&root), "depth": 5}));
    assert!(out.contains("src/deep/a/b/c.rs\n"), "{out}");
    let out = ok(
        tn::LIST_FILES,
        json!({"path": s(&root), "depth": 1, "dirs_only": true}),
    );
    assert_eq!(out, "src/\n");
    let out = ok(
        tn::LIST_FILES,
        json!({"path": s(&root.join("src")), "depth": 1}),
    );
    assert_eq!(out, "deep/\nmain.rs\n");
}

#[test]
fn list_files_caps_output_with_notice() {
    let (_d, root) = tmp();
    for i in 0..1100 {
        put(&root, &format!("f{i:04}.txt"), "");
    }
    let out = ok(tn::LIST_FILES, json!({"path": s(&root)}));
    assert_eq!(out.lines().filter(|l| l.starts_with('f')).count(), 1000);
    assert!(out.contains("[listing capped at 1000 entries"), "{out}");
}

#[test]
fn list_files_bad_inputs() {
    let (_d, root) = tree();
    let e = err(tn::LIST_FILES, json!({"path": s(&root.join("README.md"))}));
    assert!(e.contains("is a file") && e.contains("read_file"), "{e}");
    let e = err(tn::LIST_FILES, json!({"path": s(&root.join("missing"))}));
    assert!(e.contains("does not exist"), "{e}");
    let e = err(tn::LIST_FILES, json!({"path": s(&root), "depth": 0}));
    assert!(e.contains("depth must be between 1 and 20"), "{e}");
    let e = err(tn::LIST_FILES, json!({"path": s(&root), "depth": "deep"}));
    assert!(
        e.contains("depth: expected a number (integer ≥ 0), got a string"),
        "{e}"
    );
    let (_e, empty) = tmp();
    assert!(ok(tn::LIST_FILES, json!({"path": s(&empty)})).contains("has no entries"));
}

// ---- search_file ----

#[test]
fn search_file_numbered_matches_with_context_and_separators() {
    let (_d, root) = tmp();
    let p = put(
        &root,
        "a.txt",
        "one\ntwo\nNEEDLE three\nfour\nfive\nsix\nseven\neight needle\nnine\n",
    );
    let out = ok(
        tn::SEARCH_FILE,
        json!({"path": s(&p), "query": "needle", "context_lines": 1}),
    );
    assert_eq!(
        out,
        format!(
            "2 matches for \"needle\" in {}:\n     2 | two\n>    3 | NEEDLE three\n     4 | four\n--\n     7 | seven\n>    8 | eight needle\n     9 | nine\n",
            s(&p)
        )
    );
    let out = ok(
        tn::SEARCH_FILE,
        json!({"path": s(&p), "query": "NEEDLE", "context_lines": 0}),
    );
    assert!(
        out.contains(">    3 | NEEDLE three\n--\n>    8 | eight needle\n"),
        "{out}"
    );
    let out = ok(tn::SEARCH_FILE, json!({"path": s(&p), "query": "absent"}));
    assert!(out.starts_with("No matches for \"absent\""), "{out}");
}

#[test]
fn search_file_caps_matches_with_notice() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "hit\n".repeat(150));
    let out = ok(
        tn::SEARCH_FILE,
        json!({"path": s(&p), "query": "HIT", "context_lines": 0}),
    );
    assert!(out.starts_with("150 matches"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with('>')).count(), 100);
    assert!(
        out.contains("[showing the first 100 of 150 matches"),
        "{out}"
    );
}

#[test]
fn search_file_says_when_a_huge_line_was_only_partly_searched() {
    let (_d, root) = tmp();
    let long = format!("{}NEEDLE\n", "x".repeat(2 * 1024 * 1024));
    let p = put(&root, "big.txt", format!("NEEDLE here\n{long}"));
    let out = ok(tn::SEARCH_FILE, json!({"path": s(&p), "query": "needle"}));
    assert!(out.starts_with("1 match"), "{}", &out[..200.min(out.len())]);
    assert!(
        out.contains("[1 line was longer than 1 MB: only the first 1 MB of each was searched"),
        "{}",
        &out[out.len().saturating_sub(300)..]
    );
}

#[test]
fn search_file_is_unicode_case_insensitive() {
    let (_d, root) = tmp();
    let p = put(&root, "u.txt", "Straße\nÉCOLE\n");
    assert!(
        ok(tn::SEARCH_FILE, json!({"path": s(&p), "query": "école"})).contains(">    2 | ÉCOLE")
    );
}

#[test]
fn search_file_bad_inputs() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "x\n");
    let bin = put(&root, "b.bin", b"ab\x00cd");
    let e = err(tn::SEARCH_FILE, json!({"path": s(&p)}));
    assert!(e.contains("missing field `query`"), "{e}");
    let e = err(tn::SEARCH_FILE, json!({"path": s(&p), "query": ""}));
    assert!(e.contains("query is empty"), "{e}");
    let e = err(
        tn::SEARCH_FILE,
        json!({"path": s(&p), "query": "x", "context_lines": 11}),
    );
    assert!(e.contains("between 0 and 10"), "{e}");
    let e = err(tn::SEARCH_FILE, json!({"path": s(&root), "query": "x"}));
    assert!(e.contains("is a directory"), "{e}");
    let e = err(tn::SEARCH_FILE, json!({"path": s(&bin), "query": "x"}));
    assert!(e.contains("binary"), "{e}");
    let e = err(
        tn::SEARCH_FILE,
        json!({"path": s(&root.join("no")), "query": "x"}),
    );
    assert!(e.contains("does not exist"), "{e}");
}
