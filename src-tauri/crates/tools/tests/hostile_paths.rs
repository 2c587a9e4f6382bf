//! Hostile paths: a table of ways to reach `secrets/` (traversal, absolute
//! paths, symlinks to files and directories, relative and dangling symlinks,
//! symlink loops, trailing slashes, case variants, missing intermediate
//! directories, a parent directory as the search root) run through every read
//! tool, `get_ast_outline` included. A unique marker is planted in every secret file; it must never
//! appear in any output or error. Positive controls (`secretsX/`,
//! `secrets.txt`) prove the rule does not over-block.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
#![cfg(unix)]

mod common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::{Value, json};
use skald_core_api::ToolError;
use skald_tools::ToolRegistry;
use skald_tools::fs::SECRETS_DENIED;
use skald_tools::tool_names as tn;

const MARKER: &str = "SKALD-SECRET-MARKER-7f3a9c";
const ALLOWED: &str = "PLAIN-ALLOWED-CONTENT";

/// The fs tools plus `get_ast_outline`: it reads files too, but lives outside
/// `skald_tools::fs`, so the shared test registry does not hold it.
fn read_registry() -> ToolRegistry {
    let mut r = registry();
    skald_tools::ast_outline::register(&mut r);
    r
}

fn run_read(name: &str, args: Value) -> Result<String, ToolError> {
    let r = read_registry();
    let tool = r.get(name).unwrap_or_else(|| panic!("no tool {name}"));
    tool.execute(args)
}

fn err_read(name: &str, args: Value) -> String {
    match run_read(name, args.clone()) {
        Ok(s) => panic!("{name} {args} unexpectedly succeeded: {s}"),
        Err(e) => e.to_string(),
    }
}

/// `<tmp>/ws/proj` with secrets in several spellings and links into them.
struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    root: PathBuf,
}

fn fixture() -> Fixture {
    let (dir, tmp_root) = tmp();
    let ws = tmp_root.join("ws");
    let root = ws.join("proj");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    // An ignore file trying to un-ignore secrets changes nothing.
    put(&root, ".ignore", "!secrets/\n!Secrets/\n");
    put(&root, "secrets/api.key", format!("key={MARKER}\n"));
    put(&root, "secrets/sub/deep.txt", format!("{MARKER}\n"));
    put(&root, "Secrets/x.txt", format!("{MARKER}\n"));
    put(&root, "SECRETS/y", format!("{MARKER}\n"));
    put(&root, "nested/a/secrets/z.env", format!("Z={MARKER}\n"));
    put(&root, "secretsX/ok.txt", format!("{ALLOWED}\n"));
    put(&root, "secrets.txt", format!("{ALLOWED}\n"));
    put(&root, "docs/readme.md", "docs\n");
    put(&ws, "secrets/outside.key", format!("{MARKER}\n"));
    symlink(root.join("secrets/api.key"), root.join("link_file")).unwrap();
    symlink(root.join("secrets"), root.join("link_dir")).unwrap();
    symlink("secrets/sub", root.join("rel_link")).unwrap();
    symlink("../proj/secrets/api.key", root.join("docs/rel_up_link")).unwrap();
    symlink(root.join("secrets/new.key"), root.join("dangling")).unwrap();
    symlink(root.join("docs/readme.md"), root.join("secrets/out_link")).unwrap();
    symlink(root.join("secrets/sub"), root.join("docs/deep_link")).unwrap();
    symlink(root.join("loop_b"), root.join("loop_a")).unwrap();
    symlink(root.join("loop_a"), root.join("loop_b")).unwrap();
    Fixture {
        _dir: dir,
        ws,
        root,
    }
}

/// Runs every read tool on `path` (as given) and returns all outputs/errors.
fn run_all_read_tools(path: &str) -> Vec<(String, String)> {
    let calls: Vec<(&str, Value)> = vec![
        (tn::READ_FILE, json!({"path": path})),
        (tn::SEARCH_FILE, json!({"path": path, "query": "="})),
        // Queries that match the marker without spelling it (outputs echo
        // the query).
        (
            tn::SEARCH_FILE,
            json!({"path": path, "query": "secret-marker"}),
        ),
        (tn::GREP_FILES, json!({"path": path, "pattern": "."})),
        (
            tn::GREP_FILES,
            json!({"path": path, "pattern": "SKALD-SECRET-MARK.R", "output_mode": "files_only"}),
        ),
        (
            tn::GREP_FILES,
            json!({"path": path, "pattern": "SKALD", "include_glob": "**/secrets/**", "output_mode": "count"}),
        ),
        (tn::LIST_FILES, json!({"path": path, "depth": 20})),
        (tn::GET_AST_OUTLINE, json!({"path": path})),
    ];
    calls
        .into_iter()
        .map(|(name, args)| {
            let text = match run_read(name, args.clone()) {
                Ok(s) => s,
                Err(e) => e.to_string(),
            };
            (format!("{name} {args}"), text)
        })
        .collect()
}

