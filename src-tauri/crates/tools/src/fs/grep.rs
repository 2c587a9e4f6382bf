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
//! * a file with a NUL byte stops being searched there (binary; rg's default).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;
use skald_core_api::ToolError;

use super::access::{io_failed, one_line};
use super::policy::{check_read_allowed, is_secrets_name, is_skip_dir_name};

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
    /// Set from elsewhere (a stopped turn) to end the walk at the next file:
    /// the search runs on blocking threads that dropping a future cannot stop.
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
    /// Files or directories that could not be read (permissions, races).
    pub unreadable: u64,
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

/// Builds the matcher, turning a regex error into one line quoting it.
pub fn build_matcher(pattern: &str, case_sensitive: bool) -> Result<RegexMatcher, ToolError> {
    RegexMatcherBuilder::new()
        .case_insensitive(!case_sensitive)
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| {
            let msg = e.to_string();
            let reason = msg
                .lines()
                .find_map(|l| l.trim().strip_prefix("error: "))
                .map_or_else(|| one_line(&msg), str::to_string);
            ToolError::Failed(format!(
                "invalid regex {pattern:?}: {reason} (grep_files uses Rust regex syntax; escape literal ( [ {{ . * + ? with \\)"
            ))
        })
}

/// Searches `root` (a directory or a single file). `root` goes through the
/// read policy first: under `secrets/` it is refused.
pub fn grep(root: &Path, opts: &GrepOptions) -> Result<GrepOutcome, ToolError> {
    let display = root.display().to_string();
    let root = check_read_allowed(root)?;
    let matcher = build_matcher(&opts.pattern, opts.case_sensitive)?;
    std::fs::metadata(&root).map_err(|e| io_failed(&e, "search", &display))?;

    let mut walk = WalkBuilder::new(&root);
    walk.hidden(false)
        .follow_links(false)
        .threads(opts.threads)
        .filter_entry(|entry| {
            entry.depth() == 0
                || !(is_secrets_name(entry.file_name())
                    || (entry.file_type().is_some_and(|t| t.is_dir())
                        && is_skip_dir_name(entry.file_name())))
        });
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
    let unreadable = AtomicU64::new(0);
    let collected = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let content = opts.mode == OutputMode::Content;
    let ctx = if content { opts.context_lines } else { 0 };

    walk.build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .line_number(content)
            .before_context(ctx)
            .after_context(ctx)
            .build();
        let matcher = matcher.clone();
        let (root, found, searched, unreadable, collected, stop) =
            (&root, &found, &searched, &unreadable, &collected, &stop);
        let cancel = opts.cancel.as_deref();
        Box::new(move |result| {
            if stop.load(Ordering::Relaxed) || cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return WalkState::Quit;
            }
            let entry = match result {
                Ok(entry) => entry,
                Err(_) => {
                    unreadable.fetch_add(1, Ordering::Relaxed);
                    return WalkState::Continue;
                }
            };
            // Only regular files; symlinks (not followed) are skipped.
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            searched.fetch_add(1, Ordering::Relaxed);
            let mut sink = Collect {
                mode: opts.mode,
                count: 0,
                lines: Vec::new(),
            };
            if search_one(&mut searcher, &matcher, entry.path(), &mut sink).is_err() {
                unreadable.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            }
            if sink.count == 0 {
                return WalkState::Continue;
            }
            if content {
                let total = collected.fetch_add(sink.lines.len() as u64, Ordering::Relaxed)
                    + sink.lines.len() as u64;
                if total > opts.max_collected_lines {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            let path = relative(entry.path(), root);
            let file = GrepFileMatches {
                path,
                match_count: sink.count,
                lines: sink.lines,
            };
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
    Ok(GrepOutcome {
        files,
        files_searched: searched.into_inner(),
        unreadable: unreadable.into_inner(),
        stopped_early: stop.into_inner(),
        cancelled: opts
            .cancel
            .as_deref()
            .is_some_and(|c| c.load(Ordering::Relaxed)),
    })
}

fn search_one(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: &Path,
    sink: &mut Collect,
) -> std::io::Result<()> {
    searcher.search_path(matcher, path, sink)
}

/// `path` relative to `root`; the file name when `root` is the file itself.
fn relative(path: &Path, root: &Path) -> PathBuf {
    match path.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
        _ => path
            .file_name()
            .map_or_else(|| path.to_path_buf(), PathBuf::from),
    }
}

/// The per-file sink: counts matching lines, keeps lines in content mode,
/// stops at the first match in files-only mode.
struct Collect {
    mode: OutputMode,
    count: u64,
    lines: Vec<GrepLine>,
}

impl Collect {
    fn keep(&mut self, number: Option<u64>, bytes: &[u8], is_match: bool) {
        let mut end = bytes.len();
        if bytes.last() == Some(&b'\n') {
            end -= 1;
        }
        if end > 0 && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        let text = String::from_utf8_lossy(&bytes[..end]);
        let text = match text.char_indices().nth(MAX_LINE_CHARS) {
            Some((i, _)) => format!("{}{CUT_MARKER}", &text[..i]),
            None => text.into_owned(),
        };
        self.lines.push(GrepLine {
            number: number.unwrap_or(0),
            text,
            is_match,
        });
    }
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.count += 1;
        match self.mode {
            OutputMode::Content => {
                self.keep(mat.line_number(), mat.bytes(), true);
                Ok(true)
            }
            OutputMode::FilesOnly => Ok(false),
            OutputMode::Count => Ok(true),
        }
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        if self.mode == OutputMode::Content {
            self.keep(context.line_number(), context.bytes(), false);
        }
        Ok(true)
    }
}
