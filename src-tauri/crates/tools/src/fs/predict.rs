//! What a write tool would leave in a file, computed without writing: the
//! approval card's diff. It runs the tools' own edit logic, so the preview
//! and the write cannot disagree.

use serde::de::DeserializeOwned;
use serde_json::Value;
use skald_core_api::parse_args;

use super::edit_file::{self, EditFileInput, apply_edit};
use super::insert_at_line::{self, InsertAtLineInput, apply_insert};
use super::lines::LineDoc;
use super::replace_lines::{self, ReplaceLinesInput, apply_replace};
use crate::tool_names as tn;

fn input<T: DeserializeOwned>(tool: &str, args: &Value) -> Option<T> {
    parse_args(tool, args.clone()).ok()
}

/// The content `tool` would leave given the current content (`None`: the
/// file does not exist); `None` when the call would fail or `tool` does not
/// write files. Pure.
pub fn predict_content(tool: &str, args: &Value, current: Option<&str>) -> Option<String> {
    match tool {
        t if t == tn::WRITE_FILE => args.get("content")?.as_str().map(str::to_string),
        t if t == tn::EDIT_FILE => {
            let input: EditFileInput = input(tool, args)?;
            edit_file::validate(&input).ok()?;
            apply_edit(current?, &input).ok().map(|a| a.updated)
        }
        t if t == tn::INSERT_AT_LINE => {
            let input: InsertAtLineInput = input(tool, args)?;
            insert_at_line::validate(&input).ok()?;
            let mut doc = LineDoc::parse(current?);
            apply_insert(&mut doc, &input)?;
            Some(doc.render())
        }
        t if t == tn::REPLACE_LINES => {
            let input: ReplaceLinesInput = input(tool, args)?;
            replace_lines::validate(&input).ok()?;
            let mut doc = LineDoc::parse(current?);
            apply_replace(&mut doc, &input)?;
            Some(doc.render())
        }
        _ => None,
    }
}
