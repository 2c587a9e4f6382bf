//! Reading text files for tools: binary sniffing, bounded line-by-line
//! streaming (a huge file or a huge line is never loaded whole), decoding,
//! and the numbered-line format (`    12 | text`) every tool shows.
//!
//! Decoding policy: read tools decode invalid UTF-8 lossily (`�`) and say so;
//! edit tools refuse non-UTF-8 files, since writing back a lossy decode would
//! corrupt them.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek};

use skald_core_api::ToolError;

use super::access::{Target, io_failed, open_target};

/// How much of a file is sniffed for a NUL byte.
pub(crate) const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Bytes read past the shown lines to count the rest of a file: enough for
/// any source file, so a 5 GB log costs what it shows, not what it holds.
pub(crate) const COUNT_BUDGET_BYTES: u64 = 32 * 1024 * 1024;

/// Bytes `search_file` scans before it stops and says so (grep_files is the
/// tool for searching more).
pub(crate) const SEARCH_BUDGET_BYTES: u64 = 256 * 1024 * 1024;

/// Files larger than this are refused by the edit tools (read whole).
pub(crate) const MAX_EDIT_BYTES: u64 = 64 * 1024 * 1024;

/// Opens a regular file for streaming, refusing binary files (a NUL byte in
/// the first 8 KB).
pub(crate) fn open_text(t: &Target, tool: &str) -> Result<BufReader<File>, ToolError> {
    let mut file = open_target(t)?;
    let mut head = Vec::with_capacity(BINARY_SNIFF_BYTES);
    (&mut file)
        .take(BINARY_SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| io_failed(&e, "read", &t.display))?;
    if head.contains(&0) {
        return Err(binary_error(&t.display, tool));
    }
    file.rewind()
        .map_err(|e| io_failed(&e, "read", &t.display))?;
    Ok(BufReader::with_capacity(64 * 1024, file))
}

/// The refusal for a binary file.
pub(crate) fn binary_error(display: &str, tool: &str) -> ToolError {
    ToolError::Failed(format!(
        "{display} looks like a binary file (NUL byte in the first 8 KB); {tool} only handles text. \
         For source structure use get_ast_outline; to inspect bytes use execute_cmd (e.g. `file`, `xxd | head`)"
    ))
}

/// Reads a whole text file for editing: binary, non-UTF-8 and oversized
/// files are refused with a one-line reason.
pub(crate) fn read_for_edit(
    file: &mut File,
    display: &str,
    tool: &str,
    size: u64,
) -> Result<String, ToolError> {
    if size > MAX_EDIT_BYTES {
        return Err(ToolError::Failed(format!(
            "{} is {} MB, too large for {tool} (limit {} MB); use execute_cmd with a streaming tool",
            display,
            size / (1024 * 1024),
            MAX_EDIT_BYTES / (1024 * 1024)
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_failed(&e, "read", display))?;
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(binary_error(display, tool));
    }
    String::from_utf8(bytes).map_err(|e| {
        ToolError::Failed(format!(
            "{} is not valid UTF-8 text (invalid byte at offset {}); {tool} edits UTF-8 files only, \
             use write_file to replace it entirely",
            display,
            e.utf8_error().valid_up_to()
        ))
    })
}

/// One line read by [`LineReader`].
pub(crate) struct Line<'a> {
    /// The kept bytes, without the line terminator (`\n` or `\r\n`).
    pub bytes: &'a [u8],
    /// Whether the line was longer than the cap and cut.
    pub cut: bool,
}

/// Streams lines with a per-line byte cap: a line longer than the cap keeps
/// its first `cap` bytes and the rest is skipped without being buffered.
pub(crate) struct LineReader<R> {
    reader: R,
    buf: Vec<u8>,
    cap: usize,
    /// Bytes that may still be consumed (a line without end in a sparse
    /// 5 GB file must not be skipped to its end).
    budget: u64,
    exhausted: bool,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(reader: R, cap: usize) -> Self {
        Self {
            reader,
            buf: Vec::new(),
            cap,
            budget: u64::MAX,
            exhausted: false,
        }
    }

    /// Stops reading (as if at the end) once `bytes` were consumed; see
    /// [`LineReader::exhausted`].
    pub(crate) fn with_budget(mut self, bytes: u64) -> Self {
        self.budget = bytes;
        self
    }

    /// Whether reading stopped at the budget rather than at the end.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// The next line, or `None` at end of file. A final line without a
    /// terminator counts; an empty file has no lines.
    pub(crate) fn next_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let mut cut = false;
        let mut any = false;
        loop {
            if self.exhausted {
                break;
            }
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            if self.budget == 0 {
                self.exhausted = true;
                cut = true;
                break;
            }
            let chunk = &chunk[..chunk
                .len()
                .min(usize::try_from(self.budget).unwrap_or(usize::MAX))];
            any = true;
            let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let room = self.cap.saturating_sub(self.buf.len());
            if room < take {
                cut = true;
            }
            self.buf.extend_from_slice(&chunk[..take.min(room)]);
            self.reader.consume(take);
            self.budget -= take as u64;
            if done {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        let mut end = self.buf.len();
        if !cut {
            if self.buf.last() == Some(&b'\n') {
                end -= 1;
            }
            if end > 0 && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
        }
        Ok(Some(Line {
            bytes: &self.buf[..end],
            cut,
        }))
    }

    /// Counts the lines left without keeping them.
    pub(crate) fn count_rest(&mut self, max_bytes: u64) -> std::io::Result<RestCount> {
        let max_bytes = max_bytes.min(self.budget);
        let mut lines = 0u64;
        let mut seen = 0u64;
        let mut last: Option<u8> = None;
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            if seen >= max_bytes {
                return Ok(RestCount::AtLeast(lines));
            }
            lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
            last = chunk.last().copied();
            let n = chunk.len();
            seen += n as u64;
            self.reader.consume(n);
        }
        if last.is_some_and(|b| b != b'\n') {
            lines += 1;
        }
        Ok(RestCount::Exact(lines))
    }
}

/// How many lines follow, as far as [`LineReader::count_rest`] looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RestCount {
    Exact(u64),
    /// The budget ran out: at least this many (the file goes on).
    AtLeast(u64),
}

/// Decodes a line; `lossy` is set when invalid UTF-8 was replaced. A line
/// cut by the byte cap may end inside a character: that tail is dropped, not
/// counted as invalid.
pub(crate) fn decode(line: &Line<'_>, lossy: &mut bool) -> String {
    match std::str::from_utf8(line.bytes) {
        Ok(s) => s.to_string(),
        Err(e) if line.cut && e.error_len().is_none() => {
            String::from_utf8_lossy(&line.bytes[..e.valid_up_to()]).into_owned()
        }
        Err(_) => {
            *lossy = true;
            String::from_utf8_lossy(line.bytes).into_owned()
        }
    }
}

/// Cuts `s` to `max` characters, appending a marker when cut.
pub(crate) fn cut_chars(s: &str, max: usize, cut_already: bool) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… [line cut]", &s[..i]),
        None if cut_already => format!("{s}… [line cut]"),
        None => s.to_string(),
    }
}

/// `    12 | text`: the line number right-aligned in six columns.
pub(crate) fn numbered(n: u64, text: &str) -> String {
    format!("{n:>6} | {text}")
}

/// `>   12 | text` (a match) or `    13 | text` (context) for search output.
pub(crate) fn marked(n: u64, text: &str, is_match: bool) -> String {
    let mark = if is_match { '>' } else { ' ' };
    format!("{mark}{n:>5} | {text}")
}

/// A byte count for people: `812 B`, `4.2 MB`, `5.0 GB`.
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}
