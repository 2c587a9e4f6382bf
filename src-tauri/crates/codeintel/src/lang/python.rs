//! Python: classes with their methods, functions, and module-level
//! assignments. Nested functions are left out; decorators count as part of
//! the definition they decorate.

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "class_definition" => {
            Action::container("class", cx.name(node), node.child_by_field_name("body"))
        }
        "function_definition" => {
            let kind = if cx.parent == Some("class") {
                "method"
            } else {
                "function"
            };
            Action::leaf(kind, cx.name(node))
        }
        // The range is the decorated node's, so decorators are included.
        "decorated_definition" => match node.child_by_field_name("definition") {
            Some(def) => classify(def, cx),
            None => Action::Skip,
        },
        // `if TYPE_CHECKING:`, `try: import x except: def fallback()`.
        "if_statement" | "try_statement" | "else_clause" | "elif_clause" | "except_clause"
        | "finally_clause" | "block" => Action::Descend,
        "expression_statement" if cx.level == 0 => assignment(node, cx),
        _ => Action::Skip,
    }
}

/// `NAME = value` at module level: a `const` when the name is upper case.
fn assignment<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let Some(assign) = node.named_child(0).filter(|n| n.kind() == "assignment") else {
        return Action::Skip;
    };
    let Some(left) = assign
        .child_by_field_name("left")
        .filter(|n| n.kind() == "identifier")
    else {
        return Action::Skip;
    };
    let name = cx.text(left);
    let kind = if is_constant_name(&name) {
        "const"
    } else {
        "variable"
    };
    Action::leaf(kind, name)
}

/// `MAX_ITEMS`, `T`: upper case letters, digits and underscores.
pub(crate) fn is_constant_name(name: &str) -> bool {
    name.chars().any(char::is_alphabetic)
        && name
            .chars()
            .all(|c| c.is_uppercase() || c.is_ascii_digit() || c == '_')
}
