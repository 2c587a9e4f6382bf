//! Check-then-use races (issue 8, item 2): a thread swaps a directory for a
//! symlink into `secrets/` (`renameat2(RENAME_EXCHANGE)`) as fast as it can
//! while every file tool works on paths through that directory, and another
//! swaps a regular file for a FIFO. Each run is bounded in time; the tools
//! must never return a secret byte, never create or change anything under
//! `secrets/`, and never hang.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::*;
use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};
use skald_tools::tool_names as tn;

const MARKER: &str = "SKALD-RACE-SECRET-9e1d";
/// How long each tool is raced.
const RACE_FOR: Duration = Duration::from_millis(1500);
/// A single call taking this long counts as a hang.
const HANG: Duration = Duration::from_secs(10);

/// `w/pub/` (a plain directory) and `w/swap` (a symlink to `secrets`),
/// exchanged by the swapper; `secrets/k.txt` looks like `pub/k.txt` so an
/// edit that reached it would succeed.
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let (dir, tmp_root) = tmp();
    let root = tmp_root.join("w");
    put(&root, "pub/k.txt", "PUBLIC line\n");
    put(&root, "secrets/k.txt", format!("PUBLIC line {MARKER}\n"));
    std::os::unix::fs::symlink("secrets", root.join("swap")).unwrap();
    (dir, root)
}

/// Exchanges `a` and `b` in a loop until `stop`; counts the swaps.
fn swapper(a: PathBuf, b: PathBuf, stop: Arc<AtomicBool>, swaps: Arc<AtomicUsize>) {
    while !stop.load(Ordering::Relaxed) {
        if renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).is_ok() {
            swaps.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let bytes = std::fs::read(&p).unwrap_or_default();
            (p.file_name().unwrap().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    out.sort();
    out
}

/// Runs `name` with `args` in a loop against the swapper for [`RACE_FOR`];
/// returns (calls, escapes). Panics on a hang.
fn race(root: &Path, name: &'static str, args: Value) -> (usize, usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swap = {
        let (a, b) = (root.join("pub"), root.join("swap"));
        let (stop, swaps) = (stop.clone(), swaps.clone());
        std::thread::spawn(move || swapper(a, b, stop, swaps))
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let deadline = Instant::now() + RACE_FOR;
        let mut calls = 0;
        let mut escapes = 0;
        while Instant::now() < deadline {
            let text = match run(name, args.clone()) {
                Ok(s) => s,
                Err(e) => e.to_string(),
            };
            calls += 1;
            if text.contains(MARKER) {
                escapes += 1;
            }
        }
        let _ = tx.send((calls, escapes));
    });
    let got = rx.recv_timeout(RACE_FOR + HANG);
    stop.store(true, Ordering::Relaxed);
    swap.join().unwrap();
    let (calls, escapes) = got.unwrap_or_else(|_| panic!("{name} hung during the race"));
    worker.join().unwrap();
    assert!(
        swaps.load(Ordering::Relaxed) > 100,
        "the swapper barely ran"
    );
    // Leave the fixture as it started for the next tool.
    if root.join("pub").is_symlink() {
        renameat_with(
            CWD,
            root.join("pub"),
            CWD,
            root.join("swap"),
            RenameFlags::EXCHANGE,
        )
        .unwrap();
    }
    (calls, escapes)
}

#[test]
fn a_directory_swapped_for_a_symlink_never_leaks_to_a_read_tool() {
    let (_d, root) = fixture();
    let file = s(&root.join("pub/k.txt"));
    let dir = s(&root.join("pub"));
    let cases: Vec<(&'static str, Value)> = vec![
        (tn::READ_FILE, json!({"path": file})),
        (tn::SEARCH_FILE, json!({"path": file, "query": "PUBLIC"})),
        (tn::GREP_FILES, json!({"path": dir, "pattern": "PUBLIC"})),
        (tn::GREP_FILES, json!({"path": file, "pattern": "PUBLIC"})),
    ];
    for (name, args) in cases {
        let (calls, escapes) = race(&root, name, args.clone());
        assert_eq!(
            escapes, 0,
            "{name} {args}: {escapes} of {calls} calls leaked"
        );
        assert!(calls > 10, "{name}: only {calls} calls");
    }
}

#[test]
fn a_directory_swapped_for_a_symlink_never_lets_a_write_into_secrets() {
    let (_d, root) = fixture();
    let before = snapshot(&root.join("secrets"));
    let file = s(&root.join("pub/k.txt"));
    let cases: Vec<(&'static str, Value)> = vec![
        (
            tn::WRITE_FILE,
            json!({"path": s(&root.join("pub/new.txt")), "content": "planted"}),
        ),
        (
            tn::WRITE_FILE,
            json!({"path": file, "content": "PUBLIC line\n"}),
        ),
        (
            tn::EDIT_FILE,
            json!({"path": file, "old_string": "PUBLIC line", "new_string": "PUBLIC line"}),
        ),
        (
            tn::INSERT_AT_LINE,
            json!({"path": file, "line": 1, "content": "x", "position": "after"}),
        ),
        (
            tn::REPLACE_LINES,
            json!({"path": file, "start_line": 1, "end_line": 1, "new_content": "PUBLIC line"}),
        ),
    ];
    for (name, args) in cases {
        race(&root, name, args.clone());
        assert_eq!(
            snapshot(&root.join("secrets")),
            before,
            "{name} {args} changed secrets/"
        );
        // Undo the inserts so the file keeps one line to replace.
        std::fs::write(root.join("pub/k.txt"), "PUBLIC line\n").unwrap();
    }
}

#[test]
fn a_file_swapped_for_a_fifo_never_hangs_a_read() {
    let (_d, root) = tmp();
    put(&root, "f.txt", "text\n");
    rustix::fs::mkfifoat(
        CWD,
        root.join("fifo"),
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swap = {
        let (a, b) = (root.join("f.txt"), root.join("fifo"));
        let (stop, swaps) = (stop.clone(), swaps.clone());
        std::thread::spawn(move || swapper(a, b, stop, swaps))
    };
    let path = s(&root.join("f.txt"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let deadline = Instant::now() + RACE_FOR;
        let mut calls = 0usize;
        while Instant::now() < deadline {
            for (name, args) in [
                (tn::READ_FILE, json!({"path": path})),
                (tn::SEARCH_FILE, json!({"path": path, "query": "t"})),
                (tn::GREP_FILES, json!({"path": path, "pattern": "t"})),
                (
                    tn::EDIT_FILE,
                    json!({"path": path, "old_string": "text", "new_string": "text!"}),
                ),
            ] {
                let _ = run(name, args);
                calls += 1;
            }
        }
        let _ = tx.send(calls);
    });
    let got = rx.recv_timeout(RACE_FOR + HANG);
    stop.store(true, Ordering::Relaxed);
    swap.join().unwrap();
    let calls = got.expect("a read blocked on a FIFO swapped in");
    assert!(calls > 10, "only {calls} calls");
}
