//! `grep_files`: regex search across a directory tree, formatted from the
//! structured [`grep`](super::grep::grep) results, paged with `offset`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, Tool, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits,
    input_schema, parse_args,
};

use super::access::target;
use super::grep::{
    GrepFileMatches, GrepOptions, GrepOutcome, OutputMode, build_matcher, check_pattern,
    grep_resolved, shown_path,
};
use super::label::{absolutize_path, path_label, quoted, str_arg};
use super::{escape_name, escape_os_name};
use crate::tool_names as tn;

/// Default and largest `max_results`.
pub const DEFAULT_MAX_RESULTS: u64 = 200;
pub const MAX_MAX_RESULTS: u64 = 2000;
/// The formatted output stops growing past this many bytes (the paging
/// notice then points at the first result not shown).
const MAX_OUTPUT_BYTES: usize = 100 * 1024;

fn default_path() -> String {
    ".".to_string()
}

fn default_max_results() -> u64 {
    DEFAULT_MAX_RESULTS
}

/// Arguments of `grep_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepFilesInput {
    /// Directory (or single file) to search. Default "." (the working directory).
    #[serde(default = "default_path")]
    pub path: String,
    /// Regular expression (Rust/ripgrep syntax), matched against each line.
    /// At most 4096 bytes; counted repetitions ({n}) at most 1000.
    pub pattern: String,
    /// Match case exactly. Default false (case-insensitive).
    #[serde(default)]
    pub case_sensitive: bool,
    /// Only search files matching this glob, e.g. "*.rs" or "src/**/*.ts".
    #[serde(default)]
    pub include_glob: Option<String>,
    /// "content" (matching lines, default), "files_only" (paths of matching
    /// files) or "count" (matching lines per file).
    #[serde(default)]
    pub output_mode: OutputMode,
    /// Lines of context around each match in content mode, 0–10. Default 0.
    #[serde(default)]
    pub context_lines: u64,
    /// Most results to return: matching lines (content) or files
    /// (files_only, count). 1–2000, default 200.
    #[serde(default = "default_max_results")]
    pub max_results: u64,
    /// Results to skip, for paging: pass the offset the previous result
    /// suggests. Default 0.
    #[serde(default)]
    pub offset: u64,
}

/// Searches many files for a regex.
#[derive(Debug, Clone, Copy, Default)]
pub struct GrepFiles;

impl Tool for GrepFiles {
    fn name(&self) -> &str {
        tn::GREP_FILES
    }

    fn description(&self) -> &str {
        "Search file contents under a directory with a regular expression (ripgrep engine). Use \
         this instead of grep/rg/find via the shell. Case-insensitive unless case_sensitive=true. \
         Respects .gitignore; searches hidden files but never .git, node_modules, target or \
         secrets; skips binary files and does not follow symlinks. Narrow with include_glob \
         (e.g. \"*.rs\"). output_mode: content (path headings, `N:` match lines, `N-` context \
         lines), files_only, or count. Paths are relative to the searched directory, sorted. \
         Results are capped at max_results; the result says which offset to pass for the next page. \
         Paths that could not be searched (too deep, not a regular file, unreadable) are listed."
    }

    fn parameters_schema(&self) -> Value {
        input_schema::<GrepFilesInput>()
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let pattern = quoted(
            str_arg(args, "pattern").unwrap_or(""),
            length.max_chars() / 3,
        );
        let glob = str_arg(args, "include_glob")
            .filter(|g| !g.trim().is_empty())
            .map(|g| format!(" ({g})"))
            .unwrap_or_default();
        match str_arg(args, "path").filter(|p| !p.trim().is_empty()) {
            Some(path) => path_label(
                self.name(),
                &format!("{pattern} in "),
                Some(path),
                &glob,
                length,
            ),
            None => path_label(self.name(), &format!("{pattern}{glob}"), None, "", length),
        }
    }

    fn effective_args(&self, args: Value, workdir: &Path) -> Value {
        absolutize_path(args, workdir, true)
    }

    fn execute(&self, args: Value) -> ToolResult {
        let input: GrepFilesInput = parse_args(tn::GREP_FILES, args)?;
        grep_files(&input, None)
    }

    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        validate(&parse_args::<GrepFilesInput>(tn::GREP_FILES, args.clone())?)
    }

    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let input: GrepFilesInput = parse_args(tn::GREP_FILES, args)?;
            // A stop drops this future; the guard then ends the search on
            // the blocking pool (between files and inside a long one)
            // instead of letting it run to the end unseen.
            let guard = CancelOnDrop::default();
            let cancel = guard.flag();
            let walk = tokio::task::spawn_blocking(move || grep_files(&input, Some(cancel)));
            let result = match walk.await {
                Ok(result) => result,
                Err(e) => Err(ToolError::Failed(format!(
                    "{} stopped unexpectedly: {e}",
                    tn::GREP_FILES
                ))),
            };
            drop(guard);
            result
        })
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READS_DIR
    }
}

