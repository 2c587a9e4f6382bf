//! `get_ast_outline` through the tool: real files, the read gate, and the
//! ways a path can be wrong.

use std::path::Path;

use serde_json::{Value, json};
use skald_core_api::{RestartHint, Tool, ToolCategory, ToolDescriptionLength, ToolError};
use skald_tools::ast_outline::{GetAstOutline, MAX_OUTLINE_FILE_BYTES};
use skald_tools::fs::SECRETS_DENIED;
use skald_tools::tool_names as tn;

async fn outline(args: Value) -> Result<String, ToolError> {
    GetAstOutline::new().execute_async(args).await
}

async fn outline_path(path: &Path) -> Result<String, ToolError> {
    outline(json!({ "path": path })).await
}

const PYTHON: &str = "\
import os


def greet(name):
    return f\"hi {name}\"


class Greeter:
    def __init__(self, name):
        self.name = name

    def run(self):
        print(greet(self.name))
";

const RUST: &str = "\
use std::fmt;

pub struct Point {
    x: i32,
    y: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, \"({}, {})\", self.x, self.y)
    }
}

pub fn origin() -> Point {
    Point { x: 0, y: 0 }
}
";

#[tokio::test]
async fn python_outline_with_header() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("greet.py");
    std::fs::write(&file, PYTHON).unwrap();
    let out = outline_path(&file).await.unwrap();
    let (header, body) = out.split_once('\n').unwrap();
    assert_eq!(header, format!("{} (python, 13 lines)", file.display()));
    insta::assert_snapshot!(body, @r"
    4-5 | function greet
    8-13 | class Greeter
      9-10 | method __init__
      12-13 | method run
    ");
}

#[tokio::test]
async fn rust_outline_with_header() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("point.rs");
    std::fs::write(&file, RUST).unwrap();
    let out = outline_path(&file).await.unwrap();
    let (header, body) = out.split_once('\n').unwrap();
    assert_eq!(header, format!("{} (rust, 16 lines)", file.display()));
    insta::assert_snapshot!(body, @r"
    3-6 | struct Point
    8-12 | impl fmt::Display for Point
      9-11 | method fmt
    14-16 | function origin
    ");
}

#[tokio::test]
async fn relative_path_through_effective_args() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/greet.py"), PYTHON).unwrap();
    let tool = GetAstOutline::new();
    let args = tool.effective_args(json!({"path": "src/greet.py"}), dir.path());
    let abs = dir.path().join("src/greet.py");
    assert_eq!(args, json!({"path": abs}));
    assert_eq!(tool.target_path(&args), Some(abs.display().to_string()));
    let out = tool.execute_async(args).await.unwrap();
    assert!(out.starts_with(&format!("{} (python,", abs.display())));
    // Absolute paths are left alone.
    let same = tool.effective_args(json!({"path": "/x/y.py"}), dir.path());
    assert_eq!(same, json!({"path": "/x/y.py"}));
}

#[tokio::test]
async fn secrets_are_denied_even_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join("secrets");
    std::fs::create_dir(&secrets).unwrap();
    let key = secrets.join("keys.py");
    std::fs::write(&key, "API_KEY = 'x'\n").unwrap();
    let denied = ToolError::Failed(SECRETS_DENIED.to_string());
    assert_eq!(outline_path(&key).await.unwrap_err(), denied);
    let link = dir.path().join("innocent.py");
    std::os::unix::fs::symlink(&key, &link).unwrap();
    assert_eq!(outline_path(&link).await.unwrap_err(), denied);
    let sneaky = dir.path().join("src/../secrets/keys.py");
    assert_eq!(outline_path(&sneaky).await.unwrap_err(), denied);
    // Denied before existence is checked: nothing is revealed.
    let missing = secrets.join("nope.py");
    assert_eq!(outline_path(&missing).await.unwrap_err(), denied);
}

#[tokio::test]
async fn missing_file_directory_binary_and_huge_files_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();

    let missing = dir.path().join("nope.py");
    let e = outline_path(&missing).await.unwrap_err();
    assert_eq!(
        e,
        ToolError::Failed(format!(
            "`{}` does not exist; check the path (list_files shows what is there)",
            missing.display()
        ))
    );

    let e = outline_path(dir.path()).await.unwrap_err();
    assert_eq!(
        e,
        ToolError::Failed(format!(
            "`{}` is a directory; get_ast_outline takes a file (list_files shows what it holds)",
            dir.path().display()
        ))
    );

    let bin = dir.path().join("blob.py");
    std::fs::write(&bin, b"def f():\n\x00\x01\x02 pass\n").unwrap();
    let e = outline_path(&bin).await.unwrap_err();
    assert_eq!(
        e,
        ToolError::Failed(format!(
            "`{}` is a binary file; get_ast_outline outlines source text",
            bin.display()
        ))
    );

    let huge = dir.path().join("huge.py");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(MAX_OUTLINE_FILE_BYTES + 1)
        .unwrap();
    let e = outline_path(&huge).await.unwrap_err().to_string();
    assert!(e.contains("over the 5 MB limit of get_ast_outline"), "{e}");
}

#[tokio::test]
async fn empty_and_unknown_files_still_answer() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.py");
    std::fs::write(&empty, "").unwrap();
    let out = outline_path(&empty).await.unwrap();
    assert_eq!(
        out,
        format!(
            "{} (python, 0 lines)\n{}",
            empty.display(),
            skald_codeintel::EMPTY_OUTLINE
        )
    );
    let notes = dir.path().join("notes.xyz");
    std::fs::write(&notes, "just some words\n").unwrap();
    let out = outline_path(&notes).await.unwrap();
    assert_eq!(
        out,
        format!(
            "{} (text, 1 line)\n{}",
            notes.display(),
            skald_codeintel::NO_OUTLINE_FOR_TYPE
        )
    );
}

#[tokio::test]
async fn bad_arguments() {
    for args in [
        json!({}),
        json!({"path": 3}),
        json!({"path": "a", "x": 1}),
        json!({"path": "  "}),
    ] {
        let e = outline(args.clone()).await.unwrap_err();
        assert!(e.is_invalid_arguments(), "{args}: {e}");
    }
}

#[test]
fn definition_and_labels() {
    let tool = GetAstOutline::new();
    assert_eq!(tool.name(), tn::GET_AST_OUTLINE);
    assert_eq!(tool.category(), ToolCategory::Filesystem);
    assert_eq!(tool.restart_hint(), RestartHint::Rerun);
    assert!(tool.description().contains("START-END | kind name"));
    assert!(tool.description().contains(tn::READ_FILE));
    let s = tool.parameters_schema();
    assert_eq!(s["required"], json!(["path"]));
    let short = ToolDescriptionLength::Short;
    assert_eq!(
        tool.describe(&json!({"path": "src/main.rs"}), short),
        "get_ast_outline `src/main.rs`"
    );
    assert_eq!(tool.describe(&json!({}), short), "get_ast_outline");
    let long = format!("/{}/deep/file.rs", "dir".repeat(60));
    let label = tool.describe(&json!({"path": long}), short);
    assert_eq!(label.chars().count(), 60);
    assert!(label.starts_with("get_ast_outline `…"), "{label}");
    assert!(label.ends_with("/deep/file.rs`"), "{label}");
    let full = tool.describe(&json!({"path": long}), ToolDescriptionLength::Full);
    assert_eq!(full.chars().count(), 120);
    let registry = skald_tools::builtin_registry(&Default::default());
    assert_eq!(
        registry.category_of(tn::GET_AST_OUTLINE),
        Some(ToolCategory::Filesystem)
    );
}
