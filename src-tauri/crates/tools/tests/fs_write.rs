//! write_file, edit_file, insert_at_line and replace_lines on real temp
//! files: happy paths, line-ending preservation, every bad input, and
//! atomicity (a failing call leaves the file byte-identical).
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

mod common;

use common::*;
use serde_json::json;
use skald_tools::tool_names as tn;

fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

// ---- write_file ----

#[test]
fn write_file_creates_parents_and_reports() {
    let (_d, root) = tmp();
    let p = root.join("new/dir/file.txt");
    let out = ok(tn::WRITE_FILE, json!({"path": s(&p), "content": "a\nb\n"}));
    assert_eq!(out, format!("Created {} (4 bytes, 2 lines)", s(&p)));
    assert_eq!(read(&p), "a\nb\n");
    let out = ok(tn::WRITE_FILE, json!({"path": s(&p), "content": "ü"}));
    assert_eq!(out, format!("Overwrote {} (2 bytes, 1 line)", s(&p)));
    assert_eq!(read(&p), "ü");
    // No temp files left behind.
    let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[cfg(unix)]
#[test]
fn write_file_keeps_permissions_and_symlinks() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let (_d, root) = tmp();
    let p = put(&root, "script.sh", "old");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o751)).unwrap();
    ok(tn::WRITE_FILE, json!({"path": s(&p), "content": "new"}));
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o751);
    // Writing through a symlink updates the target and keeps the link.
    let link = root.join("link.sh");
    symlink(&p, &link).unwrap();
    ok(
        tn::WRITE_FILE,
        json!({"path": s(&link), "content": "via link"}),
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&p), "via link");
    // New files get normal (umask-filtered) permissions, not 0600.
    let n = root.join("fresh.txt");
    ok(tn::WRITE_FILE, json!({"path": s(&n), "content": ""}));
    let mode = std::fs::metadata(&n).unwrap().permissions().mode() & 0o777;
    assert_ne!(mode, 0o600, "tempfile's private mode leaked");
}

#[test]
fn write_file_bad_inputs() {
    let (_d, root) = tmp();
    let f = put(&root, "file", "x");
    let e = err(tn::WRITE_FILE, json!({"path": s(&root.join("a"))}));
    assert!(e.contains("missing field `content`"), "{e}");
    let e = err(tn::WRITE_FILE, json!({"path": s(&root), "content": "x"}));
    assert!(e.contains("is a directory"), "{e}");
    let e = err(
        tn::WRITE_FILE,
        json!({"path": s(&f.join("child.txt")), "content": "x"}),
    );
    assert!(e.contains("not a directory") || e.contains("file"), "{e}");
    assert_eq!(read(&f), "x");
}

#[cfg(unix)]
#[test]
fn fifos_are_refused_not_blocked_on() {
    let (_d, root) = tmp();
    let fifo = root.join("pipe");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let e = err(tn::WRITE_FILE, json!({"path": s(&fifo), "content": "x"}));
    assert!(e.contains("not a regular file"), "{e}");
    let e = err(tn::READ_FILE, json!({"path": s(&fifo)}));
    assert!(e.contains("not a regular file"), "{e}");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&fifo), "old_string": "a", "new_string": "b"}),
    );
    assert!(e.contains("not a regular file"), "{e}");
}

#[cfg(unix)]
#[test]
fn write_tools_refuse_read_only_files_and_dirs() {
    use std::os::unix::fs::PermissionsExt;
    if permissions_bypassed() {
        eprintln!("skipped: running with permission bypass (root)");
        return;
    }
    let (_d, root) = tmp();
    let p = put(&root, "ro.txt", "keep\n");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let e = err(tn::WRITE_FILE, json!({"path": s(&p), "content": "x"}));
    assert!(e.contains("permission denied"), "{e}");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "keep", "new_string": "x"}),
    );
    assert!(e.contains("permission denied"), "{e}");
    assert_eq!(read(&p), "keep\n");
    let dir = root.join("rodir");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let e = err(
        tn::WRITE_FILE,
        json!({"path": s(&dir.join("x")), "content": "x"}),
    );
    assert!(e.contains("permission denied"), "{e}");
}

// ---- edit_file ----

#[test]
fn edit_file_unique_replace() {
    let (_d, root) = tmp();
    let p = put(&root, "a.rs", "fn a() {}\nfn b() {}\n");
    let out = ok(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "fn b() {}", "new_string": "fn b() { 1 }"}),
    );
    assert!(out.contains("replaced 1 occurrence at line 2"), "{out}");
    assert_eq!(read(&p), "fn a() {}\nfn b() { 1 }\n");
}

