//! The `grep_files` engine: ripgrep's own crates — a parallel, gitignore-aware
//! walk (`ignore`) feeding a line searcher (`grep-searcher`) with a regex
//! matcher (`grep-regex`). [`grep`] returns structured matches, sorted by path;
//! the tool formats them and the `grep-bench` binary times exactly this code.
//!
//! Walk semantics (documented for the model and the benchmark):
//! * `.gitignore`/`.ignore` rules are honoured (inside a git repo, like rg);
//! * hidden files and directories are searched (rg's `--hidden`), but
//!   [`SKIP_DIRS`](super::SKIP_DIRS) (`.git`, `node_modules`, `target`,
//!   `secrets`) are never entered, and nothing named `secrets` (any case) is
//!   searched;
//! * symlinks are not followed (symlinked files and directories are skipped,
//!   as rg does without `-L`) — which also means a symlink into `secrets/`
//!   is never read;
//! * a file with a NUL byte stops being searched there (binary; rg's default);
//! * directories more than [`MAX_DEPTH`] levels below the root are not
//!   entered, and a line longer than [`MAX_LINE_BYTES`] (less for a large
//!   pattern) ends that file's search; both are reported, like every path that could not be searched
//!   (a FIFO or device is never opened: see [`Unsearchable`]).
//!
//! Every file is opened beneath a handle of the judged root, non-blocking,
//! refusing symlinks on the way, and searched only if `fstat` says it is a
//! regular file: a directory swapped for a symlink into `secrets/`, or a
//! file swapped for a FIFO after the walk saw it, is reported, not read.
//! The pattern's cost is capped ([`pattern`]), and a raised cancel flag ends
//! the search within one buffer.

mod chunked;
mod ignore_guard;
pub mod pattern;
mod search;
mod skipped;

use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::overrides::OverrideBuilder;
use ignore::{DirEntry, WalkBuilder, WalkState};
use rustix::fs::FileType;
use schemars::JsonSchema;
use serde::Deserialize;
use skald_core_api::ToolError;

use super::access::{display_path, one_line, open_failed, resolve_failed};
use super::policy::{is_secrets_name, is_skip_dir_name};
use super::resolve::{Intent, Resolved, open_file_beneath};
use search::{Collect, Searched, is_set, search_file};
use skipped::{Skipped, io_reason, kind_name, open_reason, walk_error};

pub use pattern::{
    DFA_CACHE_LIMIT, MAX_PATTERN_BYTES, MAX_REPEAT, NFA_SIZE_LIMIT, PatternError, build_matcher,
    check_pattern,
};
pub(crate) use skipped::shown_path;
pub use skipped::{MAX_DEPTH, MAX_EXAMPLES, MAX_LINE_BYTES, SkipReason, Unsearchable};

/// Characters of a matched or context line kept; longer lines are cut.
pub const MAX_LINE_CHARS: usize = 500;
/// Marker appended to a cut line.
pub const CUT_MARKER: &str = "… [line cut]";

/// What `grep_files` reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines with line numbers (and context lines).
    #[default]
    Content,
    /// Only the paths of files that contain a match.
    FilesOnly,
    /// The number of matching lines per file.
    Count,
}

/// One search.
#[derive(Debug, Clone)]
pub struct GrepOptions {
    /// A Rust-regex (ripgrep syntax) pattern, matched line by line.
    pub pattern: String,
    pub case_sensitive: bool,
    /// Only files whose path matches this glob (gitignore syntax, e.g.
    /// `*.rs`, `src/**/*.ts`); directories are still entered.
    pub include_glob: Option<String>,
    pub mode: OutputMode,
    /// Lines of context before and after each match (content mode).
    pub context_lines: usize,
    /// Safety cap on lines kept in memory (content mode); the walk stops
    /// once it is exceeded and the outcome says so.
    pub max_collected_lines: u64,
    /// Walker threads; 0 picks automatically (like rg).
    pub threads: usize,
    /// Set from elsewhere (a stopped turn) to end the search: checked before
    /// each file, at each buffer read and each match, since the search runs
    /// on blocking threads that dropping a future cannot stop.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl GrepOptions {
    pub fn new(pattern: impl Into<String>) -> Self {
        Self {
            pattern: pattern.into(),
            case_sensitive: false,
            include_glob: None,
            mode: OutputMode::Content,
            context_lines: 0,
            max_collected_lines: 50_000,
            threads: 0,
            cancel: None,
        }
    }
}

