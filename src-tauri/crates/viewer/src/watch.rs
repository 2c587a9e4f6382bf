//! Watching the files a view shows (a LaTeX document: all its inputs).
//!
//! The parent directories are watched, not the files: editors and
//! `write_file` save by renaming a new file over the old one, which ends an
//! inotify watch on the file itself, and a deleted file should be reported
//! and picked up again when it comes back. Events are debounced, and only
//! the files asked for are reported.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};
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

pub struct FileWatcher {
    debouncer: Debouncer<RecommendedWatcher>,
    files: Arc<Mutex<HashSet<PathBuf>>>,
    dirs: HashMap<PathBuf, usize>,
}

impl FileWatcher {
    /// `on_change` runs on the watcher's thread with the watched files that
    /// changed in one debounce window.
    pub fn new(
        debounce: Duration,
        on_change: impl Fn(Vec<Change>) + Send + 'static,
    ) -> Result<Self, WatchError> {
        let files: Arc<Mutex<HashSet<PathBuf>>> = Arc::default();
        let wanted = files.clone();
        let debouncer = new_debouncer(debounce, move |res: DebounceEventResult| {
            let Ok(events) = res else { return };
            let wanted = wanted.lock().unwrap_or_else(|e| e.into_inner());
            let changed: BTreeSet<PathBuf> = events
                .into_iter()
                .map(|e| e.path)
                .filter(|p| wanted.contains(p))
                .collect();
            drop(wanted);
            if !changed.is_empty() {
                on_change(
                    changed
                        .into_iter()
                        .map(|path| Change {
                            exists: path.exists(),
                            path,
                        })
                        .collect(),
                );
            }
        })?;
        Ok(Self {
            debouncer,
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
        let watcher = self.debouncer.watcher();
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
