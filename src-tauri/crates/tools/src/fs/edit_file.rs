//! `edit_file`: exact string replacement, unique unless `replace_all`,
//! preserving CRLF line endings, written atomically.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    RestartHint, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits, TypedTool,
};

use super::access::{require_file, target};
use super::atomic::edit_locked;
use super::label::{absolutize_path, path_label, str_arg};
use super::policy::path_arg;
use crate::tool_names as tn;

/// Arguments of `edit_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileInput {
    /// The file to edit (absolute, or relative to the working directory).
    pub path: String,
    /// The exact text to replace, including whitespace and indentation. Must
    /// occur exactly once unless replace_all is true; include surrounding
    /// lines to make it unique.
    pub old_string: String,
    /// The text to put in its place (may be empty to delete).
    pub new_string: String,
    /// Replace every occurrence instead of requiring a unique one. Default false.
    #[serde(default)]
    pub replace_all: bool,
}

/// Replaces exact text in a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditFile;

impl TypedTool for EditFile {
    type Input = EditFileInput;

    fn name(&self) -> &str {
        tn::EDIT_FILE
    }

    fn description(&self) -> &str {
        "Edit a file by replacing an exact string (old_string → new_string). Use this instead of \
         sed/awk/perl via the shell. old_string must match the file exactly (whitespace and \
         indentation included — read_file it first) and must be unique unless replace_all=true; \
         if it is not, the error says how many matches there were. CRLF files are handled (write \
         old/new with plain \\n). The write is atomic: on any error the file is unchanged."
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        path_label(self.name(), "", str_arg(args, "path"), "", length)
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

    /// Parsing plus `edit_file`'s opening checks, without touching the file.
    fn validate(&self, input: &EditFileInput) -> Result<(), ToolError> {
        validate(input).map(drop)
    }
    fn run(&self, input: EditFileInput) -> ToolResult {
        edit_file(&input)
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::WRITES
    }

    /// The tool's own edit, applied in memory (CRLF, unique matches).
    fn predict(&self, input: &EditFileInput, current: Option<&str>) -> Option<String> {
        apply_edit(current?, input).ok().map(|a| a.updated)
    }

    /// Re-running an applied edit can apply it twice.
    fn restart_hint(&self) -> RestartHint {
        RestartHint::Reask
    }
}

/// CRLF throughout: it has CRLF breaks and no bare LF ones.
fn is_crlf_file(text: &str) -> bool {
    text.contains("\r\n") && !text.replace("\r\n", "").contains('\n')
}

/// Rewrites `s`'s line endings as CRLF.
fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// A successful edit: the new text, how many matches it replaced and the
/// line of the first.
pub(crate) struct EditApplied {
    pub(crate) updated: String,
    pub(crate) count: usize,
    pub(crate) first_line: usize,
}

/// Why an edit does not apply.
pub(crate) enum EditMiss {
    NotFound,
    Ambiguous(usize),
}

/// The edit applied to `text`, pure: what the tool writes and what the
/// approval card previews. Exact match first; in a CRLF file an LF-written
/// old_string is matched with CRLF endings, and every line break the edit
/// adds to a CRLF file is CRLF too, whatever the model typed.
pub(crate) fn apply_edit(text: &str, input: &EditFileInput) -> Result<EditApplied, EditMiss> {
    let (mut old, mut new) = (input.old_string.clone(), input.new_string.clone());
    let mut count = text.matches(old.as_str()).count();
    if count == 0 && text.contains("\r\n") && old.contains('\n') {
        let crlf_old = to_crlf(&old);
        let crlf_count = text.matches(crlf_old.as_str()).count();
        if crlf_count > 0 {
            old = crlf_old;
            count = crlf_count;
        }
    }
    if is_crlf_file(text) || old.contains("\r\n") {
        new = to_crlf(&new);
    }
    if count == 0 {
        return Err(EditMiss::NotFound);
    }
    if count > 1 && !input.replace_all {
        return Err(EditMiss::Ambiguous(count));
    }
    let first_line = text
        .find(old.as_str())
        .map_or(1, |i| text[..i].matches('\n').count() + 1);
    let updated = if input.replace_all {
        text.replace(old.as_str(), &new)
    } else {
        text.replacen(old.as_str(), &new, 1)
    };
    Ok(EditApplied {
        updated,
        count,
        first_line,
    })
}

/// The argument checks that need no I/O.
pub(crate) fn validate(input: &EditFileInput) -> Result<(), ToolError> {
    if input.old_string.is_empty() {
        return Err(EditFile.invalid(
            "old_string is empty; to create a file use write_file, to add lines use insert_at_line",
        ));
    }
    if input.old_string == input.new_string {
        return Err(EditFile.invalid("old_string and new_string are identical; nothing to change"));
    }
    Ok(())
}

fn edit_file(input: &EditFileInput) -> ToolResult {
    validate(input)?;
    let t = target(&input.path)?;
    require_file(&t)?;
    let (count, first_line) = edit_locked(&t, tn::EDIT_FILE, |text| {
        let EditApplied {
            updated,
            count,
            first_line,
        } = match apply_edit(text, input) {
            Ok(applied) => applied,
            Err(EditMiss::NotFound) => {
                return Err(ToolError::Failed(format!(
                    "old_string not found in {}; read_file it and copy the exact text (whitespace and indentation must match)",
                    t.display
                )));
            }
            Err(EditMiss::Ambiguous(count)) => {
                return Err(ToolError::Failed(format!(
                    "old_string matches {count} times in {}; include more surrounding lines to make it unique, or set replace_all=true",
                    t.display
                )));
            }
        };
        Ok((updated, (count, first_line)))
    })?;
    Ok(if count == 1 {
        format!(
            "Edited {}: replaced 1 occurrence at line {first_line}",
            t.display
        )
    } else {
        format!(
            "Edited {}: replaced {count} occurrences (first at line {first_line})",
            t.display
        )
    })
}
