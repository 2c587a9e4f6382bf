//! Markdown: ATX (`#`) and setext (underlined) headings, nested by level,
//! each running to the end of its section. Headings inside code blocks,
//! lists and quotes are not headings.

use tree_sitter::Node;

use crate::sections::{Flat, nest};
use crate::ts::{self, clean_name};
use crate::{CodeIntelError, Language, Outline};

pub(crate) fn outline(source: &str) -> Result<Outline, CodeIntelError> {
    let tree = ts::parse(Language::Markdown, source)?;
    let mut flat = Vec::new();
    collect(tree.root_node(), source.as_bytes(), 0, &mut flat);
    Ok(Outline {
        language: Language::Markdown.name(),
        items: nest(flat, source),
    })
}

/// Headings are children of the document or of sections; sections nest at
/// most six deep, plus error recovery, hence the bound.
fn collect(node: Node<'_>, src: &[u8], depth: usize, out: &mut Vec<Flat>) {
    if depth > 16 {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "section" => collect(child, src, depth + 1, out),
            "atx_heading" | "setext_heading" => {
                if let Some(level) = heading_level(child) {
                    let name = child
                        .child_by_field_name("heading_content")
                        .map(|c| clean_name(&String::from_utf8_lossy(&src[c.byte_range()])))
                        .unwrap_or_default();
                    out.push(Flat {
                        level,
                        line: child.start_position().row,
                        kind: "heading",
                        name,
                    });
                }
            }
            _ => {}
        }
    }
}

fn heading_level(heading: Node<'_>) -> Option<usize> {
    let mut cursor = heading.walk();
    heading.children(&mut cursor).find_map(|c| match c.kind() {
        "atx_h1_marker" | "setext_h1_underline" => Some(1),
        "atx_h2_marker" | "setext_h2_underline" => Some(2),
        "atx_h3_marker" => Some(3),
        "atx_h4_marker" => Some(4),
        "atx_h5_marker" => Some(5),
        "atx_h6_marker" => Some(6),
        _ => None,
    })
}
