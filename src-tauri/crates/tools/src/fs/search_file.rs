//! `search_file`: case-insensitive substring search in one file, streamed,
//! with numbered context.

use std::collections::VecDeque;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits, TypedTool,
};

use super::access::{io_failed, require_file, target};
use super::grep::MAX_PATTERN_BYTES;
use super::label::{absolutize_path, path_label, quoted, str_arg};
use super::policy::path_arg;
use super::text::{
    LineReader, SEARCH_BUDGET_BYTES, cut_chars, decode, human_size, marked, open_text,
};
use crate::tool_names as tn;

/// Matches shown before the output is capped (all are still counted).
pub const MAX_SEARCH_MATCHES: usize = 100;
/// Characters of a line shown.
const MAX_LINE_CHARS: usize = 500;
/// Bytes of one line searched (a longer line is searched in its first part).
const MAX_LINE_BYTES: usize = 1024 * 1024;

fn default_context() -> u64 {
    2
}

/// Arguments of `search_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFileInput {
    /// The file to search (absolute, or relative to the working directory).
    pub path: String,
    /// Text to find: a plain, case-insensitive substring (not a regex).
    pub query: String,
    /// Lines of context around each match, 0–10. Default 2.
    #[serde(default = "default_context")]
    pub context_lines: u64,
}

/// Finds text in one file.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchFile;

impl TypedTool for SearchFile {
    type Input = SearchFileInput;

    fn name(&self) -> &str {
        tn::SEARCH_FILE
    }

    fn description(&self) -> &str {
        "Find a plain substring (case-insensitive, not a regex) in one file and show each match \
         with its line number and surrounding lines (`>  12 | match`, `   13 | context`). Use this \
         instead of grep on a single file, to locate the line numbers for read_file, \
         replace_lines or insert_at_line. Shows up to 100 matches. For regexes or many files use \
         grep_files."
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let q = quoted(str_arg(args, "query").unwrap_or(""), length.max_chars() / 3);
        path_label(
            self.name(),
            &format!("{q} in "),
            str_arg(args, "path"),
            "",
            length,
        )
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

    /// Parsing plus `search_file`'s opening checks, without opening the file.
    fn validate(&self, input: &SearchFileInput) -> Result<(), ToolError> {
        validate(input).map(drop)
    }
    fn run(&self, input: SearchFileInput) -> ToolResult {
        search_file(&input)
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READS
    }
}

/// The argument checks that need no I/O.
fn validate(input: &SearchFileInput) -> Result<(), ToolError> {
    let invalid = |reason: String| ToolError::InvalidArguments {
        tool: tn::SEARCH_FILE.to_string(),
        reason,
    };
    if input.query.is_empty() {
        return Err(invalid("query is empty; pass the text to find".to_string()));
    }
    // The query is plain text, not a regex, so only grep_files' length cap
    // applies: a megabyte of query is refused, not lowercased per line.
    if input.query.len() > MAX_PATTERN_BYTES {
        return Err(invalid(format!(
            "query is {} bytes long; the limit is {MAX_PATTERN_BYTES} (search for a shorter, distinctive part of the text)",
            input.query.len()
        )));
    }
    if input.context_lines > 10 {
        return Err(invalid(format!(
            "context_lines must be between 0 and 10 (got {})",
            input.context_lines
        )));
    }
    Ok(())
}

fn search_file(input: &SearchFileInput) -> ToolResult {
    validate(input)?;
    let ctx = input.context_lines as usize;
    let needle = input.query.to_lowercase();
    let t = target(&input.path)?;
    let info = require_file(&t)?;
    let mut lines = LineReader::new(open_text(&t, tn::SEARCH_FILE)?, MAX_LINE_BYTES)
        .with_budget(SEARCH_BUDGET_BYTES);

    let mut out = String::new();
    let mut before: VecDeque<(u64, String)> = VecDeque::with_capacity(ctx);
    let mut after_left = 0usize;
    let mut last_printed = 0u64;
    let mut matches = 0usize;
    let mut lossy = false;
    let mut long_lines = 0u64;
    let mut n = 0u64;
    let print = |out: &mut String, last: &mut u64, num: u64, text: &str, is_match: bool| {
        if *last != 0 && num > *last + 1 {
            out.push_str("--\n");
        }
        out.push_str(&marked(
            num,
            &cut_chars(text, MAX_LINE_CHARS, false),
            is_match,
        ));
        out.push('\n');
        *last = num;
    };
    while let Some(line) = lines
        .next_line()
        .map_err(|e| io_failed(&e, "read", &t.display))?
    {
        n += 1;
        if line.cut {
            long_lines += 1;
        }
        let text = decode(&line, &mut lossy);
        let is_match = text.to_lowercase().contains(&needle);
        if is_match {
            matches += 1;
        }
        if is_match && matches <= MAX_SEARCH_MATCHES {
            while let Some((num, prev)) = before.pop_front() {
                print(&mut out, &mut last_printed, num, &prev, false);
            }
            print(&mut out, &mut last_printed, n, &text, true);
            after_left = ctx;
        } else if after_left > 0 {
            print(&mut out, &mut last_printed, n, &text, is_match);
            after_left -= 1;
        } else if ctx > 0 && matches < MAX_SEARCH_MATCHES {
            if before.len() == ctx {
                before.pop_front();
            }
            before.push_back((n, text));
        }
    }

    let budget_note = if lines.exhausted() {
        format!(
            "[stopped after the first {} of {} ({n} lines); use grep_files to search the whole file]\n",
            human_size(SEARCH_BUDGET_BYTES),
            human_size(info.len)
        )
    } else {
        String::new()
    };
    let long_note = if long_lines > 0 {
        format!(
            "[{long_lines} line{} longer than {} MB: only the first {} MB of each was searched; grep_files searches whole lines up to {} MB]\n",
            if long_lines == 1 { " was" } else { "s were" },
            MAX_LINE_BYTES / (1024 * 1024),
            MAX_LINE_BYTES / (1024 * 1024),
            super::grep::MAX_LINE_BYTES >> 20,
        )
    } else {
        String::new()
    };
    if matches == 0 {
        let mut msg = format!(
            "No matches for {} in {} ({n} lines searched)",
            quoted(&input.query, 200),
            t.display
        );
        for note in [&long_note, &budget_note] {
            if !note.is_empty() {
                msg.push('\n');
                msg.push_str(note.trim_end());
            }
        }
        return Ok(msg);
    }
    let mut head = format!(
        "{matches} match{} for {} in {}:\n",
        if matches == 1 { "" } else { "es" },
        quoted(&input.query, 200),
        t.display
    );
    head.push_str(&out);
    if matches > MAX_SEARCH_MATCHES {
        head.push_str(&format!(
            "[showing the first {MAX_SEARCH_MATCHES} of {matches} matches; use a more specific query, or read_file with start_line to see more]\n"
        ));
    }
    if lossy {
        head.push_str("[the file is not valid UTF-8; invalid bytes are shown as �]\n");
    }
    head.push_str(&long_note);
    head.push_str(&budget_note);
    Ok(head)
}
