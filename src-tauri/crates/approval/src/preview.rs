//! What a file write would do, predicted for the approval card: the file's
//! content now and after the call, computed by applying the edit in memory
//! the way the tool will (`write_file`, `edit_file`, `insert_at_line`,
//! `replace_lines`). Reads the file; never writes.
//!
//! The prediction is the tool's own (`Tool::predict_content`: the built-in
//! writers apply their edit code in memory — CRLF handling, unique matches,
//! line-ending style and trailing newline kept). When the call would fail
//! (no match, a line past the end) or the tool does not predict, there is
//! no prediction: the card shows the current content and the arguments.

use std::path::PathBuf;

use serde_json::Value;
use skald_tools::fs::path_arg;

use skald_core_api::Tool;

/// Largest file read for a preview (the tools refuse bigger edits anyway).
pub const MAX_PREVIEW_BYTES: u64 = 2 * 1024 * 1024;

/// A predicted write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritePreview {
    /// The file (the call's path, absolute when its arguments are effective).
    pub path: PathBuf,
    /// The content now; `None` when the file does not exist (or is not
    /// readable text).
    pub old: Option<String>,
    /// The predicted content; `None` when the call would fail.
    pub new: Option<String>,
}

/// The preview of a call to `tool` with effective `args`, when the tool
/// declares it writes files (its traits); `None` for other tools or a call
/// without a path. A writer that does not predict its edit gets the current
/// content only.
pub fn predict_write(tool: &dyn Tool, args: &Value) -> Option<WritePreview> {
    if !tool.traits().writes_files {
        return None;
    }
    let path = PathBuf::from(path_arg(args)?);
    // Never copy a secret into the preview (the DB and the approval card):
    // the same policy as the read tools, symlinks and `..` included. The
    // tool refuses such a write anyway.
    if skald_tools::fs::check_read_allowed(&path).is_err() {
        return Some(WritePreview {
            path,
            old: None,
            new: None,
        });
    }
    let old = read_text(&path);
    let new = tool.predict_content(args, old.as_deref());
    Some(WritePreview { path, old, new })
}

/// The file's text, read through the handle the policy judged (a path
/// swapped for a link into `secrets/` after the check cannot be read).
fn read_text(path: &std::path::Path) -> Option<String> {
    use std::io::Read;
    let (_, file, len) = skald_tools::fs::open_for_read(path).ok()?;
    if len > MAX_PREVIEW_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_PREVIEW_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_PREVIEW_BYTES {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use skald_tools::tool_names as tn;
    use skald_tools::{BuiltinDeps, ToolRegistry, builtin_registry};

    fn registry() -> ToolRegistry {
        builtin_registry(&BuiltinDeps::default())
    }

    /// What the built-in `tool` predicts.
    fn predict_content(tool: &str, args: &Value, current: Option<&str>) -> Option<String> {
        registry().get(tool)?.predict_content(args, current)
    }

    #[test]
    fn write_file_predicts_its_content() {
        let args = json!({"path": "/x", "content": "new\n"});
        assert_eq!(
            predict_content(tn::WRITE_FILE, &args, Some("old\n")),
            Some("new\n".to_string())
        );
        assert_eq!(
            predict_content(tn::WRITE_FILE, &args, None),
            Some("new\n".to_string())
        );
    }

    #[test]
    fn edit_file_replaces_a_unique_match_only() {
        let args = json!({"path": "/x", "old_string": "b", "new_string": "B"});
        assert_eq!(
            predict_content(tn::EDIT_FILE, &args, Some("a\nb\nc\n")),
            Some("a\nB\nc\n".to_string())
        );
        assert_eq!(predict_content(tn::EDIT_FILE, &args, Some("b b")), None);
        let all = json!({"path": "/x", "old_string": "b", "new_string": "B", "replace_all": true});
        assert_eq!(
            predict_content(tn::EDIT_FILE, &all, Some("b b")),
            Some("B B".to_string())
        );
        let crlf = json!({"path": "/x", "old_string": "a\nb", "new_string": "x\ny"});
        assert_eq!(
            predict_content(tn::EDIT_FILE, &crlf, Some("a\r\nb\r\n")),
            Some("x\r\ny\r\n".to_string())
        );
        assert_eq!(predict_content(tn::EDIT_FILE, &args, None), None);
    }

    #[test]
    fn line_tools_keep_style_and_trailing_newline() {
        let ins = json!({"path": "/x", "line": 2, "content": "new"});
        assert_eq!(
            predict_content(tn::INSERT_AT_LINE, &ins, Some("a\r\nb")),
            Some("a\r\nnew\r\nb".to_string())
        );
        let after = json!({"path": "/x", "line": 2, "content": "z\n", "position": "after"});
        assert_eq!(
            predict_content(tn::INSERT_AT_LINE, &after, Some("a\nb\n")),
            Some("a\nb\nz\n".to_string())
        );
        let past = json!({"path": "/x", "line": 9, "content": "z"});
        assert_eq!(
            predict_content(tn::INSERT_AT_LINE, &past, Some("a\n")),
            None
        );
        let rep = json!({"path": "/x", "start_line": 1, "end_line": 2, "new_content": "X\n"});
        assert_eq!(
            predict_content(tn::REPLACE_LINES, &rep, Some("a\nb\nc\n")),
            Some("X\nc\n".to_string())
        );
        let del = json!({"path": "/x", "start_line": 2, "end_line": 2, "new_content": ""});
        assert_eq!(
            predict_content(tn::REPLACE_LINES, &del, Some("a\nb\nc")),
            Some("a\nc".to_string())
        );
    }

    #[test]
    fn predict_write_reads_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "one\ntwo\n").unwrap();
        let args = json!({"path": file.to_str().unwrap(), "old_string": "two", "new_string": "2"});
        let r = registry();
        let p = predict_write(r.get(tn::EDIT_FILE).unwrap().as_ref(), &args).unwrap();
        assert_eq!(p.old.as_deref(), Some("one\ntwo\n"));
        assert_eq!(p.new.as_deref(), Some("one\n2\n"));
        assert!(predict_write(r.get(tn::READ_FILE).unwrap().as_ref(), &args).is_none());
    }
}
