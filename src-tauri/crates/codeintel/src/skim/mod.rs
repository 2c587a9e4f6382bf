//! Skimming: finding the function bodies (and deep data) an outline never
//! looks into, so tree-sitter can be told to parse around them
//! (`set_included_ranges`). Parsing is most of the cost of an outline and
//! bodies are most of the text, so this is what makes outlines fast.
//!
//! The scans are lexical and conservative. A skipped block still parses
//! (as `{}`, or as a body's last statement in Python), and items keep their
//! true ranges, because tree-sitter reports positions in the whole document.
//! A scan that misreads a file shows up as a syntax error where a skipped
//! part begins or ends, and the caller then parses the whole file instead
//! ([`errors_at_seams`]).

mod braces;
mod json;
mod python;

pub(crate) use braces::{
    BraceSyntax, C_FAMILY, GO, JAVA, JAVASCRIPT, KOTLIN, SWIFT, included_ranges,
};
pub(crate) use json::included_ranges as json_included_ranges;
pub(crate) use python::included_ranges as python_included_ranges;

use tree_sitter::{Point, Range, Tree};

/// Blocks shorter than this are not worth a range of their own.
pub(super) const MIN_SKIP_BYTES: usize = 64;

/// Tracks byte offset → row/column as the scan moves forward.
pub(super) struct Cursor<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
    pub row: usize,
    pub line_start: usize,
}

impl Cursor<'_> {
    pub(super) fn point(&self, at: usize) -> Point {
        Point {
            row: self.row,
            column: at - self.line_start,
        }
    }

    pub(super) fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    /// Moves one byte forward, keeping the row count.
    pub(super) fn bump(&mut self) {
        if self.bytes.get(self.pos) == Some(&b'\n') {
            self.row += 1;
            self.line_start = self.pos + 1;
        }
        self.pos += 1;
    }

    /// Skips to just past `end` (or to the end of input), honouring
    /// backslash escapes when `escapes`.
    pub(super) fn skip_until(&mut self, end: &[u8], escapes: bool) {
        while self.pos < self.bytes.len() {
            if escapes && self.bytes[self.pos] == b'\\' {
                self.bump();
                self.bump();
                continue;
            }
            if self.bytes[self.pos..].starts_with(end) {
                for _ in 0..end.len() {
                    self.bump();
                }
                return;
            }
            self.bump();
        }
    }

    /// Skips the rest of a regular expression literal (after its `/`): to
    /// the next unescaped `/` outside a `[...]` class, or the end of the
    /// line for something that was not a regex after all.
    pub(super) fn skip_regex(&mut self) {
        let mut in_class = false;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\n' => return,
                b'\\' => {
                    self.bump();
                }
                b'[' => in_class = true,
                b']' => in_class = false,
                b'/' if !in_class => {
                    self.bump();
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the end of the line (not past the newline), following
    /// backslash continuations.
    pub(super) fn skip_line(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            if self.bytes[self.pos] == b'\\' && self.peek(1) == b'\n' {
                self.bump();
            }
            self.bump();
        }
    }
}

/// The included ranges around the skipped ones.
pub(super) fn complement(
    skipped: &[(usize, Point, usize, Point)],
    len: usize,
    end: Point,
) -> Vec<Range> {
    let mut ranges = Vec::with_capacity(skipped.len() + 1);
    let (mut from, mut from_point) = (0, Point { row: 0, column: 0 });
    for &(start, start_point, stop, stop_point) in skipped {
        ranges.push(Range {
            start_byte: from,
            end_byte: start,
            start_point: from_point,
            end_point: start_point,
        });
        (from, from_point) = (stop, stop_point);
    }
    ranges.push(Range {
        start_byte: from,
        end_byte: len,
        start_point: from_point,
        end_point: end,
    });
    ranges
}

/// Whether a syntax error (or a node tree-sitter had to invent) touches a
/// seam, where a skipped block begins or ends.
pub(crate) fn errors_at_seams(tree: &Tree, ranges: &[Range]) -> bool {
    let root = tree.root_node();
    if !root.has_error() {
        return false;
    }
    // Seams, in order: the end of each included range but the last, and
    // the start of each but the first.
    let seams: Vec<usize> = ranges
        .windows(2)
        .flat_map(|w| [w[0].end_byte, w[1].start_byte])
        .collect();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            let (start, end) = (node.start_byte(), node.end_byte());
            let first = seams.partition_point(|&s| s < start);
            if seams.get(first).is_some_and(|&s| s <= end) {
                return true;
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor).filter(|c| c.has_error()));
    }
    false
}