#[test]
fn edit_file_counts_ambiguous_matches_and_replace_all() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "x = 1\nx = 1\nx = 1\n");
    let before = std::fs::read(&p).unwrap();
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "x = 1", "new_string": "y"}),
    );
    assert!(
        e.contains("matches 3 times") && e.contains("replace_all"),
        "{e}"
    );
    assert_eq!(
        std::fs::read(&p).unwrap(),
        before,
        "failed edit must not touch the file"
    );
    let out = ok(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "x = 1", "new_string": "y", "replace_all": true}),
    );
    assert!(out.contains("replaced 3 occurrences"), "{out}");
    assert_eq!(read(&p), "y\ny\ny\n");
}

#[test]
fn edit_file_not_found_suggests_read_file() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "hello\n");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "bye", "new_string": "x"}),
    );
    assert!(e.contains("not found") && e.contains("read_file"), "{e}");
    assert_eq!(read(&p), "hello\n");
}

#[test]
fn edit_file_preserves_crlf() {
    let (_d, root) = tmp();
    let p = put(&root, "w.txt", "one\r\ntwo\r\nthree\r\n");
    ok(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "one\ntwo\n", "new_string": "uno\ndos\nextra\n"}),
    );
    assert_eq!(read(&p), "uno\r\ndos\r\nextra\r\nthree\r\n");
    // Single-line edits in a CRLF file leave the endings alone.
    ok(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "three", "new_string": "3"}),
    );
    assert_eq!(read(&p), "uno\r\ndos\r\nextra\r\n3\r\n");
    // A one-line match replaced by several lines: the new breaks are CRLF.
    ok(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "dos", "new_string": "x\ny"}),
    );
    assert_eq!(read(&p), "uno\r\nx\r\ny\r\nextra\r\n3\r\n");
}

#[test]
fn edit_file_leaves_a_mixed_file_as_written() {
    let (_d, root) = tmp();
    let p = put(&root, "m.txt", "a\r\nb\nc\n");
    ok(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "b", "new_string": "x\ny"}),
    );
    assert_eq!(read(&p), "a\r\nx\ny\nc\n");
}

#[test]
fn edit_file_bad_inputs_leave_file_identical() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "same\n");
    let latin = put(&root, "l.txt", b"caf\xe9\n");
    let bin = put(&root, "b.bin", b"a\x00b");
    let before = std::fs::read(&p).unwrap();
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "", "new_string": "x"}),
    );
    assert!(e.contains("old_string is empty"), "{e}");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&p), "old_string": "same", "new_string": "same"}),
    );
    assert!(e.contains("identical"), "{e}");
    let e = err(tn::EDIT_FILE, json!({"path": s(&p), "old_string": "same"}));
    assert!(e.contains("missing field `new_string`"), "{e}");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&latin), "old_string": "caf", "new_string": "x"}),
    );
    assert!(e.contains("not valid UTF-8"), "{e}");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&bin), "old_string": "a", "new_string": "x"}),
    );
    assert!(e.contains("binary"), "{e}");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&root.join("no")), "old_string": "a", "new_string": "x"}),
    );
    assert!(e.contains("does not exist"), "{e}");
    let e = err(
        tn::EDIT_FILE,
        json!({"path": s(&root), "old_string": "a", "new_string": "x"}),
    );
    assert!(e.contains("is a directory"), "{e}");
    assert_eq!(std::fs::read(&p).unwrap(), before);
    assert_eq!(std::fs::read(&latin).unwrap(), b"caf\xe9\n");
}

// ---- insert_at_line ----

#[test]
fn insert_before_after_and_append() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "1\n2\n3\n");
    let out = ok(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 2, "content": "x"}),
    );
    assert!(
        out.contains("Inserted 1 line") && out.contains("at line 2"),
        "{out}"
    );
    assert_eq!(read(&p), "1\nx\n2\n3\n");
    ok(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 4, "content": "y\nz\n", "position": "after"}),
    );
    assert_eq!(read(&p), "1\nx\n2\n3\ny\nz\n");
    ok(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 7, "content": "end"}),
    );
    assert_eq!(read(&p), "1\nx\n2\n3\ny\nz\nend\n");
    ok(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 1, "content": "top"}),
    );
    assert!(read(&p).starts_with("top\n1\n"));
}

