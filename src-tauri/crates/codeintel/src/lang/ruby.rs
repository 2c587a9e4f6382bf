//! Ruby: modules and classes (singleton classes too) with their methods;
//! methods outside any class are `function`s.

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "module" => Action::container("module", cx.name(node), node.child_by_field_name("body")),
        "class" => Action::container("class", cx.name(node), node.child_by_field_name("body")),
        "singleton_class" => {
            let name = format!("<< {}", cx.field(node, "value").unwrap_or_default());
            Action::container("class", name, node.child_by_field_name("body"))
        }
        "method" => {
            let kind = if cx.parent.is_some() {
                "method"
            } else {
                "function"
            };
            Action::leaf(kind, cx.name(node))
        }
        "singleton_method" => {
            let object = cx.field(node, "object").unwrap_or_default();
            Action::leaf("method", format!("{object}.{}", cx.name(node)))
        }
        // Constants: `TAX_RATE = 0.2`.
        "assignment" => match node.child_by_field_name("left") {
            Some(left) if left.kind() == "constant" => Action::leaf("const", cx.text(left)),
            _ => Action::Skip,
        },
        // `private` sections and `begin` blocks hide definitions.
        "body_statement" | "begin_block" => Action::Descend,
        _ => Action::Skip,
    }
}
