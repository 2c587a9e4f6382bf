//! JSON: keys below the second level are not outlined.

use tree_sitter::{Point, Range};

use super::{Cursor, MIN_SKIP_BYTES, complement};

/// JSON: the outline lists keys two levels deep, so the insides of arrays
/// below the top and of objects below the second level are skipped.
pub(crate) fn included_ranges(source: &str) -> Option<Vec<Range>> {
    let mut cur = Cursor {
        bytes: source.as_bytes(),
        pos: 0,
        row: 0,
        line_start: 0,
    };
    let mut depth = 0usize;
    let mut skipping: Option<(usize, usize, Point)> = None;
    let mut skipped = Vec::new();
    while cur.pos < cur.bytes.len() {
        match cur.bytes[cur.pos] {
            b'"' => {
                cur.bump();
                cur.skip_until(b"\"", true);
            }
            open @ (b'{' | b'[') => {
                cur.bump();
                depth += 1;
                let deep = if open == b'[' { depth >= 2 } else { depth >= 3 };
                if skipping.is_none() && deep {
                    skipping = Some((depth, cur.pos, cur.point(cur.pos)));
                }
            }
            b'}' | b']' => {
                if let Some((d, start, start_point)) = skipping
                    && d == depth
                {
                    if cur.pos - start >= MIN_SKIP_BYTES {
                        skipped.push((start, start_point, cur.pos, cur.point(cur.pos)));
                    }
                    skipping = None;
                }
                depth = depth.checked_sub(1)?;
                cur.bump();
            }
            _ => cur.bump(),
        }
    }
    if depth != 0 || skipped.is_empty() {
        return None;
    }
    Some(complement(&skipped, source.len(), cur.point(cur.pos)))
}