/// A matching or context line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepLine {
    pub number: u64,
    /// Lossily decoded, without its terminator, cut to [`MAX_LINE_CHARS`].
    pub text: String,
    pub is_match: bool,
}

/// The matches in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepFileMatches {
    /// Relative to the searched root (the file name when the root is a file).
    pub path: PathBuf,
    /// Matching lines (1 in files-only mode, where the search stops early).
    pub match_count: u64,
    /// Content mode only: match and context lines in file order.
    pub lines: Vec<GrepLine>,
}

/// What [`grep`] found.
#[derive(Debug, Clone, Default)]
pub struct GrepOutcome {
    /// Files with at least one match, sorted by path.
    pub files: Vec<GrepFileMatches>,
    pub files_searched: u64,
    /// Paths that could not be searched (completely): too deep, not a
    /// regular file, permissions, changed during the search, a line too long.
    pub unsearchable: u64,
    /// The first [`MAX_EXAMPLES`] of them, by path.
    pub unsearchable_examples: Vec<Unsearchable>,
    /// The walk stopped at the memory cap; results are incomplete.
    pub stopped_early: bool,
    /// [`GrepOptions::cancel`] was set: results are incomplete and unused.
    pub cancelled: bool,
}

impl GrepOutcome {
    pub fn total_matches(&self) -> u64 {
        self.files.iter().map(|f| f.match_count).sum()
    }
}

/// Searches `root` (a directory or a single file, relative to the current
/// directory). `root` goes through the one resolver first: under `secrets/`
/// it is refused, and a FIFO or device is refused without being opened.
pub fn grep(root: &Path, opts: &GrepOptions) -> Result<GrepOutcome, ToolError> {
    let matcher = build_matcher(&opts.pattern, opts.case_sensitive)
        .map_err(|e| ToolError::Failed(e.to_string()))?;
    let display = display_path(&root.to_string_lossy());
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let resolved = super::resolve::resolve(root, &base, Intent::Read)
        .map_err(|e| resolve_failed(&e, "search", &display))?;
    grep_resolved(&resolved, &display, &matcher, opts)
}

/// [`grep`] on a path the resolver already judged (`display` names it).
pub(crate) fn grep_resolved(
    resolved: &Resolved,
    display: &str,
    matcher: &RegexMatcher,
    opts: &GrepOptions,
) -> Result<GrepOutcome, ToolError> {
    let engine = Engine {
        matcher,
        budget: pattern::budget(&opts.pattern),
    };
    match resolved.kind() {
        Some(FileType::Directory) => grep_dir(resolved, display, &engine, opts),
        Some(FileType::RegularFile) => Ok(grep_one_file(resolved, &engine, opts)),
        Some(kind) => Err(ToolError::Failed(format!(
            "{display} is {}, not a regular file or directory; grep_files never opens a FIFO or device",
            skipped::raw_kind_name(kind)
        ))),
        None => Err(open_failed(
            &super::resolve::OpenError::Missing,
            "search",
            display,
        )),
    }
}

/// The compiled pattern and how much text one regex call may take.
struct Engine<'a> {
    matcher: &'a RegexMatcher,
    budget: pattern::Budget,
}