/// Sets its flag when dropped: ties a blocking search to the future awaiting it.
#[derive(Default)]
pub(crate) struct CancelOnDrop(Arc<AtomicBool>);

impl CancelOnDrop {
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The argument checks that need no I/O.
fn validate(input: &GrepFilesInput) -> Result<(), ToolError> {
    let invalid = |reason: String| ToolError::InvalidArguments {
        tool: tn::GREP_FILES.to_string(),
        reason,
    };
    check_pattern(&input.pattern).map_err(|e| invalid(e.to_string()))?;
    if input.context_lines > 10 {
        return Err(invalid(format!(
            "context_lines must be between 0 and 10 (got {})",
            input.context_lines
        )));
    }
    if input.max_results == 0 || input.max_results > MAX_MAX_RESULTS {
        return Err(invalid(format!(
            "max_results must be between 1 and {MAX_MAX_RESULTS} (got {})",
            input.max_results
        )));
    }
    Ok(())
}

fn grep_files(input: &GrepFilesInput, cancel: Option<Arc<AtomicBool>>) -> ToolResult {
    validate(input)?;
    let matcher = build_matcher(&input.pattern, input.case_sensitive)
        .map_err(|e| ToolError::Failed(e.to_string()))?;
    let t = target(&input.path)?;
    let mut opts = GrepOptions::new(input.pattern.clone());
    opts.case_sensitive = input.case_sensitive;
    opts.include_glob = input.include_glob.clone();
    opts.mode = input.output_mode;
    opts.context_lines = input.context_lines as usize;
    opts.cancel = cancel;
    let outcome = grep_resolved(&t.resolved, &t.display, &matcher, &opts)?;
    if outcome.cancelled {
        return Err(ToolError::Failed(format!("{} was stopped", tn::GREP_FILES)));
    }
    Ok(format_outcome(input, &t.display, &outcome))
}

fn format_outcome(input: &GrepFilesInput, root: &str, outcome: &GrepOutcome) -> String {
    let pattern = quoted(&input.pattern, 200);
    let root = escape_name(root);
    let root = root.as_str();
    if outcome.files.is_empty() {
        let mut out = format!(
            "No matches for {pattern} in {root} ({} files searched",
            outcome.files_searched
        );
        if input.include_glob.is_some() {
            out.push_str(", filtered by include_glob");
        }
        out.push(')');
        if input.case_sensitive {
            out.push_str("; try case_sensitive=false");
        }
        if let Some(note) = unsearchable_note(outcome) {
            out.push('\n');
            out.push_str(&note);
        }
        return out;
    }
    let (total, unit, body, shown) = match input.output_mode {
        OutputMode::Content => {
            let total = outcome.total_matches();
            let (body, shown) = content_page(&outcome.files, input.offset, input.max_results);
            (total, "matching lines", body, shown)
        }
        OutputMode::FilesOnly => {
            let (body, shown) = file_page(&outcome.files, input.offset, input.max_results, |f| {
                escape_os_name(f.path.as_os_str())
            });
            (outcome.files.len() as u64, "files", body, shown)
        }
        OutputMode::Count => {
            let (body, shown) = file_page(&outcome.files, input.offset, input.max_results, |f| {
                format!("{}:{}", escape_os_name(f.path.as_os_str()), f.match_count)
            });
            (outcome.files.len() as u64, "files", body, shown)
        }
    };
    let mut out = match input.output_mode {
        OutputMode::FilesOnly => {
            format!("{} files match {pattern} in {root}:\n", outcome.files.len())
        }
        OutputMode::Content | OutputMode::Count => format!(
            "{} matching lines in {} files for {pattern} in {root}:\n",
            outcome.total_matches(),
            outcome.files.len()
        ),
    };
    if input.offset >= total {
        let _ = writeln!(
            out,
            "[offset {} is past the end: there are {total} {unit}; use offset=0]",
            input.offset
        );
        return out;
    }
    out.push_str(&body);
    let end = input.offset + shown;
    if end < total {
        let _ = writeln!(
            out,
            "[showing {unit} {}-{end} of {total}; call again with offset={end} for more]",
            input.offset + 1
        );
    }
    if outcome.stopped_early {
        out.push_str("[search stopped early: too many matches to collect; narrow the pattern, path or include_glob]\n");
    }
    if let Some(note) = unsearchable_note(outcome) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

/// `[3 paths could not be searched: a/b (too deep: …), fifo (not a
/// regular file: a FIFO), …]`, or nothing when everything was searched.
fn unsearchable_note(outcome: &GrepOutcome) -> Option<String> {
    let n = outcome.unsearchable;
    if n == 0 {
        return None;
    }
    let examples: Vec<String> = outcome
        .unsearchable_examples
        .iter()
        .map(|u| format!("{} ({})", shown_path(&u.path), u.reason))
        .collect();
    let more = if n > examples.len() as u64 {
        ", …"
    } else {
        ""
    };
    Some(format!(
        "[{n} path{} could not be searched: {}{more}]",
        if n == 1 { "" } else { "s" },
        examples.join(", ")
    ))
}

/// One line per file for `files_only` / `count`, paged over files.
fn file_page(
    files: &[GrepFileMatches],
    offset: u64,
    max: u64,
    line: impl Fn(&GrepFileMatches) -> String,
) -> (String, u64) {
    let mut out = String::new();
    let mut shown = 0u64;
    for f in files.iter().skip(offset as usize).take(max as usize) {
        if out.len() > MAX_OUTPUT_BYTES {
            break;
        }
        out.push_str(&line(f));
        out.push('\n');
        shown += 1;
    }
    (out, shown)
}

/// Content mode, paged over matching lines: a path heading per file, `N:`
/// for matches and `N-` for context (only the context of shown matches),
/// `--` between non-adjacent lines.
fn content_page(files: &[GrepFileMatches], offset: u64, max: u64) -> (String, u64) {
    let mut out = String::new();
    let mut index = 0u64; // global index of the next match line
    let mut shown = 0u64;
    for f in files {
        if shown >= max || out.len() > MAX_OUTPUT_BYTES {
            break;
        }
        if index + f.match_count <= offset {
            index += f.match_count;
            continue;
        }
        // The match lines of this file that fall in the page.
        let mut selected: Vec<u64> = Vec::new();
        for l in f.lines.iter().filter(|l| l.is_match) {
            if index >= offset && shown < max {
                selected.push(l.number);
                shown += 1;
            }
            index += 1;
        }
        if selected.is_empty() {
            continue;
        }
        // Context lines are kept only next to a selected match (within the
        // run of contiguous lines around it).
        let keep = runs_around(&f.lines, &selected);
        let _ = writeln!(out, "{}", escape_os_name(f.path.as_os_str()));
        let mut last: Option<u64> = None;
        for l in f.lines.iter().filter(|l| keep.contains(&l.number)) {
            if last.is_some_and(|p| l.number > p + 1) {
                out.push_str("--\n");
            }
            let sep = if l.is_match { ':' } else { '-' };
            let _ = writeln!(out, "{}{sep}{}", l.number, l.text);
            last = Some(l.number);
        }
        out.push('\n');
    }
    (out, shown)
}

/// Line numbers to print: each selected match, plus the context lines of
/// its contiguous run up to the neighbouring match lines.
fn runs_around(lines: &[super::grep::GrepLine], selected: &[u64]) -> BTreeSet<u64> {
    let sel: BTreeSet<u64> = selected.iter().copied().collect();
    let mut keep = BTreeSet::new();
    for (i, l) in lines.iter().enumerate() {
        if !sel.contains(&l.number) {
            continue;
        }
        keep.insert(l.number);
        // Walk back over context lines of the same run.
        let mut j = i;
        while j > 0 && !lines[j - 1].is_match && lines[j - 1].number + 1 == lines[j].number {
            j -= 1;
            keep.insert(lines[j].number);
        }
        let mut k = i;
        while k + 1 < lines.len()
            && !lines[k + 1].is_match
            && lines[k].number + 1 == lines[k + 1].number
        {
            k += 1;
            keep.insert(lines[k].number);
        }
    }
    keep
}

#[cfg(test)]
mod cancel_tests {
    use super::*;

    #[test]
    fn dropping_the_guard_raises_the_flag_the_walk_reads() {
        let guard = CancelOnDrop::default();
        let flag = guard.flag();
        assert!(!flag.load(Ordering::Relaxed));
        drop(guard);
        assert!(flag.load(Ordering::Relaxed));
    }
}
