//! Python: the statements of a `def` body from its first up to its last are
//! left out of the parse. The parser then sees `def f(...):`, the
//! indentation of the body's first line (which keeps the block structure)
//! and the body's last statement (which keeps the function's end line).

use tree_sitter::{Point, Range};

use super::{MIN_SKIP_BYTES, complement};

/// A logical line: one statement or header, possibly over several physical
/// lines (brackets, strings, backslashes). Blank and comment-only lines are
/// not logical lines.
struct Line {
    /// Its first non-blank byte, and that byte's position.
    start: usize,
    start_point: Point,
    /// Column of its first non-blank byte.
    indent: usize,
    /// `def`/`async def` with the body on the following lines.
    opens_def_body: bool,
}

/// The ranges to parse, or `None` when nothing is worth skipping or the
/// scan ends inside a string or bracket.
pub(crate) fn included_ranges(source: &str) -> Option<Vec<Range>> {
    let lines = logical_lines(source.as_bytes())?;
    let mut skipped: Vec<(usize, Point, usize, Point)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        if !line.opens_def_body {
            i += 1;
            continue;
        }
        // The body: following lines indented deeper than the header.
        let mut last = i;
        while last + 1 < lines.len() && lines[last + 1].indent > line.indent {
            last += 1;
        }
        if last >= i + 2 {
            let (first, final_line) = (&lines[i + 1], &lines[last]);
            if final_line.start - first.start >= MIN_SKIP_BYTES {
                skipped.push((
                    first.start,
                    first.start_point,
                    final_line.start,
                    final_line.start_point,
                ));
            }
            // Nested definitions are inside the skipped part.
            i = last;
        }
        i += 1;
    }
    if skipped.is_empty() {
        return None;
    }
    let end = end_point(source);
    Some(complement(&skipped, source.len(), end))
}

fn end_point(source: &str) -> Point {
    let row = source.bytes().filter(|&b| b == b'\n').count();
    let column = source.len() - source.rfind('\n').map_or(0, |i| i + 1);
    Point { row, column }
}

/// Splits the source into logical lines, or `None` if it ends inside a
/// string or bracket (the parse then covers everything).
fn logical_lines(bytes: &[u8]) -> Option<Vec<Line>> {
    let mut lines = Vec::new();
    let (mut pos, mut row, mut line_start) = (0usize, 0usize, 0usize);
    while pos < bytes.len() {
        // At the start of a physical line that starts a logical line.
        let mut indent_end = pos;
        while indent_end < bytes.len() && matches!(bytes[indent_end], b' ' | b'\t' | b'\x0c') {
            indent_end += 1;
        }
        let first = bytes.get(indent_end).copied();
        if matches!(first, None | Some(b'\n' | b'\r' | b'#')) {
            // Blank or comment-only: skip the physical line.
            pos = indent_end;
            while pos < bytes.len() && bytes[pos] != b'\n' {
                pos += 1;
            }
            if pos < bytes.len() {
                pos += 1;
                row += 1;
                line_start = pos;
            }
            continue;
        }
        let start = indent_end;
        let start_point = Point {
            row,
            column: start - line_start,
        };
        let is_def = bytes[start..].starts_with(b"def ")
            || bytes[start..].starts_with(b"def\t")
            || bytes[start..].starts_with(b"async def ");
        // Scan to the end of the logical line.
        let mut depth = 0usize;
        let mut last_significant = 0u8;
        pos = start;
        loop {
            let Some(&b) = bytes.get(pos) else {
                if depth > 0 {
                    return None;
                }
                break;
            };
            match b {
                b'\n' => {
                    pos += 1;
                    row += 1;
                    line_start = pos;
                    if depth == 0 {
                        break;
                    }
                }
                b'#' => {
                    while pos < bytes.len() && bytes[pos] != b'\n' {
                        pos += 1;
                    }
                }
                b'\\' => {
                    // A continuation joins the next physical line.
                    pos += 1;
                    if bytes.get(pos) == Some(&b'\r') {
                        pos += 1;
                    }
                    if bytes.get(pos) == Some(&b'\n') {
                        pos += 1;
                        row += 1;
                        line_start = pos;
                    }
                }
                b'"' | b'\'' => {
                    (pos, row, line_start) = skip_string(bytes, pos, row, line_start)?;
                    last_significant = b;
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    last_significant = b;
                    pos += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    last_significant = b;
                    pos += 1;
                }
                b' ' | b'\t' | b'\r' | b'\x0c' => pos += 1,
                _ => {
                    last_significant = b;
                    pos += 1;
                }
            }
        }
        lines.push(Line {
            start,
            start_point,
            indent: start_point.column,
            opens_def_body: is_def && last_significant == b':',
        });
    }
    Some(lines)
}

/// Skips a string literal starting at the quote at `pos`; the position
/// after it, with the row bookkeeping. `None` if it never closes.
fn skip_string(
    bytes: &[u8],
    mut pos: usize,
    mut row: usize,
    mut line_start: usize,
) -> Option<(usize, usize, usize)> {
    let quote = bytes[pos];
    let triple = bytes.get(pos + 1) == Some(&quote) && bytes.get(pos + 2) == Some(&quote);
    pos += if triple { 3 } else { 1 };
    loop {
        let b = *bytes.get(pos)?;
        match b {
            b'\\' => {
                if bytes.get(pos + 1) == Some(&b'\n') {
                    row += 1;
                    line_start = pos + 2;
                }
                pos += 2;
            }
            b'\n' => {
                if !triple {
                    // An unterminated single-quoted string: a syntax error
                    // the full parse should see.
                    return None;
                }
                pos += 1;
                row += 1;
                line_start = pos;
            }
            _ if b == quote => {
                if !triple {
                    return Some((pos + 1, row, line_start));
                }
                if bytes.get(pos + 1) == Some(&quote) && bytes.get(pos + 2) == Some(&quote) {
                    return Some((pos + 3, row, line_start));
                }
                pos += 1;
            }
            _ => pos += 1,
        }
    }
}