fn new_searcher(opts: &GrepOptions, engine: &Engine<'_>) -> Searcher {
    let content = opts.mode == OutputMode::Content;
    let ctx = if content { opts.context_lines } else { 0 };
    // The buffer holds a line and the context lines before it.
    let heap = engine.budget.line.saturating_mul(ctx + 1);
    SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .line_number(content)
        .before_context(ctx)
        .after_context(ctx)
        .heap_limit(Some(heap))
        .build()
}

/// The root is one regular file: opened through the handles judged.
fn grep_one_file(resolved: &Resolved, engine: &Engine<'_>, opts: &GrepOptions) -> GrepOutcome {
    let canonical = resolved.canonical();
    let name = canonical
        .file_name()
        .map_or_else(|| canonical.to_path_buf(), PathBuf::from);
    let skipped = Skipped::default();
    let mut files = Vec::new();
    let mut searched = 0;
    if !is_set(opts.cancel.as_deref()) {
        match resolved.open_read() {
            Ok(file) => {
                searched = 1;
                let mut searcher = new_searcher(opts, engine);
                files.extend(search_entry(
                    &mut searcher,
                    engine,
                    file,
                    name,
                    opts,
                    &skipped,
                ));
            }
            Err(e) => skipped.add(name, open_reason(&e)),
        }
    }
    let (unsearchable, unsearchable_examples) = skipped.finish();
    GrepOutcome {
        files,
        files_searched: searched,
        unsearchable,
        unsearchable_examples,
        stopped_early: false,
        cancelled: is_set(opts.cancel.as_deref()),
    }
}

/// Searches one opened file; its matches, if any. A search that failed
/// part way keeps what it found and reports the file.
fn search_entry(
    searcher: &mut Searcher,
    engine: &Engine<'_>,
    file: File,
    rel: PathBuf,
    opts: &GrepOptions,
    skipped: &Skipped,
) -> Option<GrepFileMatches> {
    let mut sink = Collect::new(opts.mode, opts.cancel.as_deref());
    match search_file(
        searcher,
        engine.matcher,
        engine.budget.piece,
        file,
        &mut sink,
    ) {
        Searched::Done => {}
        Searched::Cancelled => return None,
        Searched::Failed(e) => skipped.add(rel.clone(), io_reason(&e, engine.budget.line)),
    }
    (sink.count > 0).then_some(GrepFileMatches {
        path: rel,
        match_count: sink.count,
        lines: sink.lines,
    })
}

