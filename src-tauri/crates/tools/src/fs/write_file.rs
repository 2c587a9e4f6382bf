//! `write_file`: create or overwrite a file atomically, creating parent
//! directories.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{ToolCategory, ToolDescriptionLength, ToolResult, ToolTraits, TypedTool};

use super::access::target_for_write;
use super::atomic::{WriteKind, write_locked};
use super::label::{absolutize_path, path_label, str_arg};
use super::lines::count_lines;
use super::policy::path_arg;
use crate::tool_names as tn;

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileInput {
    /// The file to write (absolute, or relative to the working directory).
    /// Missing parent directories are created.
    pub path: String,
    /// The complete new contents of the file.
    pub content: String,
}

/// Creates or overwrites a whole file.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFile;

impl TypedTool for WriteFile {
    type Input = WriteFileInput;

    fn name(&self) -> &str {
        tn::WRITE_FILE
    }

    fn description(&self) -> &str {
        "Create a file, or overwrite one with entirely new contents. Missing parent directories \
         are created; the write is atomic (the old file stays intact if anything fails) and keeps \
         the file's permissions. Use this instead of shell redirection (echo/cat > file). To change \
         part of an existing file use edit_file, replace_lines or insert_at_line instead of \
         rewriting it."
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
    fn run(&self, input: WriteFileInput) -> ToolResult {
        let t = target_for_write(&input.path)?;
        let kind = write_locked(&t, input.content.as_bytes())?;
        let verb = match kind {
            WriteKind::Created => "Created",
            WriteKind::Overwrote => "Overwrote",
        };
        let lines = count_lines(&input.content);
        Ok(format!(
            "{verb} {} ({} bytes, {lines} line{})",
            t.display,
            input.content.len(),
            if lines == 1 { "" } else { "s" }
        ))
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::WRITES
    }

    fn predict(&self, input: &WriteFileInput, _current: Option<&str>) -> Option<String> {
        Some(input.content.clone())
    }
}
