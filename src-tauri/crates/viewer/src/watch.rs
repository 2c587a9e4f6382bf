//! Watching the files a view shows (a LaTeX document: all its inputs).
//!
//! The parent directories are watched, not the files: editors and
//! `write_file` save by renaming a new file over the old one, which ends an
//! inotify watch on the file itself, and a deleted file should be reported
//! and picked up again when it comes back. Events are debounced, reads are
//! not changes, and only the files asked for are reported.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("watching files failed: {0}")]
    Notify(#[from] notify::Error),
}

/// A watched file that changed; `exists: false` when it is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub path: PathBuf,
    pub exists: bool,
}

/// A burst of events is reported at most this late, however long it lasts.
const MAX_DELAY: Duration = Duration::from_secs(2);

pub struct FileWatcher {
    watcher: RecommendedWatcher,
    files: Arc<Mutex<HashSet<PathBuf>>>,
    dirs: HashMap<PathBuf, usize>,
}

/// Opening and reading a file is not a change: the viewer reads the files
/// it watches, and reporting that (or the access time it updates) would
/// reload them forever. Content, names, creation, removal and a close after
/// writing are changes; metadata alone is not.
fn is_change(kind: &EventKind) -> bool {
    use notify::event::ModifyKind;
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        _ => true,
    }
}

impl FileWatcher {
    /// `on_change` runs on the watcher's own thread with the watched files
    /// that changed, once events have been quiet for `debounce`. The thread
    /// ends when the watcher is dropped.
    pub fn new(
        debounce: Duration,
        on_change: impl Fn(Vec<Change>) + Send + 'static,
    ) -> Result<Self, WatchError> {
        let files: Arc<Mutex<HashSet<PathBuf>>> = Arc::default();
        let wanted = files.clone();
        let (tx, rx) = mpsc::channel::<PathBuf>();
        let watcher = notify::recommended_watcher(move |res: notify::Result<Event>| {
            let Ok(event) = res else { return };
            if !is_change(&event.kind) {
                return;
            }
            let wanted = wanted.lock().unwrap_or_else(|e| e.into_inner());
            for p in event.paths {
                if wanted.contains(&p) {
                    let _ = tx.send(p);
                }
            }
        })?;
        std::thread::Builder::new()
            .name("skald-viewer-watch".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let started = Instant::now();
                    let mut changed = BTreeSet::from([first]);
                    let mut open = true;
                    while started.elapsed() < MAX_DELAY {
                        match rx.recv_timeout(debounce) {
                            Ok(p) => {
                                changed.insert(p);
                            }
                            Err(RecvTimeoutError::Timeout) => break,
                            Err(RecvTimeoutError::Disconnected) => {
                                open = false;
                                break;
                            }
                        }
                    }
                    on_change(
                        changed
                            .into_iter()
                            .map(|path| Change {
                                exists: path.exists(),
                                path,
                            })
                            .collect(),
                    );
                    if !open {
                        return;
                    }
                }
            })
            .map_err(|e| WatchError::Notify(notify::Error::io(e)))?;
        Ok(Self {
            watcher,
            files,
            dirs: HashMap::new(),
        })
    }

    /// Replaces the set of watched files (paths are made absolute through
    /// their parent's canonical path, so a file that does not exist yet can
    /// be watched for).
    pub fn set_files(&mut self, files: &[PathBuf]) -> Result<(), WatchError> {
        let normalised: HashSet<PathBuf> = files.iter().filter_map(|f| normalise(f)).collect();
        let mut wanted_dirs: HashMap<PathBuf, usize> = HashMap::new();
        for f in &normalised {
            if let Some(d) = f.parent() {
                *wanted_dirs.entry(d.to_path_buf()).or_default() += 1;
            }
        }
        let watcher = &mut self.watcher;
        for d in self.dirs.keys() {
            if !wanted_dirs.contains_key(d) {
                let _ = watcher.unwatch(d);
            }
        }
        for d in wanted_dirs.keys() {
            if !self.dirs.contains_key(d) {
                watcher.watch(d, RecursiveMode::NonRecursive)?;
            }
        }
        self.dirs = wanted_dirs;
        *self.files.lock().unwrap_or_else(|e| e.into_inner()) = normalised;
        Ok(())
    }

    pub fn files(&self) -> Vec<PathBuf> {
        let mut v: Vec<_> = self
            .files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect();
        v.sort();
        v
    }
}

fn normalise(path: &Path) -> Option<PathBuf> {
    let parent = path.parent()?.canonicalize().ok()?;
    Some(parent.join(path.file_name()?))
}
