//! grep_files (and the `fs::grep` engine it formats) on real temp trees.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

mod common;

use std::path::PathBuf;

use common::*;
use serde_json::json;
use skald_tools::fs::grep::{GrepOptions, OutputMode, grep};
use skald_tools::tool_names as tn;

fn tree() -> (tempfile::TempDir, PathBuf) {
    let (d, root) = tmp();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    put(&root, ".gitignore", "*.log\n");
    put(
        &root,
        "src/main.rs",
        "fn main() {\n    let x = Foo::new();\n}\n",
    );
    put(
        &root,
        "src/lib.rs",
        "pub struct Foo;\nimpl Foo {\n    pub fn new() -> Self { Foo }\n}\n",
    );
    put(
        &root,
        "src/util/helpers.rs",
        "// nothing\nfn new_helper() {}\n",
    );
    put(&root, "README.md", "Call Foo::new() to start.\n");
    put(&root, "debug.log", "fn new() in a log\n");
    put(&root, ".hidden/conf.rs", "fn new() hidden\n");
    put(&root, "node_modules/m/index.js", "fn new()\n");
    put(&root, "target/x.rs", "fn new()\n");
    put(&root, "bin.dat", b"fn new()\x00\x01");
    (d, root)
}

#[test]
fn engine_returns_sorted_relative_structured_matches() {
    let (_d, root) = tree();
    let mut opts = GrepOptions::new(r"fn\s+new\(");
    opts.mode = OutputMode::Content;
    let out = grep(&root, &opts).unwrap();
    let paths: Vec<_> = out
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    // Hidden searched; gitignored, SKIP_DIRS and the binary file are not.
    assert_eq!(paths, vec![".hidden/conf.rs", "src/lib.rs"]);
    assert_eq!(out.files[1].lines[0].number, 3);
    assert!(out.files[1].lines[0].is_match);
    assert_eq!(out.total_matches(), 2);
}

#[test]
fn content_mode_headings_numbers_and_context() {
    let (_d, root) = tree();
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "foo::new", "context_lines": 1}),
    );
    assert_eq!(
        out,
        format!(
            "2 matching lines in 2 files for \"foo::new\" in {}:\nREADME.md\n1:Call Foo::new() to start.\n\nsrc/main.rs\n1-fn main() {{\n2:    let x = Foo::new();\n3-}}\n\n",
            s(&root)
        )
    );
}

#[test]
fn case_sensitivity_default_is_insensitive() {
    let (_d, root) = tree();
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "FOO::NEW", "output_mode": "files_only"}),
    );
    assert!(out.contains("README.md\nsrc/main.rs\n"), "{out}");
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "FOO::NEW", "case_sensitive": true}),
    );
    assert!(out.starts_with("No matches"), "{out}");
}

#[test]
fn include_glob_files_only_and_count() {
    let (_d, root) = tree();
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "foo", "include_glob": "*.rs", "output_mode": "count"}),
    );
    assert!(out.contains("src/lib.rs:3\nsrc/main.rs:1\n"), "{out}");
    assert!(!out.contains("README"), "{out}");
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "new", "include_glob": "src/**/*.rs", "output_mode": "files_only"}),
    );
    assert!(
        out.ends_with("src/lib.rs\nsrc/main.rs\nsrc/util/helpers.rs\n"),
        "{out}"
    );
}

#[test]
fn paging_with_offset() {
    let (_d, root) = tmp();
    for i in 0..5 {
        put(&root, &format!("f{i}.txt"), "hit\nhit\n");
    }
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "hit", "max_results": 3}),
    );
    assert!(
        out.contains("f0.txt\n1:hit\n2:hit\n\nf1.txt\n1:hit\n\n"),
        "{out}"
    );
    assert!(
        out.contains("[showing matching lines 1-3 of 10; call again with offset=3 for more]"),
        "{out}"
    );
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "hit", "max_results": 3, "offset": 3}),
    );
    assert!(
        out.contains("f1.txt\n2:hit\n\nf2.txt\n1:hit\n2:hit\n"),
        "{out}"
    );
    assert!(out.contains("offset=6"), "{out}");
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "hit", "offset": 8}),
    );
    assert!(
        out.contains("f4.txt\n1:hit\n2:hit\n") && !out.contains("offset="),
        "{out}"
    );
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "hit", "output_mode": "files_only", "max_results": 2, "offset": 2}),
    );
    assert!(
        out.contains("f2.txt\nf3.txt\n[showing files 3-4 of 5; call again with offset=4"),
        "{out}"
    );
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "hit", "offset": 50}),
    );
    assert!(out.contains("offset 50 is past the end"), "{out}");
}

