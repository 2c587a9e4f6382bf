//! Filesystem tools and the path policy they share.
//!
//! Every tool resolves its `path` through the one resolver ([`resolve`]),
//! component by component from directory handles, and then reads or writes
//! through the handles it judged, so what is checked is what is opened:
//! nothing under `secrets/` is read or written, however it is reached, even
//! while the tree changes underneath. Write tools lock the file's directory
//! and replace files atomically (temp file in the same directory handle +
//! rename), so no edit is lost and a failure never leaves a half-written file. Tools run on the
//! blocking thread pool, never on an async worker.
//!
//! This module never touches the database or the UI; tools return strings.

mod access;
mod atomic;
mod edit_file;
pub mod grep;
mod grep_files;
mod insert_at_line;
mod label;
mod lines;
mod list_files;
mod names;
mod policy;
mod read_file;
mod read_pdf;
mod replace_lines;
pub mod resolve;
mod search_file;
mod secret_name;
mod text;
mod write_file;

pub use edit_file::EditFile;
pub use grep_files::GrepFiles;
pub use insert_at_line::{InsertAtLine, InsertPosition};
pub use label::with_display_base;
pub use label::{absolutize_path, path_label};
pub use list_files::ListFiles;
pub(crate) use names::{escape_name, escape_os_name};
pub use policy::*;
pub use read_file::ReadFile;
pub use replace_lines::ReplaceLines;
pub use search_file::SearchFile;
pub use write_file::WriteFile;

use crate::ToolRegistry;

/// Registers every filesystem tool.
pub fn register(registry: &mut ToolRegistry) {
    registry.register(ListFiles);
    registry.register(ReadFile);
    registry.register(WriteFile);
    registry.register(EditFile);
    registry.register(InsertAtLine);
    registry.register(ReplaceLines);
    registry.register(SearchFile);
    registry.register(GrepFiles);
}
