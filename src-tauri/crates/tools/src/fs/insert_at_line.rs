//! `insert_at_line`: insert lines before or after a line, preserving the
//! file's line-ending style and its trailing newline (or lack of one).

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

/// Where the content goes relative to `line`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InsertPosition {
    /// The content becomes line `line`; the old line `line` moves down.
    #[default]
    Before,
    /// The content follows line `line`.
    After,
}

/// Arguments of `insert_at_line`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertAtLineInput {
    /// The file to edit (absolute, or relative to the working directory).
    pub path: String,
    /// 1-based line number. With position "before", use (number of lines + 1)
    /// to append at the end of the file.
    pub line: u64,
    /// The lines to insert. A trailing newline is optional.
    pub content: String,
    /// "before" (default) or "after" the given line.
    #[serde(default)]
    pub position: InsertPosition,
}

/// Inserts lines into a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct InsertAtLine;

impl TypedTool for InsertAtLine {
    type Input = InsertAtLineInput;

    fn name(&self) -> &str {
        tn::INSERT_AT_LINE
    }

    fn description(&self) -> &str {
        "Insert lines into a file before (default) or after a 1-based line number, without \
         repeating existing text. To append, use position=\"after\" with the last line number \
         (or \"before\" with line count + 1). Line-ending style (LF/CRLF) and the file's trailing \
         newline are preserved; the write is atomic. Use read_file first to find the line number."
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let at = u64_arg(args, "line")
            .map(|l| format!(":{l}"))
            .unwrap_or_default();
        path_label(self.name(), "", str_arg(args, "path"), &at, length)
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

    fn validate(&self, input: &InsertAtLineInput) -> Result<(), ToolError> {
        validate(input).map(drop)
    }
    fn run(&self, input: InsertAtLineInput) -> ToolResult {
        insert_at_line(&input)
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::WRITES
    }

    fn predict(&self, input: &InsertAtLineInput, current: Option<&str>) -> Option<String> {
        let mut doc = LineDoc::parse(current?);
        apply_insert(&mut doc, input)?;
        Some(doc.render())
    }

    /// Re-running an applied insert inserts twice.
    fn restart_hint(&self) -> RestartHint {
        RestartHint::Reask
    }
}

/// The argument checks that need no I/O.
pub(crate) fn validate(input: &InsertAtLineInput) -> Result<(), ToolError> {
    let invalid = |reason: String| ToolError::InvalidArguments {
        tool: tn::INSERT_AT_LINE.to_string(),
        reason,
    };
    if input.line == 0 {
        return Err(invalid(
            "line is 1-based; use line=1 with position \"before\" to insert at the top".to_string(),
        ));
    }
    if input.content.is_empty() {
        return Err(invalid("content is empty; nothing to insert".to_string()));
    }
    Ok(())
}

/// Inserts the content into `doc`, pure: what the tool writes and what the
/// approval card previews. The 0-based index of the first new line and the
/// number of lines added; `None` when `line` is past the end.
pub(crate) fn apply_insert(doc: &mut LineDoc, input: &InsertAtLineInput) -> Option<(u64, usize)> {
    let total = doc.len() as u64;
    let index = match input.position {
        InsertPosition::Before if input.line <= total + 1 => input.line.checked_sub(1)?,
        InsertPosition::After if input.line <= total => input.line,
        InsertPosition::Before | InsertPosition::After => return None,
    };
    let new_lines = content_lines(&input.content);
    let added = new_lines.len();
    let at = usize::try_from(index).ok()?;
    doc.splice(at, at, new_lines);
    Some((index, added))
}

fn insert_at_line(input: &InsertAtLineInput) -> ToolResult {
    validate(input)?;
    let t = target(&input.path)?;
    require_file(&t)?;
    let (index, added, now) = edit_locked(&t, tn::INSERT_AT_LINE, |text| {
        let mut doc = LineDoc::parse(text);
        let total = doc.len() as u64;
        let Some((index, added)) = apply_insert(&mut doc, input) else {
            return Err(match input.position {
                InsertPosition::Before => ToolError::Failed(format!(
                    "line {} is past the end of {}, which has {total} lines; use line={} to append",
                    input.line,
                    t.display,
                    total + 1
                )),
                InsertPosition::After => ToolError::Failed(format!(
                    "line {} is past the end of {}, which has {total} lines{}",
                    input.line,
                    t.display,
                    if total == 0 {
                        "; use position \"before\" with line=1 for an empty file"
                    } else {
                        ""
                    }
                )),
            });
        };
        let now = doc.len();
        Ok((doc.render(), (index, added, now)))
    })?;
    Ok(format!(
        "Inserted {added} line{} into {} at line {} (file now has {now} lines)",
        if added == 1 { "" } else { "s" },
        t.display,
        index + 1,
    ))
}
