//! Swift: classes, structs, enums, actors, extensions and protocols with
//! their functions, initialisers, subscripts and computed properties;
//! top-level functions, type aliases and bindings.

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "class_declaration" | "protocol_declaration" => {
            // `declaration_kind` is the keyword: class, struct, enum, actor,
            // extension or protocol.
            let kind = match node
                .child_by_field_name("declaration_kind")
                .map(|k| k.kind())
            {
                Some("struct") => "struct",
                Some("enum") => "enum",
                Some("actor") => "actor",
                Some("extension") => "extension",
                Some("protocol") => "protocol",
                _ => "class",
            };
            Action::container(kind, cx.name(node), node.child_by_field_name("body"))
        }
        "function_declaration" | "protocol_function_declaration" => {
            let kind = if cx.in_type() { "method" } else { "function" };
            Action::leaf(kind, cx.name(node))
        }
        "init_declaration" => Action::leaf("constructor", "init".into()),
        "deinit_declaration" => Action::leaf("destructor", "deinit".into()),
        "subscript_declaration" => Action::leaf("method", "subscript".into()),
        "typealias_declaration" => Action::leaf("type", cx.name(node)),
        "property_declaration" => {
            let computed = node.child_by_field_name("computed_value").is_some();
            if !(computed || cx.level == 0) {
                return Action::Skip;
            }
            let name = node
                .child_by_field_name("name")
                .map(|p| cx.text(p))
                .unwrap_or_default();
            let is_let = node
                .named_child(0)
                .is_some_and(|b| b.kind() == "value_binding_pattern" && cx.text(b) == "let");
            let kind = if computed {
                "property"
            } else if is_let {
                "const"
            } else {
                "variable"
            };
            Action::leaf(kind, name)
        }
        _ => Action::Skip,
    }
}
