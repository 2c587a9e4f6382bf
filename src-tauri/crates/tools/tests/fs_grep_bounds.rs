//! grep_files' bounds (issue 8, items 3 and 12): a pattern's cost is capped
//! with a clear error, a stop ends the search inside a long file, and what
//! could not be searched is said, never a silent "No matches". Every call
//! that could hang runs under a guard thread, so a regression fails instead
//! of hanging the suite.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::*;
use rustix::fs::{CWD, Mode, OFlags, RenameFlags, mkfifoat, renameat_with};
use serde_json::{Value, json};
use skald_tools::fs::grep::{GrepOptions, GrepOutcome, grep};
use skald_tools::tool_names as tn;

/// Generous: only a hang (or today's minutes-long searches) comes near it.
const GUARD: Duration = Duration::from_secs(60);

/// Runs `f` on its own thread; panics if it has not finished within GUARD.
fn guarded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(GUARD)
        .unwrap_or_else(|_| panic!("{what} did not finish within {GUARD:?}"))
}

fn run_guarded(args: Value) -> Result<String, String> {
    guarded("grep_files", move || {
        run(tn::GREP_FILES, args).map_err(|e| e.to_string())
    })
}

fn mkfifo(path: &Path) {
    mkfifoat(CWD, path, Mode::from_raw_mode(0o644)).unwrap();
}

// ---- pattern caps -------------------------------------------------------

#[test]
fn a_long_counted_pattern_is_refused_at_once() {
    let (_d, root) = tmp();
    let long = put(&root, "long.txt", format!("{}\n", "a".repeat(100_000)));
    let e = run_guarded(json!({"pattern": "a{40000}", "path": s(&long)})).unwrap_err();
    assert_eq!(
        e,
        "invalid arguments for grep_files: pattern repeats too much: \"a{40000}\" asks for 40000 repetitions, at most 1000 (the counts of nested repetitions multiply); use a smaller count, or + or *"
    );
    let e = run_guarded(json!({"pattern": "(?:a{100}b){50}", "path": s(&long)})).unwrap_err();
    assert!(e.contains("asks for 5000 repetitions"), "{e}");
    // The largest count allowed still searches the long line.
    let out = run_guarded(json!({"pattern": "a{1000}", "path": s(&long), "output_mode": "count"}));
    assert_eq!(
        out.unwrap(),
        format!(
            "1 matching lines in 1 files for \"a{{1000}}\" in {}:\nlong.txt:1\n",
            s(&long)
        )
    );
}

#[test]
fn a_megabyte_pattern_is_refused_at_once() {
    let (_d, root) = tmp();
    put(&root, "f.txt", "text\n");
    let pattern = "x".repeat(1 << 20);
    let e = run_guarded(json!({"pattern": pattern, "path": s(&root)})).unwrap_err();
    assert_eq!(
        e,
        "invalid arguments for grep_files: pattern is 1048576 bytes long; the limit is 4096 (search for a shorter, distinctive part of the text)"
    );
}

#[test]
fn search_file_refuses_a_megabyte_query_too() {
    let (_d, root) = tmp();
    let f = put(&root, "f.txt", "text\n");
    let query = "x".repeat(1 << 20);
    let e = guarded("search_file", move || {
        run(tn::SEARCH_FILE, json!({"path": s(&f), "query": query})).unwrap_err()
    });
    assert_eq!(
        e.to_string(),
        "invalid arguments for search_file: query is 1048576 bytes long; the limit is 4096 (search for a shorter, distinctive part of the text)"
    );
}

#[test]
fn a_pattern_too_big_once_compiled_is_refused() {
    let (_d, root) = tmp();
    put(&root, "f.txt", "text\n");
    let e = run_guarded(json!({"pattern": r"\w{500}", "path": s(&root)})).unwrap_err();
    assert!(
        e.starts_with("pattern is too complex: it compiles to more than 2 MB"),
        "{e}"
    );
}

// ---- cancellation inside one long file ---------------------------------

/// A pattern the caps allow that is slow on the lines of `big_file`: nine
/// counted branches alive at once, plus `needle`, which only the last line
/// has.
fn slow_pattern() -> String {
    let mut alts: Vec<String> = (0..9)
        .map(|i| format!("a{{{}}}{}", 1000 - i, char::from(b'c' + i as u8)))
        .collect();
    alts.push("needle".to_string());
    alts.join("|")
}

/// 8 MB of lines the slow pattern never matches, then `needle`.
fn big_file(root: &Path) -> PathBuf {
    let line = format!("{}b\n", "a".repeat(999));
    put(root, "big.txt", format!("{}needle\n", line.repeat(8000)))
}

/// The `/proc/self/fd` entry open on `path`, once one is.
fn fd_on(path: &Path) -> Option<PathBuf> {
    std::fs::read_dir("/proc/self/fd")
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|fd| std::fs::read_link(fd).is_ok_and(|target| target == path))
}

