//! What the UI and the model see of the fs tools without running them:
//! registration, schemas, labels (length limits, multi-byte), target_path and
//! effective_args.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};
use skald_core_api::{RestartHint, ToolCategory, ToolDescriptionLength as L};
use skald_tools::tool_names as tn;

const ALL: [&str; 8] = [
    tn::LIST_FILES,
    tn::READ_FILE,
    tn::WRITE_FILE,
    tn::EDIT_FILE,
    tn::INSERT_AT_LINE,
    tn::REPLACE_LINES,
    tn::SEARCH_FILE,
    tn::GREP_FILES,
];

fn label(name: &str, args: Value, len: L) -> String {
    registry().describe_call(name, &args, len)
}

#[test]
fn all_registered_as_filesystem_with_typed_schemas() {
    let r = registry();
    assert_eq!(r.len(), ALL.len());
    for name in ALL {
        let t = r.get(name).unwrap();
        assert_eq!(t.category(), ToolCategory::Filesystem, "{name}");
        let schema = t.parameters_schema();
        assert_eq!(schema["type"], "object", "{name}");
        for (field, spec) in schema["properties"].as_object().unwrap() {
            assert!(
                spec.get("description").is_some(),
                "{name}.{field} lacks a description"
            );
        }
        assert!(t.description().len() > 80, "{name}");
    }
    let s = r.get(tn::GREP_FILES).unwrap().parameters_schema();
    assert_eq!(s["required"], json!(["pattern"]));
    assert!(
        r.get(tn::GREP_FILES)
            .unwrap()
            .description()
            .contains("instead of grep/rg")
    );
    let s = r.get(tn::INSERT_AT_LINE).unwrap().parameters_schema();
    assert!(s.to_string().contains("\"before\"") && s.to_string().contains("\"after\""));
}

#[test]
fn restart_hints() {
    let r = registry();
    for name in [tn::EDIT_FILE, tn::INSERT_AT_LINE, tn::REPLACE_LINES] {
        assert_eq!(r.restart_hint(name), Some(RestartHint::Reask), "{name}");
    }
    for name in [
        tn::READ_FILE,
        tn::WRITE_FILE,
        tn::GREP_FILES,
        tn::LIST_FILES,
    ] {
        assert_eq!(r.restart_hint(name), Some(RestartHint::Rerun), "{name}");
    }
}

#[test]
fn labels_show_paths_ranges_and_patterns() {
    let cwd = std::env::current_dir().unwrap();
    let abs = |p: &str| cwd.join(p).to_string_lossy().into_owned();
    assert_eq!(
        label(
            tn::READ_FILE,
            json!({"path": abs("src/main.rs"), "start_line": 10, "end_line": 40}),
            L::Short
        ),
        "read_file src/main.rs:10-40"
    );
    assert_eq!(
        label(tn::READ_FILE, json!({"path": "src/main.rs"}), L::Short),
        "read_file src/main.rs"
    );
    assert_eq!(
        label(tn::EDIT_FILE, json!({"path": abs("src/lib.rs")}), L::Short),
        "edit_file src/lib.rs"
    );
    assert_eq!(
        label(tn::WRITE_FILE, json!({"path": "/etc/x.conf"}), L::Short),
        "write_file /etc/x.conf"
    );
    assert_eq!(
        label(
            tn::INSERT_AT_LINE,
            json!({"path": "a.rs", "line": 12}),
            L::Short
        ),
        "insert_at_line a.rs:12"
    );
    assert_eq!(
        label(
            tn::REPLACE_LINES,
            json!({"path": "a.rs", "start_line": 3, "end_line": 5}),
            L::Short
        ),
        "replace_lines a.rs:3-5"
    );
    assert_eq!(
        label(
            tn::GREP_FILES,
            json!({"pattern": "fn new", "path": abs("src")}),
            L::Short
        ),
        "grep_files \"fn new\" in src"
    );
    assert_eq!(
        label(
            tn::GREP_FILES,
            json!({"pattern": "x", "include_glob": "*.rs"}),
            L::Short
        ),
        "grep_files \"x\" (*.rs)"
    );
    assert_eq!(
        label(
            tn::SEARCH_FILE,
            json!({"query": "todo", "path": "a.md"}),
            L::Short
        ),
        "search_file \"todo\" in a.md"
    );
    assert_eq!(label(tn::LIST_FILES, json!({}), L::Short), "list_files .");
    assert_eq!(
        label(tn::LIST_FILES, json!({"path": abs("")}), L::Short),
        "list_files ."
    );
    // Missing/mistyped args still label.
    assert_eq!(
        label(tn::READ_FILE, json!({"path": 3}), L::Short),
        "read_file"
    );
    assert_eq!(label(tn::READ_FILE, Value::Null, L::Short), "read_file");
}