#[test]
fn insert_preserves_crlf_and_missing_trailing_newline() {
    let (_d, root) = tmp();
    let p = put(&root, "w.txt", "a\r\nb");
    ok(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 2, "content": "c\n", "position": "after"}),
    );
    assert_eq!(read(&p), "a\r\nb\r\nc");
    ok(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 1, "content": "z"}),
    );
    assert_eq!(read(&p), "z\r\na\r\nb\r\nc");
    let e = put(&root, "empty.txt", "");
    ok(
        tn::INSERT_AT_LINE,
        json!({"path": s(&e), "line": 1, "content": "first"}),
    );
    assert_eq!(read(&e), "first\n");
}

#[test]
fn insert_bad_inputs() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "1\n2\n");
    let e = err(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 0, "content": "x"}),
    );
    assert!(e.contains("1-based"), "{e}");
    let e = err(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 5, "content": "x"}),
    );
    assert!(
        e.contains("past the end") && e.contains("has 2 lines") && e.contains("line=3"),
        "{e}"
    );
    let e = err(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 3, "content": "x", "position": "after"}),
    );
    assert!(e.contains("has 2 lines"), "{e}");
    let e = err(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 1, "content": "x", "position": "middle"}),
    );
    assert!(
        e.contains(r#"position: expected "before" or "after", got "middle""#),
        "{e}"
    );
    let e = err(
        tn::INSERT_AT_LINE,
        json!({"path": s(&p), "line": 1, "content": ""}),
    );
    assert!(e.contains("content is empty"), "{e}");
    assert_eq!(read(&p), "1\n2\n");
}

// ---- replace_lines ----

#[test]
fn replace_lines_range_and_delete() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "1\n2\n3\n4\n");
    let out = ok(
        tn::REPLACE_LINES,
        json!({"path": s(&p), "start_line": 2, "end_line": 3, "new_content": "two-three"}),
    );
    assert!(
        out.contains("Replaced lines 2-3") && out.contains("file now has 3 lines"),
        "{out}"
    );
    assert_eq!(read(&p), "1\ntwo-three\n4\n");
    ok(
        tn::REPLACE_LINES,
        json!({"path": s(&p), "start_line": 3, "end_line": 3, "new_content": ""}),
    );
    assert_eq!(read(&p), "1\ntwo-three\n");
    ok(
        tn::REPLACE_LINES,
        json!({"path": s(&p), "start_line": 1, "end_line": 1, "new_content": "\n"}),
    );
    assert_eq!(read(&p), "\ntwo-three\n");
}

#[test]
fn replace_lines_preserves_crlf_and_no_trailing_newline() {
    let (_d, root) = tmp();
    let p = put(&root, "w.txt", "a\r\nb\r\nc");
    ok(
        tn::REPLACE_LINES,
        json!({"path": s(&p), "start_line": 3, "end_line": 3, "new_content": "C\nD\n"}),
    );
    assert_eq!(read(&p), "a\r\nb\r\nC\r\nD");
    ok(
        tn::REPLACE_LINES,
        json!({"path": s(&p), "start_line": 1, "end_line": 1, "new_content": "A"}),
    );
    assert_eq!(read(&p), "A\r\nb\r\nC\r\nD");
}

#[test]
fn replace_lines_bad_ranges_leave_file_identical() {
    let (_d, root) = tmp();
    let p = put(&root, "a.txt", "1\n2\n3\n");
    for (a, b, want) in [
        (0, 1, "1-based"),
        (3, 2, "before start_line"),
        (2, 9, "has 3 lines"),
        (7, 9, "has 3 lines"),
    ] {
        let e = err(
            tn::REPLACE_LINES,
            json!({"path": s(&p), "start_line": a, "end_line": b, "new_content": "x"}),
        );
        assert!(e.contains(want), "{a}-{b}: {e}");
    }
    let e = err(
        tn::REPLACE_LINES,
        json!({"path": s(&p), "start_line": 1, "end_line": 1}),
    );
    assert!(e.contains("missing field `new_content`"), "{e}");
    assert_eq!(read(&p), "1\n2\n3\n");
}

#[tokio::test]
async fn write_tools_run_through_the_async_path() {
    let (_d, root) = tmp();
    let p = root.join("x.txt");
    registry()
        .dispatch(tn::WRITE_FILE, json!({"path": s(&p), "content": "a\n"}))
        .await
        .unwrap();
    assert_eq!(read(&p), "a\n");
}
