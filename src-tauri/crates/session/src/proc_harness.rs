//! Test support (feature `test-support`) for the tests that run Skald as
//! real processes — the session's crash tests (`session-harness`) and the
//! CLI's — so they share one scratch layout, one scripted question and one
//! wait-then-SIGKILL instead of each repeating them.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// How long a test waits for a process to get where it is killed.
pub const READY_WITHIN: Duration = Duration::from_secs(20);

/// A test's scratch tree: `data` (the database's directory) and `work` (the
/// working directory, created), under the canonical `root`.
pub struct Scratch {
    pub root: PathBuf,
    pub data: PathBuf,
    pub work: PathBuf,
}

impl Scratch {
    /// The tree inside `dir` (a test's temporary directory).
    pub fn in_dir(dir: &Path) -> std::io::Result<Self> {
        let root = dir.canonicalize()?;
        let (data, work) = (root.join("data"), root.join("work"));
        std::fs::create_dir_all(&work)?;
        Ok(Self { root, data, work })
    }
}

/// The arguments of the question the question tests' model asks
/// (`ask_user_clarification`: "Which colour?", red or blue).
pub fn colour_question() -> String {
    serde_json::json!({"title": "Colour", "question": "Which colour?",
                       "suggested_answers": ["red", "blue"]})
    .to_string()
}

/// Waits until `ready` holds (polling every 10 ms; panics with `what` after
/// [`READY_WITHIN`]), then SIGKILLs `child` — no destructor runs, as in a
/// crash — and reaps it.
pub fn kill_when(child: &mut Child, what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < READY_WITHIN, "{what} never happened");
        std::thread::sleep(Duration::from_millis(10));
    }
    sigkill(child);
}

/// SIGKILLs `child` and reaps it.
pub fn sigkill(child: &mut Child) {
    // Already gone is fine: the wait below reaps it either way.
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether the file at `path` holds `needle` (a tool's trace of its runs).
pub fn file_contains(path: &Path, needle: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|s| s.contains(needle))
}
