//! Shell scripts (bash, sh): functions.

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "function_definition" => Action::leaf("function", cx.name(node)),
        // Functions defined conditionally: `if ...; then f() { ...; } fi`.
        "if_statement" | "elif_clause" | "else_clause" | "compound_statement" => Action::Descend,
        _ => Action::Skip,
    }
}
