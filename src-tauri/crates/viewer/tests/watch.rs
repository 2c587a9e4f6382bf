//! Watching: renamed-over saves, deletes, re-creation, and files outside
//! the set staying quiet.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::sync::mpsc;
use std::time::Duration;

use skald_viewer::{Change, FileWatcher};

fn next(rx: &mpsc::Receiver<Vec<Change>>) -> Vec<Change> {
    rx.recv_timeout(Duration::from_secs(5)).expect("a change")
}

/// Batches until `want` arrives (one save can span two debounce windows,
/// so an earlier path may repeat); every change seen must be in `allowed`.
fn until(rx: &mpsc::Receiver<Vec<Change>>, want: &Change, allowed: &[&std::path::Path]) {
    loop {
        let batch = next(rx);
        for c in &batch {
            assert!(allowed.contains(&c.path.as_path()), "unexpected {c:?}");
        }
        if batch.contains(want) {
            return;
        }
    }
}

fn save(path: &std::path::Path, text: &str) {
    let tmp = path.with_extension("swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn saves_deletes_and_recreation_are_reported_for_watched_files_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let a = dir.join("a.tex");
    let b = dir.join("sub/b.tex");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(&a, "a").unwrap();
    std::fs::write(&b, "b").unwrap();
    let (tx, rx) = mpsc::channel();
    let mut w = FileWatcher::new(Duration::from_millis(100), move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    w.set_files(&[a.clone(), b.clone()]).unwrap();

    let both = [a.as_path(), b.as_path()];
    let change = |p: &std::path::Path, exists| Change {
        path: p.to_path_buf(),
        exists,
    };
    save(&a, "a2");
    until(&rx, &change(&a, true), &both);

    std::fs::write(dir.join("unrelated.txt"), "x").unwrap();
    std::fs::write(&b, "b2").unwrap();
    until(&rx, &change(&b, true), &both);

    std::fs::remove_file(&a).unwrap();
    until(&rx, &change(&a, false), &both);
    std::fs::write(&a, "back").unwrap();
    until(&rx, &change(&a, true), &both);

    // A smaller set: b is no longer reported.
    w.set_files(std::slice::from_ref(&a)).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    while rx.try_recv().is_ok() {}
    std::fs::write(&b, "b3").unwrap();
    save(&a, "a3");
    until(&rx, &change(&a, true), &[a.as_path()]);
    while let Ok(batch) = rx.recv_timeout(Duration::from_millis(400)) {
        assert!(batch.iter().all(|c| c.path == a), "{batch:?}");
    }
}

#[test]
fn a_file_that_does_not_exist_yet_is_watched_for() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let later = dir.join("later.tex");
    let (tx, rx) = mpsc::channel();
    let mut w = FileWatcher::new(Duration::from_millis(100), move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    w.set_files(std::slice::from_ref(&later)).unwrap();
    std::fs::write(&later, "now").unwrap();
    assert_eq!(
        next(&rx),
        [Change {
            path: later,
            exists: true
        }]
    );
}

#[test]
fn reading_a_watched_file_is_not_a_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let f = dir.join("shown.pdf");
    std::fs::write(&f, "x").unwrap();
    let (tx, rx) = mpsc::channel();
    let mut w = FileWatcher::new(Duration::from_millis(100), move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    w.set_files(std::slice::from_ref(&f)).unwrap();
    for _ in 0..5 {
        assert_eq!(std::fs::read(&f).unwrap(), b"x");
    }
    assert!(rx.recv_timeout(Duration::from_millis(500)).is_err());
    std::fs::write(&f, "y").unwrap();
    assert_eq!(
        next(&rx),
        [Change {
            path: f,
            exists: true
        }]
    );
}