fn grep_dir(
    resolved: &Resolved,
    display: &str,
    engine: &Engine<'_>,
    opts: &GrepOptions,
) -> Result<GrepOutcome, ToolError> {
    let root = resolved.canonical().to_path_buf();
    if let Some((dir, (name, kind))) = ignore_guard::unsafe_ignore_file_above(&root) {
        return Err(ToolError::Failed(format!(
            "cannot search {display}: {} is {kind}, not a regular file, and reading it as an ignore file could block the search",
            shown_path(&dir.join(name))
        )));
    }
    // Every file is opened beneath this handle, never by its path.
    let root_fd: OwnedFd = resolved
        .open_read()
        .map_err(|e| open_failed(&e, "search", display))?
        .into();
    let skipped = Arc::new(Skipped::default());

    let mut walk = WalkBuilder::new(&root);
    let (filter_root, filter_skipped) = (root.clone(), skipped.clone());
    walk.hidden(false)
        .follow_links(false)
        .max_depth(Some(MAX_DEPTH))
        .threads(opts.threads)
        .filter_entry(move |entry| enter(entry, &filter_root, &filter_skipped));
    if let Some(glob) = opts
        .include_glob
        .as_deref()
        .filter(|g| !g.trim().is_empty())
    {
        let overrides = OverrideBuilder::new(&root)
            .add(glob)
            .and_then(|b| b.build())
            .map_err(|e| {
                ToolError::Failed(format!(
                    "invalid include_glob {glob:?}: {}",
                    one_line(&e.to_string())
                ))
            })?;
        walk.overrides(overrides);
    }

    let found: Mutex<Vec<GrepFileMatches>> = Mutex::new(Vec::new());
    let searched = AtomicU64::new(0);
    let collected = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let content = opts.mode == OutputMode::Content;

    walk.build_parallel().run(|| {
        let mut searcher = new_searcher(opts, engine);
        let (root, root_fd, found, searched, skipped, collected, stop) = (
            &root, &root_fd, &found, &searched, &*skipped, &collected, &stop,
        );
        let cancel = opts.cancel.as_deref();
        Box::new(move |result| {
            if stop.load(Ordering::Relaxed) || is_set(cancel) {
                return WalkState::Quit;
            }
            let entry = match result {
                Ok(entry) => entry,
                Err(e) => {
                    if let Some((path, why)) = walk_error(&e) {
                        let rel = path.map_or_else(PathBuf::new, |p| relative(&p, root));
                        skipped.add(rel, why);
                    }
                    return WalkState::Continue;
                }
            };
            let Some(kind) = entry.file_type() else {
                return WalkState::Continue;
            };
            let rel = relative(entry.path(), root);
            if kind.is_dir() {
                if entry.depth() >= MAX_DEPTH {
                    skipped.add(rel, SkipReason::TooDeep);
                }
                return WalkState::Continue;
            }
            // Symlinks are not followed (documented), so not reported.
            if kind.is_symlink() {
                return WalkState::Continue;
            }
            if !kind.is_file() {
                skipped.add(rel, SkipReason::NotRegular(kind_name(kind)));
                return WalkState::Continue;
            }
            let file = match open_file_beneath(root_fd, &rel) {
                Ok(file) => file,
                Err(e) => {
                    let why = open_reason(&e);
                    // A directory on the way was swapped: name the
                    // directory, not a name that may now be inside secrets/.
                    let rel = match why {
                        SkipReason::Changed => {
                            rel.parent().map(Path::to_path_buf).unwrap_or_default()
                        }
                        _ => rel,
                    };
                    skipped.add(rel, why);
                    return WalkState::Continue;
                }
            };
            searched.fetch_add(1, Ordering::Relaxed);
            let Some(file) = search_entry(&mut searcher, engine, file, rel, opts, skipped) else {
                return WalkState::Continue;
            };
            if content {
                let n = file.lines.len() as u64;
                if collected.fetch_add(n, Ordering::Relaxed) + n > opts.max_collected_lines {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            match found.lock() {
                Ok(mut v) => v.push(file),
                Err(poisoned) => poisoned.into_inner().push(file),
            }
            if stop.load(Ordering::Relaxed) {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });

    let mut files = found.into_inner().unwrap_or_else(|p| p.into_inner());
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let (unsearchable, unsearchable_examples) = skipped.finish();
    Ok(GrepOutcome {
        files,
        files_searched: searched.into_inner(),
        unsearchable,
        unsearchable_examples,
        stopped_early: stop.into_inner(),
        cancelled: is_set(opts.cancel.as_deref()),
    })
}

/// Whether the walk goes into (or lists) `entry`: never `secrets` or a
/// skipped directory, nor a directory whose ignore files would block the
/// walker (reported).
fn enter(entry: &DirEntry, root: &Path, skipped: &Skipped) -> bool {
    if entry.depth() == 0 {
        return true;
    }
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    if is_secrets_name(entry.file_name()) || (is_dir && is_skip_dir_name(entry.file_name())) {
        return false;
    }
    // A directory at MAX_DEPTH is not read, so neither are its ignore files.
    if is_dir
        && entry.depth() < MAX_DEPTH
        && let Some((name, kind)) = ignore_guard::unsafe_ignore_file(entry.path())
    {
        let why = SkipReason::IgnoreFileNotRegular(name, kind);
        skipped.add(relative(entry.path(), root), why);
        return false;
    }
    true
}

/// `path` relative to `root` (empty for the root itself).
fn relative(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}
