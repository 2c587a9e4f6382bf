//! Turning a flat list of headings (or indented definitions) into nested
//! items whose ranges run to the next heading of the same or a higher level.

use crate::OutlineItem;

/// One entry before nesting: a smaller `level` is an outer one (a `#`
/// heading is level 1, a definition at column 0 is level 0).
pub(crate) struct Flat {
    pub level: usize,
    /// 0-based line.
    pub line: usize,
    pub kind: &'static str,
    pub name: String,
}

/// Nests `flat` (in source order). An entry ends on the last non-blank line
/// before the next entry at its level or an outer one, or before the end of
/// the file.
pub(crate) fn nest(flat: Vec<Flat>, source: &str) -> Vec<OutlineItem> {
    let blank: Vec<bool> = source.lines().map(|l| l.trim().is_empty()).collect();
    let line_count = blank.len();
    // End line (0-based, exclusive) of each entry, before trimming blanks.
    let mut ends = vec![line_count; flat.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, entry) in flat.iter().enumerate() {
        while let Some(&top) = open.last() {
            if flat[top].level >= entry.level {
                ends[top] = entry.line;
                open.pop();
            } else {
                break;
            }
        }
        open.push(i);
    }
    let last_content = |start: usize, end: usize| -> usize {
        let mut last = start;
        for (row, &is_blank) in blank.iter().enumerate().take(end).skip(start) {
            if !is_blank {
                last = row;
            }
        }
        last
    };
    // Build the tree with a stack of open items.
    let mut roots: Vec<OutlineItem> = Vec::new();
    let mut stack: Vec<(usize, OutlineItem)> = Vec::new();
    for (entry, end) in flat.into_iter().zip(ends) {
        let end_line = last_content(entry.line, end.max(entry.line + 1)) + 1;
        let item = OutlineItem::new(entry.line + 1, end_line, entry.kind, entry.name);
        while let Some((level, _)) = stack.last() {
            if *level >= entry.level {
                close_top(&mut stack, &mut roots);
            } else {
                break;
            }
        }
        stack.push((entry.level, item));
    }
    while !stack.is_empty() {
        close_top(&mut stack, &mut roots);
    }
    roots
}

fn close_top(stack: &mut Vec<(usize, OutlineItem)>, roots: &mut Vec<OutlineItem>) {
    if let Some((_, item)) = stack.pop() {
        match stack.last_mut() {
            Some((_, parent)) => parent.children.push(item),
            None => roots.push(item),
        }
    }
}