#[test]
fn long_lines_are_cut() {
    let (_d, root) = tmp();
    put(
        &root,
        "min.js",
        format!("{}needle{}\n", "a".repeat(600), "b".repeat(600)),
    );
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "needle"}),
    );
    assert!(out.contains("… [line cut]"), "{out}");
    assert!(out.len() < 1000, "{}", out.len());
}

#[test]
fn single_file_root_and_path_default() {
    let (_d, root) = tree();
    let out = ok(
        tn::GREP_FILES,
        json!({"path": s(&root.join("src/lib.rs")), "pattern": "impl"}),
    );
    assert!(out.contains("lib.rs\n2:impl Foo {"), "{out}");
    // No path: the current directory (the crate dir here) is searched.
    let out = ok(
        tn::GREP_FILES,
        json!({"pattern": "skald-tools", "include_glob": "Cargo.toml", "output_mode": "files_only"}),
    );
    assert!(out.contains("Cargo.toml"), "{out}");
}

#[test]
fn bad_inputs() {
    let (_d, root) = tree();
    let e = err(tn::GREP_FILES, json!({"path": s(&root), "pattern": "fn ("}));
    assert!(
        e.starts_with("invalid regex \"fn (\": unclosed group"),
        "{e}"
    );
    let e = err(tn::GREP_FILES, json!({"path": s(&root)}));
    assert!(e.contains("missing field `pattern`"), "{e}");
    let e = err(tn::GREP_FILES, json!({"path": s(&root), "pattern": ""}));
    assert!(e.contains("pattern is empty"), "{e}");
    let e = err(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "x", "output_mode": "lines"}),
    );
    assert!(
        e.contains(r#"output_mode: expected one of "content", "files_only", "count", got "lines""#),
        "{e}"
    );
    let e = err(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "x", "context_lines": 20}),
    );
    assert!(e.contains("between 0 and 10"), "{e}");
    let e = err(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "x", "max_results": 0}),
    );
    assert!(e.contains("max_results"), "{e}");
    let e = err(
        tn::GREP_FILES,
        json!({"path": s(&root), "pattern": "x", "include_glob": "a{b"}),
    );
    assert!(e.contains("invalid include_glob"), "{e}");
    let e = err(
        tn::GREP_FILES,
        json!({"path": s(&root.join("missing")), "pattern": "x"}),
    );
    assert!(e.contains("does not exist"), "{e}");
}

#[test]
fn stops_early_at_the_memory_cap() {
    let (_d, root) = tmp();
    put(&root, "a.txt", "hit\n".repeat(100));
    let mut opts = GrepOptions::new("hit");
    opts.max_collected_lines = 10;
    let out = grep(&root, &opts).unwrap();
    assert!(out.stopped_early);
}

#[test]
fn a_cancelled_search_ends_at_the_next_file() {
    let (_d, root) = tmp();
    for i in 0..200 {
        put(&root, &format!("f{i}.txt"), "hit\n");
    }
    let mut opts = GrepOptions::new("hit");
    opts.cancel = Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
        true,
    )));
    let out = grep(&root, &opts).unwrap();
    assert!(out.cancelled);
    assert_eq!(out.files_searched, 0);
    assert!(out.files.is_empty());
    // The same search without the flag sees every file.
    opts.cancel = None;
    let out = grep(&root, &opts).unwrap();
    assert!(!out.cancelled);
    assert_eq!(out.files_searched, 200);
}

#[test]
fn a_newline_in_a_file_name_cannot_forge_headings() {
    let (_d, root) = tmp();
    put(&root, "a.txt\n1:forged", "hit\n");
    put(&root, "b\u{1b}[2K.txt", "hit\n");
    let out = ok(tn::GREP_FILES, json!({"path": s(&root), "pattern": "hit"}));
    assert_eq!(
        out,
        format!(
            "2 matching lines in 2 files for \"hit\" in {}:\na.txt\\n1:forged\n1:hit\n\nb\\u{{1b}}[2K.txt\n1:hit\n\n",
            s(&root)
        )
    );
    for mode in ["files_only", "count"] {
        let out = ok(
            tn::GREP_FILES,
            json!({"path": s(&root), "pattern": "hit", "output_mode": mode}),
        );
        assert!(out.contains("a.txt\\n1:forged"), "{out}");
        assert!(!out.lines().any(|l| l.starts_with("1:forged")), "{out}");
        assert!(!out.contains('\u{1b}'), "{out}");
    }
}
