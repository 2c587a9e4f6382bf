//! `show_file_to_user(path)`: opens a file in the person's viewer by
//! raising `OpenFile` with the path as the person reads it (relative to the
//! session's working directory inside it, absolute otherwise). The path
//! policy applies: a file under `secrets/` is refused, never shown.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{ToolCategory, ToolDescriptionLength, ToolError, ToolResult, TypedTool};
use skald_protocol::SessionEvent;
use skald_tools::fs::{
    absolutize_path, check_read_allowed, path_arg, path_label, relativize_for_display,
};
use skald_tools::tool_names as tn;

use crate::interface::FrameEvents;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowFileInput {
    /// The file to show (relative to the working directory, or absolute).
    pub path: String,
}

#[derive(Clone)]
pub struct ShowFileToUser {
    session_id: String,
    workdir: PathBuf,
    events: FrameEvents,
}

impl ShowFileToUser {
    pub fn new(session_id: String, workdir: PathBuf, events: FrameEvents) -> Self {
        Self {
            session_id,
            workdir,
            events,
        }
    }

    fn open(&self, raw: &str) -> Result<String, ToolError> {
        let joined = self.workdir.join(raw);
        let path = joined.as_path();
        let shown = relativize_for_display(path, &self.workdir);
        // The read tools' policy and its one-line refusals (secrets/ first).
        let canonical = check_read_allowed(path)?;
        let meta = std::fs::metadata(&canonical)
            .map_err(|e| ToolError::Failed(format!("cannot show {shown}: {e}")))?;
        if meta.is_dir() {
            return Err(ToolError::Failed(format!(
                "{shown} is a directory; pass a file to show"
            )));
        }
        self.events.emit(SessionEvent::OpenFile {
            session_id: self.session_id.clone(),
            path: shown.clone(),
        });
        Ok(format!("Opened {shown} in the person's viewer."))
    }
}

impl TypedTool for ShowFileToUser {
    type Input = ShowFileInput;

    fn name(&self) -> &str {
        tn::SHOW_FILE_TO_USER
    }

    fn description(&self) -> &str {
        "Opens a file in the person's file viewer (Markdown, code, text, images, SVG, PDF, \
         LaTeX, HTML) so they can look at it. For a LaTeX document pass the .tex source, not a \
         built .pdf. Files under secrets/ are never shown."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }

    fn validate(&self, input: &ShowFileInput) -> Result<(), ToolError> {
        if input.path.trim().is_empty() {
            return Err(self.invalid("path is empty: pass the file to show"));
        }
        Ok(())
    }

    fn effective_args(&self, args: Value, workdir: &Path) -> Value {
        absolutize_path(args, workdir, false)
    }

    fn run(&self, input: ShowFileInput) -> ToolResult {
        self.open(input.path.trim())
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        match path_arg(args) {
            Some(path) => path_label(tn::SHOW_FILE_TO_USER, "`", Some(&path), "`", length),
            None => tn::SHOW_FILE_TO_USER.to_string(),
        }
    }

    fn target_path(&self, args: &Value) -> Option<String> {
        path_arg(args)
    }
}
