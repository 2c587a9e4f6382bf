//! Kotlin: classes, interfaces, enums, objects (companions included) with
//! their functions, top-level functions, properties and type aliases.

use tree_sitter::Node;

use crate::ts::{Action, Cx, child_of_kind};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "class_declaration" => {
            let kind = if has_token(node, "interface") {
                "interface"
            } else if has_modifier(node, cx, "enum") {
                "enum"
            } else {
                "class"
            };
            Action::container(kind, cx.name(node), body(node))
        }
        "object_declaration" => Action::container("object", cx.name(node), body(node)),
        "companion_object" => {
            let name = cx.field(node, "name").unwrap_or_else(|| "companion".into());
            Action::container("object", name, body(node))
        }
        "function_declaration" => {
            let kind = if cx.in_type() { "method" } else { "function" };
            Action::leaf(kind, cx.name(node))
        }
        "secondary_constructor" => Action::leaf("constructor", String::new()),
        "property_declaration" if cx.level == 0 => {
            let name = child_of_kind(
                node,
                &["variable_declaration", "multi_variable_declaration"],
            )
            .map(|v| cx.text(v))
            .unwrap_or_default();
            let kind = if has_modifier(node, cx, "const") {
                "const"
            } else {
                "property"
            };
            Action::leaf(kind, name)
        }
        "type_alias" => Action::leaf("type", cx.field(node, "type").unwrap_or_default()),
        _ => Action::Skip,
    }
}

fn body(node: Node<'_>) -> Option<Node<'_>> {
    child_of_kind(node, &["class_body", "enum_class_body"])
}

/// Whether an anonymous keyword token such as `interface` is a direct child.
fn has_token(node: Node<'_>, token: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|c| !c.is_named() && c.kind() == token)
}

/// Whether the `modifiers` child holds a modifier spelled `word`.
fn has_modifier(node: Node<'_>, cx: &Cx<'_>, word: &str) -> bool {
    let Some(modifiers) = child_of_kind(node, &["modifiers"]) else {
        return false;
    };
    let mut cursor = modifiers.walk();
    modifiers
        .named_children(&mut cursor)
        .any(|m| cx.text(m) == word)
}
