//! `read_file`: a numbered range of a text file, streamed (a huge file is
//! never loaded whole, a huge line is cut).

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits, TypedTool,
};

use super::access::{io_failed, require_file, target};
use super::label::{absolutize_path, path_label, str_arg, u64_arg};
use super::policy::path_arg;
use super::text::{
    COUNT_BUDGET_BYTES, LineReader, RestCount, cut_chars, decode, human_size, numbered, open_text,
};
use crate::tool_names as tn;

/// The most lines one call returns (and the default `limit`).
pub const MAX_READ_LINES: u64 = 2000;
/// Bytes read to reach and show the requested lines before reading stops
/// (a range deep inside a huge file, or a line without end in a sparse one).
const READ_BUDGET_BYTES: u64 = 1024 * 1024 * 1024;
/// Characters of one line shown before it is cut.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes of one line kept while streaming (enough for `MAX_LINE_CHARS`).
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileInput {
    /// The file to read (absolute, or relative to the working directory).
    pub path: String,
    /// First line to show, 1-based. Default 1.
    #[serde(default)]
    pub start_line: Option<u64>,
    /// Last line to show, inclusive. Default: as far as `limit` allows.
    #[serde(default)]
    pub end_line: Option<u64>,
    /// Most lines to show, 1–2000. Default 2000.
    #[serde(default)]
    pub limit: Option<u64>,
}

/// Reads a text file as numbered lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadFile;

impl TypedTool for ReadFile {
    type Input = ReadFileInput;

    fn name(&self) -> &str {
        tn::READ_FILE
    }

    fn description(&self) -> &str {
        "Read a text file as numbered lines (`    N | text`). Use this instead of cat/head/tail/sed \
         via the shell. Reads up to 2000 lines per call; for a long file pass start_line (and \
         end_line or limit) to read the next part — the result says how many lines the file has \
         and where to continue. Lines over 2000 characters are cut. A PDF gives its text, page \
         by page (`[page N of M]` lines mark where each starts). Other binary files are refused \
         (use get_ast_outline for source structure). For directories use list_files; to find \
         text use search_file (one file) or grep_files (many files)."
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let range = match (u64_arg(args, "start_line"), u64_arg(args, "end_line")) {
            (Some(s), Some(e)) => format!(":{s}-{e}"),
            (Some(s), None) => format!(":{s}-"),
            (None, Some(e)) => format!(":1-{e}"),
            (None, None) => String::new(),
        };
        path_label(self.name(), "", str_arg(args, "path"), &range, length)
    }

    fn target_path(&self, args: &Value) -> Option<String> {
        path_arg(args)
    }

    fn effective_args(&self, args: Value, workdir: &Path) -> Value {
        absolutize_path(args, workdir, false)
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }

    fn validate(&self, input: &ReadFileInput) -> Result<(), ToolError> {
        validate(input).map(drop)
    }
    fn run(&self, input: ReadFileInput) -> ToolResult {
        read_file(&input)
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READS
    }
}

/// The argument checks that need no I/O; `(start, limit)` to read with.
fn validate(input: &ReadFileInput) -> Result<(u64, u64), ToolError> {
    let start = input.start_line.unwrap_or(1);
    if start == 0 {
        return Err(ReadFile.invalid("start_line is 1-based; use start_line=1 for the first line"));
    }
    let limit = input.limit.unwrap_or(MAX_READ_LINES);
    if limit == 0 || limit > MAX_READ_LINES {
        return Err(ReadFile.invalid(format!(
            "limit must be between 1 and {MAX_READ_LINES} (got {limit})"
        )));
    }
    if let Some(end) = input.end_line
        && end < start
    {
        return Err(ReadFile.invalid(format!("end_line ({end}) is before start_line ({start})")));
    }
    Ok((start, limit))
}

fn read_file(input: &ReadFileInput) -> ToolResult {
    let (start, limit) = validate(input)?;
    let t = target(&input.path)?;
    let info = require_file(&t)?;
    if super::read_pdf::is_pdf(&t)? {
        return super::read_pdf::read_pdf(&t, start, limit, input.end_line);
    }
    let reader = open_text(&t, tn::READ_FILE)?;
    let mut lines = LineReader::new(reader, MAX_LINE_BYTES).with_budget(READ_BUDGET_BYTES);

    let by_limit = start.saturating_add(limit - 1);
    let last_wanted = input.end_line.map_or(by_limit, |e| e.min(by_limit));
    let mut out = String::new();
    let mut lossy = false;
    let mut any_cut = false;
    let mut n = 0u64;
    let read_err = |e: std::io::Error| io_failed(&e, "read", &t.display);
    while let Some(line) = lines.next_line().map_err(read_err)? {
        n += 1;
        if n >= start {
            let text = decode(&line, &mut lossy);
            let shown = cut_chars(&text, MAX_LINE_CHARS, line.cut);
            any_cut |= shown.len() != text.len();
            out.push_str(&numbered(n, &shown));
            out.push('\n');
        }
        if n == last_wanted {
            break;
        }
    }
    let shown_end = n;
    let (total, exact) = if n == last_wanted {
        match lines.count_rest(COUNT_BUDGET_BYTES).map_err(read_err)? {
            RestCount::Exact(rest) => (n + rest, true),
            RestCount::AtLeast(rest) => (n + rest, false),
        }
    } else {
        (n, true)
    };

    if total == 0 {
        return Ok(format!("{} is empty (0 lines)", t.display));
    }
    if start > total && lines.exhausted() {
        return Err(ToolError::Failed(format!(
            "start_line {start} is beyond the {total} lines in the first {} of {} ({}); read_file reads no further — use search_file or grep_files to find the lines you need",
            human_size(READ_BUDGET_BYTES),
            t.display,
            human_size(info.len),
        )));
    }
    if start > total {
        return Err(ToolError::Failed(format!(
            "start_line {start} is past the end of {}, which has {total} lines",
            t.display
        )));
    }
    if lines.exhausted() && shown_end < last_wanted {
        out.push_str(&format!(
            "[stopped after reading {} of {} ({shown_end} lines); a range this far in is too large to read with read_file: use search_file or grep_files]\n",
            human_size(READ_BUDGET_BYTES),
            human_size(info.len),
        ));
    } else if !exact {
        out.push_str(&format!(
            "[showing lines {start}-{shown_end} of more than {total} ({}); continue with start_line={}]\n",
            human_size(info.len),
            shown_end + 1
        ));
    } else if shown_end < total {
        out.push_str(&format!(
            "[showing lines {start}-{shown_end} of {total}; continue with start_line={}]\n",
            shown_end + 1
        ));
    } else if start > 1 || input.end_line.is_some_and(|e| e > total) {
        out.push_str(&format!("[end of file: {total} lines]\n"));
    }
    if any_cut {
        out.push_str(&format!(
            "[lines longer than {MAX_LINE_CHARS} characters were cut]\n"
        ));
    }
    if lossy {
        out.push_str("[the file is not valid UTF-8; invalid bytes are shown as �]\n");
    }
    Ok(out)
}
