//! A text file as a list of lines that keeps each line's own terminator, so
//! line-based edits (insert, replace) preserve CRLF/LF style and whether the
//! file ends with a newline.

/// A file's lines, each with its terminator (`""`, `"\n"` or `"\r\n"`).
pub(crate) struct LineDoc {
    lines: Vec<(String, &'static str)>,
    /// The terminator new lines get: the file's dominant style.
    eol: &'static str,
    /// Whether the file ended with a terminator (an empty file counts as yes,
    /// so content added to it ends with a newline).
    trailing_eol: bool,
}

impl LineDoc {
    pub(crate) fn parse(text: &str) -> Self {
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

    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Replaces lines `start..end` (0-based, end exclusive) with `new_lines`.
    pub(crate) fn splice(&mut self, start: usize, end: usize, new_lines: Vec<String>) {
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

    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        for (text, eol) in &self.lines {
            out.push_str(text);
            out.push_str(eol);
        }
        out
    }
}

/// Splits tool-supplied content into lines: one trailing newline is a line
/// terminator, not an extra empty line; `\r\n` and `\n` both end a line.
/// Empty content is no lines.
pub(crate) fn content_lines(content: &str) -> Vec<String> {
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

/// Counts lines as editors do: a final line without a newline counts.
pub(crate) fn count_lines(text: &str) -> usize {
    text.split_inclusive('\n').count()
}