fn assert_no_secret(results: &[(String, String)]) {
    for (call, text) in results {
        assert!(!text.contains(MARKER), "{call} leaked the secret:\n{text}");
        assert!(
            !text.contains("api.key") && !text.contains("deep.txt") && !text.contains("z.env"),
            "{call} leaked a secret file name:\n{text}"
        );
    }
}

fn abs(root: &Path, rel: &str) -> String {
    format!("{}/{rel}", root.display())
}

#[test]
fn no_read_tool_reveals_a_secret_by_any_path() {
    let f = fixture();
    let r = &f.root;
    let cases: Vec<String> = vec![
        abs(r, "secrets/api.key"),
        abs(r, "secrets"),
        abs(r, "secrets/"),
        abs(r, "secrets/."),
        abs(r, "secrets/sub/"),
        abs(r, "docs/../secrets/api.key"),
        abs(r, "docs/../secrets"),
        abs(r, "docs/./../secrets/sub/deep.txt"),
        abs(r, "missing/../secrets/api.key"),
        abs(r, "secrets/missing/deeper.txt"),
        abs(r, "secrets/new.key"),
        abs(r, "Secrets/x.txt"),
        abs(r, "SECRETS/y"),
        abs(r, "SeCrEtS/api.key"),
        abs(r, "nested/a/secrets/z.env"),
        abs(r, "nested/a/secrets"),
        abs(r, "link_file"),
        abs(r, "link_dir"),
        abs(r, "link_dir/"),
        abs(r, "link_dir/api.key"),
        abs(r, "link_dir/sub/deep.txt"),
        abs(r, "rel_link/deep.txt"),
        abs(r, "rel_link"),
        abs(r, "docs/rel_up_link"),
        abs(r, "docs/deep_link/../../secrets/api.key"),
        abs(r, "docs/deep_link/../api.key"),
        abs(r, "dangling"),
        abs(r, "secrets/out_link"),
        abs(r, "loop_a"),
        abs(r, "loop_a/x"),
        abs(&f.ws, "secrets/outside.key"),
        abs(&f.ws, "proj/../secrets"),
        // Parent directories as search/list roots.
        r.display().to_string(),
        abs(r, "."),
        abs(r, "docs/.."),
        abs(r, "nested"),
        f.ws.display().to_string(),
    ];
    for path in &cases {
        let results = run_all_read_tools(path);
        assert_no_secret(&results);
    }
}

#[test]
fn relative_hostile_paths_through_effective_args() {
    let f = fixture();
    let reg = read_registry();
    for rel in [
        "docs/../secrets/api.key",
        "secrets/",
        "link_dir/api.key",
        "link_file",
        "rel_link/deep.txt",
        "./secrets/sub/deep.txt",
        "../proj/secrets/api.key",
        "../secrets/outside.key",
    ] {
        for (name, extra) in [
            (tn::READ_FILE, json!({})),
            (tn::SEARCH_FILE, json!({"query": "="})),
            (tn::GREP_FILES, json!({"pattern": "."})),
            (tn::LIST_FILES, json!({})),
            (tn::GET_AST_OUTLINE, json!({})),
        ] {
            let mut args = extra.clone();
            args["path"] = json!(rel);
            let args = reg.effective_args(name, args, &f.root);
            let text = match reg.get(name).unwrap().execute(args) {
                Ok(s) => s,
                Err(e) => e.to_string(),
            };
            assert!(!text.contains(MARKER), "{name} {rel}: {text}");
            // Every one of these resolves into a secrets/ directory.
            if name == tn::READ_FILE || name == tn::GET_AST_OUTLINE {
                assert_eq!(text, SECRETS_DENIED, "{name} {rel}");
            }
        }
    }
}

