//! Parallel edits of one file (issue 8, item 5): twenty calls at once, as
//! parallel tool calls in one assistant message make them. Every edit that
//! reports success is in the file; none is lost.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

mod common;

use std::sync::{Arc, Barrier};

use common::*;
use serde_json::{Value, json};
use skald_tools::tool_names as tn;

const N: usize = 20;

/// Runs `calls` on N threads released together; returns their results.
fn all_at_once(calls: Vec<(&'static str, Value)>) -> Vec<Result<String, String>> {
    let barrier = Arc::new(Barrier::new(calls.len()));
    let handles: Vec<_> = calls
        .into_iter()
        .map(|(name, args)| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                run(name, args).map_err(|e| e.to_string())
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn twenty_parallel_edit_file_calls_all_land() {
    let (_d, root) = tmp();
    let text: String = (0..N).map(|i| format!("marker-{i}\n")).collect();
    let p = put(&root, "f.txt", &text);
    let calls = (0..N)
        .map(|i| {
            (
                tn::EDIT_FILE,
                json!({"path": s(&p), "old_string": format!("marker-{i}\n"), "new_string": format!("done-{i}\n")}),
            )
        })
        .collect();
    let results = all_at_once(calls);
    let after = std::fs::read_to_string(&p).unwrap();
    for (i, r) in results.iter().enumerate() {
        let r = r
            .as_ref()
            .unwrap_or_else(|e| panic!("edit {i} failed: {e}"));
        assert!(r.starts_with("Edited"), "{r}");
        assert!(
            after.contains(&format!("done-{i}\n")),
            "edit {i} lost:\n{after}"
        );
    }
    assert!(!after.contains("marker-"), "{after}");
}

#[test]
fn twenty_parallel_inserts_all_land() {
    let (_d, root) = tmp();
    let p = put(&root, "f.txt", "first\n");
    let calls = (0..N)
        .map(|i| {
            (
                tn::INSERT_AT_LINE,
                json!({"path": s(&p), "line": 1, "content": format!("added-{i}"), "position": "after"}),
            )
        })
        .collect();
    for r in all_at_once(calls) {
        r.unwrap();
    }
    let after = std::fs::read_to_string(&p).unwrap();
    assert_eq!(after.lines().count(), N + 1, "{after}");
    for i in 0..N {
        assert!(
            after.contains(&format!("added-{i}\n")),
            "insert {i} lost:\n{after}"
        );
    }
}

#[test]
fn parallel_whole_file_writes_leave_one_intact_version() {
    let (_d, root) = tmp();
    let p = put(&root, "f.txt", "0\n");
    // Whole-file writes race by nature (the last one wins); what must hold
    // is that the winner is intact and no temp file is left.
    let calls = (0..N)
        .map(|i| {
            (
                tn::WRITE_FILE,
                json!({"path": s(&p), "content": format!("{i}\n").repeat(1000)}),
            )
        })
        .collect();
    for r in all_at_once(calls) {
        r.unwrap();
    }
    let after = std::fs::read_to_string(&p).unwrap();
    let first = after.lines().next().unwrap().to_string();
    assert!(after.lines().all(|l| l == first), "torn write");
    assert_eq!(after.lines().count(), 1000);
    // No temp file is left behind.
    let names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("f.txt")]);
}
