//! The outline data model and its text rendering, which is what the model
//! sees as the result of `get_ast_outline`.

use std::fmt::Write as _;

use serde::Serialize;

/// The definitions found in one file, in source order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outline {
    /// Which engine read the file: a language name such as `"python"` or
    /// `"rust"`, or `"text"` for the heuristic fallback.
    pub language: &'static str,
    /// Top-level definitions; members (methods, nested sections) are children.
    pub items: Vec<OutlineItem>,
}

/// One definition and the lines it spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutlineItem {
    /// First line, 1-based, including attributes or decorators where the
    /// engine sees them.
    pub start_line: usize,
    /// Last line, 1-based and inclusive.
    pub end_line: usize,
    /// What it is: `function`, `class`, `method`, `struct`, `enum`, `trait`,
    /// `impl`, `interface`, `type`, `const`, `module`, `heading`, `key`,
    /// `table`, `selector`, `element`, ...
    pub kind: String,
    /// Its name as written (an impl is named like `impl Trait for Type`).
    pub name: String,
    /// Definitions nested inside it, such as methods.
    pub children: Vec<OutlineItem>,
}

impl OutlineItem {
    /// An item without children.
    pub fn new(
        start_line: usize,
        end_line: usize,
        kind: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        Self {
            start_line,
            end_line,
            kind: kind.into(),
            name: name.into(),
            children: Vec::new(),
        }
    }
}

impl Outline {
    /// Every item with its nesting depth (0 = top level), in source order:
    /// what a side list of definitions shows.
    pub fn flatten(&self) -> Vec<(usize, &OutlineItem)> {
        fn walk<'a>(
            items: &'a [OutlineItem],
            depth: usize,
            out: &mut Vec<(usize, &'a OutlineItem)>,
        ) {
            for item in items {
                out.push((depth, item));
                walk(&item.children, depth + 1, out);
            }
        }
        let mut out = Vec::new();
        walk(&self.items, 0, &mut out);
        out
    }
}

/// Rendered when the engine understood the file but found nothing to list.
pub const EMPTY_OUTLINE: &str = "(no top-level definitions found)";

/// Rendered when the file type has no engine and the text heuristic found
/// nothing that looks like a definition.
pub const NO_OUTLINE_FOR_TYPE: &str =
    "(no outline available for this file type: no definition-like lines found)";

impl Outline {
    /// Whether no definitions were found.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of items, counting nested ones.
    pub fn len(&self) -> usize {
        fn count(items: &[OutlineItem]) -> usize {
            items.iter().map(|i| 1 + count(&i.children)).sum()
        }
        count(&self.items)
    }

    /// One line per item, `START-END | kind name`, children indented by two
    /// spaces per level. The ranges can be passed to `read_file` as its
    /// start and end lines. No bodies are shown.
    pub fn render(&self) -> String {
        if self.items.is_empty() {
            return if self.language == crate::text::LANGUAGE {
                NO_OUTLINE_FOR_TYPE.to_owned()
            } else {
                EMPTY_OUTLINE.to_owned()
            };
        }
        let mut out = String::with_capacity(self.len() * 40);
        render_items(&self.items, 0, &mut out);
        out.truncate(out.trim_end().len());
        out
    }
}

fn render_items(items: &[OutlineItem], depth: usize, out: &mut String) {
    for item in items {
        for _ in 0..depth {
            out.push_str("  ");
        }
        // Writing to a String cannot fail.
        let _ = write!(out, "{}-{} | {}", item.start_line, item.end_line, item.kind);
        if !item.name.is_empty() {
            out.push(' ');
            out.push_str(&item.name);
        }
        out.push('\n');
        render_items(&item.children, depth + 1, out);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn flatten_lists_members_under_their_type_in_source_order() {
        let src =
            "struct A;\nimpl A {\n    fn one(&self) {}\n    fn two(&self) {}\n}\nfn free() {}\n";
        let outline = crate::outline_source(Path::new("a.rs"), src).unwrap();
        let flat: Vec<(usize, &str, usize)> = outline
            .flatten()
            .into_iter()
            .map(|(d, i)| (d, i.name.as_str(), i.start_line))
            .collect();
        assert_eq!(
            flat,
            vec![
                (0, "A", 1),
                (0, "A", 2),
                (1, "one", 3),
                (1, "two", 4),
                (0, "free", 6)
            ]
        );
    }
}