/// Waits until this process has `path` open; `None` if `gave_up` says the
/// search ended first.
fn wait_until_open(path: &Path, gave_up: impl Fn() -> bool) -> Option<PathBuf> {
    let deadline = Instant::now() + GUARD;
    loop {
        if let Some(fd) = fd_on(path) {
            return Some(fd);
        }
        if gave_up() {
            return None;
        }
        assert!(
            Instant::now() < deadline,
            "{} was never opened",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The read offset of `fd` while it is still open on `path`.
fn offset(fd: &Path, path: &Path) -> Option<u64> {
    if std::fs::read_link(fd).ok()? != path {
        return None;
    }
    let n = fd.file_name()?.to_str()?;
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{n}")).ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("pos:"))
        .and_then(|p| p.trim().parse().ok())
}

#[test]
fn a_raised_flag_ends_the_search_inside_one_long_file() {
    let (_d, root) = tmp();
    let big = big_file(&root);
    let flag = Arc::new(AtomicBool::new(false));
    let mut opts = GrepOptions::new(slow_pattern());
    opts.cancel = Some(flag.clone());
    let (tx, rx) = std::sync::mpsc::channel::<Result<GrepOutcome, String>>();
    let search_root = root.clone();
    let done = Arc::new(AtomicBool::new(false));
    let finished = done.clone();
    std::thread::spawn(move || {
        let out = grep(&search_root, &opts).map_err(|e| e.to_string());
        finished.store(true, Ordering::Relaxed);
        let _ = tx.send(out);
    });
    // Once the search is inside the file, raise the flag.
    let opened = wait_until_open(&big, || done.load(Ordering::Relaxed));
    flag.store(true, Ordering::Relaxed);
    let out = rx
        .recv_timeout(GUARD)
        .expect("the search went on after the flag was raised")
        .unwrap();
    assert!(
        opened.is_some(),
        "the search ended before opening the file: {out:?}"
    );
    assert!(out.cancelled);
    // The only match is on the last line: it was never reached.
    assert!(out.files.is_empty(), "searched to the end: {:?}", out.files);
}

#[test]
fn dropping_the_future_ends_the_blocking_search() {
    let (_d, root) = tmp();
    let big = big_file(&root);
    let size = std::fs::metadata(&big).unwrap().len();
    let args = json!({"path": s(&root), "pattern": slow_pattern()});
    let watched = big.clone();
    let furthest = guarded("the stopped search", move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let fd = rt.block_on(async {
            let registry = registry();
            let tool = registry.get(tn::GREP_FILES).unwrap();
            let opened = tokio::task::spawn_blocking(move || wait_until_open(&watched, || false));
            // The branch that loses is dropped: the tool's future, as a
            // stopped turn drops it.
            tokio::select! {
                r = tool.execute_async(args) => panic!("the search finished first: {r:?}"),
                fd = opened => fd.unwrap().unwrap(),
            }
        });
        // The blocking search must now give the file up, well before its end.
        let mut furthest = 0;
        while let Some(pos) = offset(&fd, &big) {
            furthest = furthest.max(pos);
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(rt);
        furthest
    });
    assert!(
        furthest < size,
        "read {furthest} of {size} bytes after the stop"
    );
}

// ---- what could not be searched ----------------------------------------

#[test]
fn a_fifo_or_device_given_as_the_path_is_refused_without_opening_it() {
    let (_d, root) = tmp();
    let fifo = root.join("fifo");
    mkfifo(&fifo);
    let e = run_guarded(json!({"path": s(&fifo), "pattern": "x"})).unwrap_err();
    assert_eq!(
        e,
        format!(
            "{} is a FIFO, not a regular file or directory; grep_files never opens a FIFO or device",
            s(&fifo)
        )
    );
    let e = run_guarded(json!({"path": "/dev/zero", "pattern": "x"})).unwrap_err();
    assert_eq!(
        e,
        "/dev/zero is a character device, not a regular file or directory; grep_files never opens a FIFO or device"
    );
}

#[test]
fn a_fifo_in_the_tree_is_reported_not_opened() {
    let (_d, root) = tmp();
    put(&root, "a.txt", "nothing here\n");
    mkfifo(&root.join("pipe"));
    let out = run_guarded(json!({"path": s(&root), "pattern": "needle"})).unwrap();
    assert_eq!(
        out,
        format!(
            "No matches for \"needle\" in {} (1 files searched)\n[1 path could not be searched: pipe (not a regular file: a FIFO)]",
            s(&root)
        )
    );
    // Next to matches too.
    put(&root, "b.txt", "needle\n");
    let out = run_guarded(json!({"path": s(&root), "pattern": "needle"})).unwrap();
    assert!(
        out.ends_with(
            "b.txt\n1:needle\n\n[1 path could not be searched: pipe (not a regular file: a FIFO)]\n"
        ),
        "{out}"
    );
}

#[test]
fn an_ignore_file_that_is_a_fifo_does_not_hang_the_walk() {
    let (_d, root) = tmp();
    put(&root, "top.txt", "needle\n");
    put(&root, "sub/inner.txt", "needle\n");
    mkfifo(&root.join("sub/.ignore"));
    let out = run_guarded(json!({"path": s(&root), "pattern": "needle"})).unwrap();
    assert!(out.contains("top.txt\n1:needle\n"), "{out}");
    assert!(
        out.contains(
            "[1 path could not be searched: sub (not entered: its .ignore is a FIFO, not a regular file)]"
        ),
        "{out}"
    );
    // As the root itself (read before the walk starts): refused.
    let e = run_guarded(json!({"path": s(&root.join("sub")), "pattern": "needle"})).unwrap_err();
    assert!(e.contains(".ignore is a FIFO, not a regular file"), "{e}");
}

#[test]
fn a_500_deep_tree_says_what_is_too_deep() {
    let (_d, root) = tmp();
    let deep: PathBuf = std::iter::repeat_n("d", 500).collect();
    put(
        &root,
        &deep.join("bottom.txt").to_string_lossy(),
        "needle\n",
    );
    let out = run_guarded(json!({"path": s(&root), "pattern": "needle"})).unwrap();
    let at_100: String = std::iter::repeat_n("d", 100).collect::<Vec<_>>().join("/");
    let shown = format!("{}…{}", &at_100[..40], &at_100[at_100.len() - 80..]);
    assert_eq!(
        out,
        format!(
            "No matches for \"needle\" in {} (0 files searched)\n[1 path could not be searched: {shown} (too deep: more than 100 levels, not entered)]",
            s(&root)
        )
    );
}

#[test]
fn a_path_longer_than_path_max_is_reported() {
    let (_d, root) = tmp();
    // 80 levels of 60-byte names: 4,880 bytes, built from handles since
    // no single path may be that long.
    let name = "n".repeat(60);
    let mut dir =
        rustix::fs::open(&root, OFlags::DIRECTORY | OFlags::RDONLY, Mode::empty()).unwrap();
    for _ in 0..80 {
        rustix::fs::mkdirat(&dir, name.as_str(), Mode::from_raw_mode(0o755)).unwrap();
        dir = rustix::fs::openat(
            &dir,
            name.as_str(),
            OFlags::DIRECTORY | OFlags::RDONLY,
            Mode::empty(),
        )
        .unwrap();
    }
    let fd = rustix::fs::openat(
        &dir,
        "f.txt",
        OFlags::CREATE | OFlags::WRONLY,
        Mode::from_raw_mode(0o644),
    )
    .unwrap();
    rustix::io::write(&fd, b"needle\n").unwrap();
    let out = run_guarded(json!({"path": s(&root), "pattern": "needle"})).unwrap();
    assert!(out.starts_with("No matches"), "{out}");
    assert!(out.contains("(path too long)]"), "{out}");
}

#[test]
fn a_line_longer_than_the_limit_is_reported() {
    let (_d, root) = tmp();
    put(&root, "a.txt", "needle\n");
    put(
        &root,
        "huge.txt",
        format!("needle\n{}\nneedle\n", "x".repeat(9 << 20)),
    );
    let out = run_guarded(json!({"path": s(&root), "pattern": "needle"})).unwrap();
    // What was found before the long line stands.
    assert!(out.contains("huge.txt\n1:needle\n"), "{out}");
    assert!(
        out.ends_with(
            "[1 path could not be searched: huge.txt (a line longer than 8 MB; searched up to it)]\n"
        ),
        "{out}"
    );
}

#[test]
fn a_large_pattern_gets_a_shorter_line_limit() {
    let (_d, root) = tmp();
    put(
        &root,
        "wide.txt",
        format!("needle\n{}\nneedle\n", "x".repeat(20_000)),
    );
    let out = run_guarded(json!({"path": s(&root), "pattern": slow_pattern()})).unwrap();
    assert!(out.contains("wide.txt\n1:needle\n"), "{out}");
    assert!(
        out.ends_with(
            "[1 path could not be searched: wide.txt (a line longer than 16 KB for a pattern this large; searched up to it)]\n"
        ),
        "{out}"
    );
}

#[test]
fn a_file_swapped_for_a_fifo_during_the_walk_never_hangs() {
    let (_d, root) = tmp();
    for i in 0..20 {
        put(&root, &format!("f{i}.txt"), "needle\n");
    }
    let fifo = root.join("fifo");
    mkfifo(&fifo);
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (a, b, stop) = (root.join("f7.txt"), fifo.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE);
            }
        })
    };
    let dir = s(&root);
    let runs = guarded("grep_files during the swaps", move || {
        let deadline = Instant::now() + Duration::from_millis(1500);
        let mut runs = 0;
        while Instant::now() < deadline {
            let out = run(tn::GREP_FILES, json!({"path": dir, "pattern": "needle"})).unwrap();
            assert!(out.contains("f0.txt\n1:needle"), "{out}");
            runs += 1;
        }
        runs
    });
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(runs > 5, "only {runs} runs");
}
