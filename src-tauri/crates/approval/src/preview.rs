//! What a file write would do, predicted for the approval card: the file's
//! content now and after the call, computed by applying the edit in memory
//! the way the tool will (`write_file`, `edit_file`, `insert_at_line`,
//! `replace_lines`). Reads the file; never writes.
//!
//! The prediction mirrors the tools' own rules (CRLF handling, unique
//! matches, line-ending style and trailing newline kept). When the call
//! would fail (no match, a line past the end) there is no prediction: the
//! card shows the current content and the arguments.

use std::path::PathBuf;

use serde_json::Value;
use skald_tools::fs::path_arg;
use skald_tools::tool_names as tn;

use crate::pattern::FS_WRITE_TOOLS;

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

/// Whether `tool` writes files (and so gets a diff preview).
pub fn is_write_tool(tool: &str) -> bool {
    FS_WRITE_TOOLS.contains(&tool)
}

/// The preview of a write tool's call with effective `args`; `None` for
/// other tools or a call without a path.
pub fn predict_write(tool: &str, args: &Value) -> Option<WritePreview> {
    if !is_write_tool(tool) {
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
    let new = predict_content(tool, args, old.as_deref());
    Some(WritePreview { path, old, new })
}

fn read_text(path: &std::path::Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_PREVIEW_BYTES {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

fn str_field<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn u64_field(args: &Value, key: &str) -> Option<u64> {
    args.get(key).and_then(Value::as_u64)
}

/// The content `tool` would leave, given the current content (`None`: no
/// file). Pure.
pub fn predict_content(tool: &str, args: &Value, current: Option<&str>) -> Option<String> {
    match tool {
        tn::WRITE_FILE => str_field(args, "content").map(str::to_string),
        tn::EDIT_FILE => predict_edit(args, current?),
        tn::INSERT_AT_LINE => predict_insert(args, current?),
        tn::REPLACE_LINES => predict_replace(args, current?),
        _ => None,
    }
}

fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

fn predict_edit(args: &Value, text: &str) -> Option<String> {
    let mut old = str_field(args, "old_string")?.to_string();
    let mut new = str_field(args, "new_string")?.to_string();
    let replace_all = args
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if old.is_empty() || old == new {
        return None;
    }
    let mut count = text.matches(old.as_str()).count();
    if count == 0 && text.contains("\r\n") && old.contains('\n') {
        let crlf_old = to_crlf(&old);
        let crlf_count = text.matches(crlf_old.as_str()).count();
        if crlf_count > 0 {
            old = crlf_old;
            new = to_crlf(&new);
            count = crlf_count;
        }
    } else if text.contains("\r\n") && old.contains("\r\n") {
        new = to_crlf(&new);
    }
    if count == 0 || (count > 1 && !replace_all) {
        return None;
    }
    Some(if replace_all {
        text.replace(old.as_str(), &new)
    } else {
        text.replacen(old.as_str(), &new, 1)
    })
}

/// A file's lines with their terminators (the tools' `LineDoc`).
struct Lines {
    lines: Vec<(String, &'static str)>,
    eol: &'static str,
    trailing_eol: bool,
}

impl Lines {
    fn parse(text: &str) -> Self {
        let mut lines = Vec::new();
        let (mut crlf, mut lf) = (0usize, 0usize);
        for chunk in text.split_inclusive('\n') {
            if let Some(s) = chunk.strip_suffix("\r\n") {
                crlf += 1;
                lines.push((s.to_string(), "\r\n"));
            } else if let Some(s) = chunk.strip_suffix('\n') {
                lf += 1;
                lines.push((s.to_string(), "\n"));
            } else {
                lines.push((chunk.to_string(), ""));
            }
        }
        let trailing_eol = lines.last().is_none_or(|(_, eol)| !eol.is_empty());
        Self {
            lines,
            eol: if crlf > lf { "\r\n" } else { "\n" },
            trailing_eol,
        }
    }

    fn splice(&mut self, start: usize, end: usize, new_lines: Vec<String>) {
        let eol = self.eol;
        self.lines
            .splice(start..end, new_lines.into_iter().map(|l| (l, eol)));
        let n = self.lines.len();
        for (i, line) in self.lines.iter_mut().enumerate() {
            if i + 1 < n {
                if line.1.is_empty() {
                    line.1 = eol;
                }
            } else if !self.trailing_eol {
                line.1 = "";
            } else if line.1.is_empty() {
                line.1 = eol;
            }
        }
    }

    fn render(&self) -> String {
        self.lines.iter().fold(String::new(), |mut out, (t, e)| {
            out.push_str(t);
            out.push_str(e);
            out
        })
    }
}

fn content_lines(content: &str) -> Vec<String> {
    if content.is_empty() {
        return Vec::new();
    }
    let body = content
        .strip_suffix("\r\n")
        .or_else(|| content.strip_suffix('\n'))
        .unwrap_or(content);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect()
}

fn predict_insert(args: &Value, text: &str) -> Option<String> {
    let line = u64_field(args, "line")?;
    let content = str_field(args, "content")?;
    let after = str_field(args, "position") == Some("after");
    if line == 0 || content.is_empty() {
        return None;
    }
    let mut doc = Lines::parse(text);
    let total = doc.lines.len() as u64;
    let index = match after {
        false if line <= total + 1 => line - 1,
        true if line <= total => line,
        _ => return None,
    };
    let at = usize::try_from(index).ok()?;
    doc.splice(at, at, content_lines(content));
    Some(doc.render())
}

fn predict_replace(args: &Value, text: &str) -> Option<String> {
    let start = u64_field(args, "start_line")?;
    let end = u64_field(args, "end_line")?;
    let content = str_field(args, "new_content")?;
    let mut doc = Lines::parse(text);
    let total = doc.lines.len() as u64;
    if start == 0 || end < start || end > total {
        return None;
    }
    let (s, e) = (usize::try_from(start - 1).ok()?, usize::try_from(end).ok()?);
    doc.splice(s, e, content_lines(content));
    Some(doc.render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let p = predict_write(tn::EDIT_FILE, &args).unwrap();
        assert_eq!(p.old.as_deref(), Some("one\ntwo\n"));
        assert_eq!(p.new.as_deref(), Some("one\n2\n"));
        assert!(predict_write(tn::READ_FILE, &args).is_none());
    }
}