#[test]
fn direct_secret_access_is_denied_with_the_policy_message() {
    let f = fixture();
    for rel in [
        "secrets/api.key",
        "secrets/",
        "docs/../secrets/api.key",
        "link_file",
        "link_dir",
        "dangling",
        "secrets/out_link",
        "SECRETS/y",
        "secrets/does-not-exist",
    ] {
        let path = abs(&f.root, rel);
        let e = err(tn::READ_FILE, json!({"path": path}));
        assert!(
            e.contains("access denied") && e.contains("secrets/"),
            "{rel}: {e}"
        );
        let e = err(tn::GREP_FILES, json!({"path": path, "pattern": "."}));
        assert!(e.contains("access denied"), "{rel}: {e}");
        let e = err_read(tn::GET_AST_OUTLINE, json!({"path": path}));
        assert_eq!(e, SECRETS_DENIED, "{rel}");
    }
    // Existence is not revealed: a missing secret gets the same error.
    let a = err(
        tn::READ_FILE,
        json!({"path": abs(&f.root, "secrets/api.key")}),
    );
    let b = err(tn::READ_FILE, json!({"path": abs(&f.root, "secrets/nope")}));
    assert_eq!(a, b);
    let a = err_read(
        tn::GET_AST_OUTLINE,
        json!({"path": abs(&f.root, "secrets/api.key")}),
    );
    let b = err_read(
        tn::GET_AST_OUTLINE,
        json!({"path": abs(&f.root, "secrets/nope")}),
    );
    assert_eq!(a, b);
}

#[test]
fn write_tools_are_refused_under_secrets_too() {
    let f = fixture();
    let key = abs(&f.root, "secrets/api.key");
    let before = std::fs::read(f.root.join("secrets/api.key")).unwrap();
    for (name, args) in [
        (tn::WRITE_FILE, json!({"path": key, "content": "x"})),
        (
            tn::EDIT_FILE,
            json!({"path": key, "old_string": "key", "new_string": "x"}),
        ),
        (
            tn::INSERT_AT_LINE,
            json!({"path": key, "line": 1, "content": "x"}),
        ),
        (
            tn::REPLACE_LINES,
            json!({"path": key, "start_line": 1, "end_line": 1, "new_content": "x"}),
        ),
        (
            tn::WRITE_FILE,
            json!({"path": abs(&f.root, "link_dir/new"), "content": "x"}),
        ),
        (
            tn::WRITE_FILE,
            json!({"path": abs(&f.root, "dangling"), "content": "x"}),
        ),
    ] {
        let e = err(name, args);
        assert!(
            e.contains("access denied") && !e.contains(MARKER),
            "{name}: {e}"
        );
    }
    assert_eq!(
        std::fs::read(f.root.join("secrets/api.key")).unwrap(),
        before
    );
    assert!(!f.root.join("secrets/new.key").exists());
}

#[test]
fn lookalikes_are_readable_and_listed() {
    let f = fixture();
    let out = ok(
        tn::READ_FILE,
        json!({"path": abs(&f.root, "secretsX/ok.txt")}),
    );
    assert!(out.contains(ALLOWED));
    let out = ok(tn::READ_FILE, json!({"path": abs(&f.root, "secrets.txt")}));
    assert!(out.contains(ALLOWED));
    for rel in ["secretsX/ok.txt", "secrets.txt"] {
        let path = abs(&f.root, rel);
        let out = run_read(tn::GET_AST_OUTLINE, json!({"path": path}))
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(out.starts_with(&path), "{rel}: {out}");
    }
    let out = ok(
        tn::GREP_FILES,
        json!({"path": f.root.display().to_string(), "pattern": ALLOWED, "output_mode": "files_only"}),
    );
    assert!(out.contains("secrets.txt\nsecretsX/ok.txt\n"), "{out}");
    let out = ok(
        tn::LIST_FILES,
        json!({"path": f.root.display().to_string()}),
    );
    assert!(
        out.contains("secretsX/ok.txt") && out.contains("secrets.txt"),
        "{out}"
    );
    // Secret directories are not even listed; links resolving into them neither.
    for hidden in [
        "secrets/",
        "Secrets/",
        "SECRETS/",
        "link_dir",
        "link_file",
        "dangling",
        "rel_link",
    ] {
        assert!(
            !out.lines().any(|l| l == hidden || l.starts_with(hidden)),
            "{hidden} in {out}"
        );
    }
    assert!(out.contains("docs/readme.md"), "{out}");
}
