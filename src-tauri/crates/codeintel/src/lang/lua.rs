//! Lua: functions (`M.f` and `M:method` included) and top-level locals,
//! which in a module are its tables and constants.

use tree_sitter::Node;

use crate::ts::{Action, Cx, child_of_kind};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "function_declaration" => {
            let name = node.child_by_field_name("name");
            let kind = if name.is_some_and(|n| n.kind() == "method_index_expression") {
                "method"
            } else {
                "function"
            };
            Action::leaf(kind, name.map(|n| cx.text(n)).unwrap_or_default())
        }
        "variable_declaration" if cx.level == 0 => {
            match child_of_kind(node, &["assignment_statement"]) {
                Some(assign) => assignment(assign, cx, Some("variable")),
                // `local x` without a value.
                None => Action::Skip,
            }
        }
        // `M.handler = function(...) end` at the top level.
        "assignment_statement" if cx.level == 0 => assignment(node, cx, None),
        _ => Action::Skip,
    }
}

/// `name = value`: a function when the value is one, else `other` (no item
/// when that is `None`).
fn assignment<'t>(node: Node<'t>, cx: &Cx<'_>, other: Option<&'static str>) -> Action<'t> {
    let names = child_of_kind(node, &["variable_list"]).map(|v| cx.text(v));
    let value = child_of_kind(node, &["expression_list"]).and_then(|e| e.named_child(0));
    let Some(name) = names else {
        return Action::Skip;
    };
    match value.map(|v| v.kind()) {
        Some("function_definition") => Action::leaf("function", name),
        _ => match other {
            Some(kind) => Action::leaf(kind, name),
            None => Action::Skip,
        },
    }
}
