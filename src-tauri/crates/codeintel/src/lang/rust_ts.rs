//! Rust through tree-sitter-rust, used only when `syn` rejects a file (it
//! is mid-edit): the partial tree still shows most items. The same items
//! and names as [`crate::rust_syn`].

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let body = node.child_by_field_name("body");
    match node.kind() {
        "function_item" | "function_signature_item" => {
            let kind = if matches!(cx.parent, Some("impl" | "trait")) {
                "method"
            } else {
                "function"
            };
            Action::leaf(kind, cx.name(node))
        }
        "struct_item" => Action::leaf("struct", cx.name(node)),
        "enum_item" => Action::leaf("enum", cx.name(node)),
        "union_item" => Action::leaf("union", cx.name(node)),
        "trait_item" => Action::container("trait", cx.name(node), body),
        "impl_item" => {
            let ty = cx.field(node, "type").unwrap_or_default();
            let name = match cx.field(node, "trait") {
                Some(t) => {
                    let negative = node
                        .child_by_field_name("trait")
                        .and_then(|t| t.prev_sibling())
                        .is_some_and(|p| p.kind() == "!");
                    let bang = if negative { "!" } else { "" };
                    format!("{bang}{t} for {ty}")
                }
                None => ty,
            };
            Action::container("impl", name, body)
        }
        "mod_item" => Action::container("module", cx.name(node), body),
        "foreign_mod_item" | "declaration_list" => Action::Descend,
        "const_item" => Action::leaf("const", cx.name(node)),
        "static_item" => Action::leaf("static", cx.name(node)),
        "type_item" | "associated_type" => Action::leaf("type", cx.name(node)),
        "macro_definition" => Action::leaf("macro", cx.name(node)),
        _ => Action::Skip,
    }
}
