//! `replace_lines`: replace an inclusive 1-based line range, preserving the
//! file's line-ending style and trailing newline.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    RestartHint, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits, TypedTool,
};

use super::access::{require_file, target};
use super::atomic::edit_locked;
use super::label::{absolutize_path, path_label, str_arg, u64_arg};
use super::lines::{LineDoc, content_lines};
use super::policy::path_arg;
use crate::tool_names as tn;

/// Arguments of `replace_lines`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceLinesInput {
    /// The file to edit (absolute, or relative to the working directory).
    pub path: String,
    /// First line to replace, 1-based.
    pub start_line: u64,
    /// Last line to replace, inclusive.
    pub end_line: u64,
    /// The replacement lines (a trailing newline is optional). Empty deletes
    /// the range.
    pub new_content: String,
}

/// Replaces a range of lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplaceLines;

impl TypedTool for ReplaceLines {
    type Input = ReplaceLinesInput;

    fn name(&self) -> &str {
        tn::REPLACE_LINES
    }

    fn description(&self) -> &str {
        "Replace lines start_line..=end_line (1-based, inclusive) of a file with new_content; an \
         empty new_content deletes them. Read the exact range with read_file first. Line-ending \
         style and the trailing newline are preserved; the write is atomic. Prefer edit_file when \
         you can quote the text to change."
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let range = match (u64_arg(args, "start_line"), u64_arg(args, "end_line")) {
            (Some(s), Some(e)) => format!(":{s}-{e}"),
            (Some(s), None) => format!(":{s}"),
            _ => String::new(),
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

    fn validate(&self, input: &ReplaceLinesInput) -> Result<(), ToolError> {
        validate(input).map(drop)
    }
    fn run(&self, input: ReplaceLinesInput) -> ToolResult {
        replace_lines(&input)
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::WRITES
    }

    fn predict(&self, input: &ReplaceLinesInput, current: Option<&str>) -> Option<String> {
        let mut doc = LineDoc::parse(current?);
        apply_replace(&mut doc, input)?;
        Some(doc.render())
    }

    /// Re-running shifts lines a second time.
    fn restart_hint(&self) -> RestartHint {
        RestartHint::Reask
    }
}

/// The argument checks that need no I/O; the `(start, end)` lines.
pub(crate) fn validate(input: &ReplaceLinesInput) -> Result<(u64, u64), ToolError> {
    let invalid = |reason: String| ToolError::InvalidArguments {
        tool: tn::REPLACE_LINES.to_string(),
        reason,
    };
    let (start, end) = (input.start_line, input.end_line);
    if start == 0 || end == 0 {
        return Err(invalid(
            "line numbers are 1-based; start_line and end_line must be at least 1".to_string(),
        ));
    }
    if end < start {
        return Err(invalid(format!(
            "end_line ({end}) is before start_line ({start})"
        )));
    }
    Ok((start, end))
}

/// Replaces the lines in `doc`, pure: what the tool writes and what the
/// approval card previews. The number of lines added; `None` for a range
/// that is not inside the file (call [`validate`] first for the messages).
pub(crate) fn apply_replace(doc: &mut LineDoc, input: &ReplaceLinesInput) -> Option<usize> {
    let (start, end) = (input.start_line, input.end_line);
    if start == 0 || end < start || end > doc.len() as u64 {
        return None;
    }
    let new_lines = content_lines(&input.new_content);
    let added = new_lines.len();
    doc.splice(
        usize::try_from(start - 1).ok()?,
        usize::try_from(end).ok()?,
        new_lines,
    );
    Some(added)
}

fn replace_lines(input: &ReplaceLinesInput) -> ToolResult {
    let (start, end) = validate(input)?;
    let t = target(&input.path)?;
    require_file(&t)?;
    let (added, now) = edit_locked(&t, tn::REPLACE_LINES, |text| {
        let mut doc = LineDoc::parse(text);
        let total = doc.len() as u64;
        let Some(added) = apply_replace(&mut doc, input) else {
            return Err(ToolError::Failed(format!(
                "lines {start}-{end} go past the end of {}, which has {total} lines",
                t.display
            )));
        };
        let now = doc.len();
        Ok((doc.render(), (added, now)))
    })?;
    Ok(format!(
        "Replaced lines {start}-{end} of {} ({} line{} removed, {added} added; file now has {now} lines)",
        t.display,
        end - start + 1,
        if end == start { "" } else { "s" },
    ))
}