#[test]
fn long_and_multibyte_labels_fit_and_keep_the_file_name() {
    let deep = format!(
        "/very/{}/deeply/nested/path/to/the/file_name.rs",
        "dir/".repeat(40)
    );
    for len in [L::Short, L::Full] {
        for name in ALL {
            let args = json!({"path": deep, "pattern": "p".repeat(300), "query": "q".repeat(300),
                              "start_line": 100000, "end_line": 200000, "line": 5});
            let l = label(name, args, len);
            assert!(l.chars().count() <= len.max_chars(), "{name}: {l}");
            assert!(l.starts_with(name), "{l}");
        }
        let l = label(
            tn::READ_FILE,
            json!({"path": deep, "start_line": 1, "end_line": 2}),
            len,
        );
        assert!(l.ends_with("file_name.rs:1-2"), "{l}");
        assert!(l.contains('…'), "{l}");
    }
    let jp = format!("/データ/{}/ファイル.md", "長い名前".repeat(30));
    let l = label(tn::EDIT_FILE, json!({"path": jp}), L::Short);
    assert!(l.chars().count() <= 60 && l.ends_with("ファイル.md"), "{l}");
    let l = label(
        tn::GREP_FILES,
        json!({"pattern": "🦀".repeat(100), "path": "src"}),
        L::Short,
    );
    assert!(l.chars().count() <= 60 && l.ends_with(" in src"), "{l}");
}

#[test]
fn target_path_only_for_single_file_tools() {
    let r = registry();
    let args = json!({"path": "/p/a.rs", "pattern": "x", "query": "x"});
    for name in [
        tn::READ_FILE,
        tn::WRITE_FILE,
        tn::EDIT_FILE,
        tn::INSERT_AT_LINE,
        tn::REPLACE_LINES,
        tn::SEARCH_FILE,
    ] {
        assert_eq!(
            r.target_path(name, &args),
            Some("/p/a.rs".to_string()),
            "{name}"
        );
        assert_eq!(r.target_path(name, &json!({})), None, "{name}");
    }
    for name in [tn::LIST_FILES, tn::GREP_FILES] {
        assert_eq!(r.target_path(name, &args), None, "{name}");
    }
}

#[test]
fn effective_args_make_paths_absolute_against_workdir() {
    let r = registry();
    let wd = Path::new("/work/proj");
    for name in ALL {
        let out = r.effective_args(name, json!({"path": "src/a.rs", "content": "keep"}), wd);
        assert_eq!(
            out,
            json!({"path": "/work/proj/src/a.rs", "content": "keep"}),
            "{name}"
        );
        let out = r.effective_args(name, json!({"path": "/abs/a.rs"}), wd);
        assert_eq!(out, json!({"path": "/abs/a.rs"}), "{name}");
        let out = r.effective_args(name, json!({"path": "./b"}), wd);
        assert_eq!(out, json!({"path": "/work/proj/b"}), "{name}");
        assert_eq!(r.effective_args(name, json!("junk"), wd), json!("junk"));
    }
    // Directory tools default to "." = the workdir: filled in.
    for name in [tn::LIST_FILES, tn::GREP_FILES] {
        let out = r.effective_args(name, json!({"pattern": "x"}), wd);
        assert_eq!(out, json!({"pattern": "x", "path": "/work/proj"}), "{name}");
        let out = r.effective_args(name, json!({"path": "."}), wd);
        assert_eq!(out, json!({"path": "/work/proj"}), "{name}");
    }
    // Single-file tools: no path stays no path (parse reports it).
    let out = r.effective_args(tn::READ_FILE, json!({"start_line": 1}), wd);
    assert_eq!(out, json!({"start_line": 1}));
}

#[test]
fn effective_args_then_execute_acts_in_workdir() {
    let (_d, root) = tmp();
    put(&root, "notes/a.txt", "hello\n");
    let r = registry();
    let args = r.effective_args(tn::READ_FILE, json!({"path": "notes/a.txt"}), &root);
    assert_eq!(
        r.get(tn::READ_FILE).unwrap().execute(args).unwrap(),
        "     1 | hello\n"
    );
}

