//! Write previews never copy a secret into the DB or the approval card.

use serde_json::json;
use skald_approval::predict_write;
use skald_tools::{BuiltinDeps, builtin_registry};

#[test]
fn a_preview_never_reads_a_secret_even_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key.txt"), "TOPSECRET\n").unwrap();
    std::fs::create_dir_all(root.join("g")).unwrap();
    std::os::unix::fs::symlink("../secrets/key.txt", root.join("g/keylink")).unwrap();

    let registry = builtin_registry(&BuiltinDeps::default());
    let edit = registry.get("edit_file").unwrap().as_ref();
    for path in [
        root.join("g/keylink"),
        root.join("g/../secrets/key.txt"),
        root.join("secrets/key.txt"),
    ] {
        let args = json!({"path": path, "old_string": "TOPSECRET", "new_string": "x"});
        let preview = predict_write(edit, &args).unwrap();
        assert_eq!(preview.old, None, "{}", path.display());
        assert_eq!(preview.new, None, "{}", path.display());
    }

    // An ordinary file still gets its diff.
    std::fs::write(root.join("g/plain.txt"), "a\nb\n").unwrap();
    let args = json!({"path": root.join("g/plain.txt"), "old_string": "b", "new_string": "c"});
    let preview = predict_write(edit, &args).unwrap();
    assert_eq!(preview.old.as_deref(), Some("a\nb\n"));
    assert_eq!(preview.new.as_deref(), Some("a\nc\n"));
}

#[test]
fn the_preview_is_what_the_tool_writes() {
    use skald_core_api::{CancellationToken, ExecutionOutcome, drive_execution};

    let dir = tempfile::tempdir().unwrap();
    let registry = builtin_registry(&BuiltinDeps::default());
    let cases = [
        (
            "edit_file",
            "a\r\nb\r\nc\r\n",
            json!({"old_string": "b", "new_string": "x\ny"}),
        ),
        (
            "insert_at_line",
            "a\nb",
            json!({"line": 2, "content": "new\n", "position": "after"}),
        ),
        (
            "replace_lines",
            "1\r\n2\r\n3\r\n",
            json!({"start_line": 2, "end_line": 3, "new_content": "two\n"}),
        ),
        ("write_file", "old\n", json!({"content": "fresh\n"})),
    ];
    let rt = tokio::runtime::Runtime::new().unwrap();
    for (i, (tool, before, extra)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("f{i}.txt"));
        std::fs::write(&path, before).unwrap();
        let mut args = extra;
        args["path"] = json!(path);
        let predicted = predict_write(registry.get(tool).unwrap().as_ref(), &args)
            .unwrap()
            .new
            .unwrap();
        let exec = registry.run(tool, args.clone()).unwrap();
        let outcome = rt.block_on(drive_execution(exec.as_ref(), CancellationToken::new()));
        assert!(
            matches!(outcome, ExecutionOutcome::Completed(_)),
            "{tool}: {outcome:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), predicted, "{tool}");
    }
}