#[test]
fn labels_are_relative_to_the_display_base_when_one_is_set() {
    let work = Path::new("/srv/project");
    let args = json!({"path": "/srv/project/src/main.rs", "start_line": 3, "end_line": 9});
    let in_session = skald_tools::fs::with_display_base(Some(work), || {
        // Nested: an inner base wins, the outer one comes back after.
        let inner = skald_tools::fs::with_display_base(Some(Path::new("/srv/project/src")), || {
            label(tn::READ_FILE, args.clone(), L::Short)
        });
        assert_eq!(inner, "read_file main.rs:3-9");
        label(tn::READ_FILE, args.clone(), L::Short)
    });
    assert_eq!(in_session, "read_file src/main.rs:3-9");
    // Outside the base: the absolute path stays.
    let elsewhere = skald_tools::fs::with_display_base(Some(work), || {
        label(tn::WRITE_FILE, json!({"path": "/etc/x.conf"}), L::Short)
    });
    assert_eq!(elsewhere, "write_file /etc/x.conf");
    // No base: back to the process's directory.
    assert_eq!(
        label(tn::READ_FILE, args, L::Short),
        "read_file /srv/project/src/main.rs:3-9"
    );
}

/// `get_ast_outline` lives outside `skald_tools::fs` (so outside the shared
/// test registry) but labels its path the way the fs tools do.
fn outline_label(args: Value, len: L) -> String {
    let mut r = registry();
    skald_tools::ast_outline::register(&mut r);
    r.describe_call(tn::GET_AST_OUTLINE, &args, len)
}

#[test]
fn ast_outline_labels_are_relative_to_the_display_base_and_fit() {
    use skald_tools::fs::with_display_base;
    let work = Path::new("/srv/project");
    let abs_args = json!({"path": "/srv/project/src/main.rs"});
    let in_session = with_display_base(Some(work), || outline_label(abs_args.clone(), L::Short));
    assert_eq!(in_session, "get_ast_outline `src/main.rs`");
    // What a session stores is the effective (absolute) form of what the
    // model wrote; the card shows it relative again.
    let mut r = registry();
    skald_tools::ast_outline::register(&mut r);
    for written in ["src/main.rs", "./src/main.rs"] {
        let stored = r.effective_args(tn::GET_AST_OUTLINE, json!({"path": written}), work);
        assert!(
            Path::new(stored["path"].as_str().unwrap()).is_absolute(),
            "{stored}"
        );
        let shown = with_display_base(Some(work), || {
            r.describe_call(tn::GET_AST_OUTLINE, &stored, L::Short)
        });
        assert_eq!(shown, "get_ast_outline `src/main.rs`", "{written}");
    }
    // Outside the base: the absolute path stays.
    let elsewhere = with_display_base(Some(work), || {
        outline_label(json!({"path": "/etc/x.conf"}), L::Short)
    });
    assert_eq!(elsewhere, "get_ast_outline `/etc/x.conf`");
    // No base: relative to the process's directory.
    assert_eq!(
        outline_label(abs_args, L::Short),
        "get_ast_outline `/srv/project/src/main.rs`"
    );
    let cwd = std::env::current_dir().unwrap();
    let under_cwd = cwd.join("src/lib.rs").to_string_lossy().into_owned();
    assert_eq!(
        outline_label(json!({"path": under_cwd}), L::Short),
        "get_ast_outline `src/lib.rs`"
    );
    // Missing or mistyped paths still label.
    for args in [
        json!({}),
        json!({"path": 3}),
        json!({"path": "  "}),
        Value::Null,
    ] {
        assert_eq!(outline_label(args, L::Short), "get_ast_outline");
    }

    // Long and multi-byte paths, under the base and outside it, fit the
    // limits and keep the file name.
    let deep_rel = format!("{}deeply/nested/file_name.rs", "dir/".repeat(40));
    let deep_in = format!("/srv/project/{deep_rel}");
    let deep_out = format!("/very/{deep_rel}");
    let jp = format!("/srv/project/データ/{}/ファイル.md", "長い名前".repeat(30));
    for len in [L::Short, L::Full] {
        for path in [&deep_in, &deep_out, &jp] {
            let l = with_display_base(Some(work), || outline_label(json!({"path": path}), len));
            assert!(l.chars().count() <= len.max_chars(), "{len:?}: {l}");
            assert!(l.starts_with("get_ast_outline `…"), "{l}");
            assert!(
                l.ends_with("file_name.rs`") || l.ends_with("ファイル.md`"),
                "{l}"
            );
        }
    }
    // Under the base the full label drops the base: its room goes to the
    // path's own directories.
    let full = with_display_base(Some(work), || {
        outline_label(json!({"path": deep_in}), L::Full)
    });
    assert!(!full.contains("/srv/project"), "{full}");
    let short_rel = "src/a/b/c/d/e/f/g/h/i/j/k/lib.rs";
    let fits = with_display_base(Some(work), || {
        outline_label(
            json!({"path": format!("/srv/project/{short_rel}")}),
            L::Full,
        )
    });
    assert_eq!(fits, format!("get_ast_outline `{short_rel}`"));
}
