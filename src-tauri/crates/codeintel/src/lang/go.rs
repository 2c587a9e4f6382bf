//! Go: functions, methods (named `(*Recv).Name`), types (struct, interface
//! with its methods, aliases), and package-level consts and vars.

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "function_declaration" => Action::leaf("function", cx.name(node)),
        "method_declaration" => Action::leaf("method", method_name(node, cx)),
        // A declaration with one spec is outlined as that spec, so the range
        // includes the `type`/`const`/`var` keyword; a group lists each spec.
        "type_declaration" | "const_declaration" | "var_declaration" => match single_spec(node) {
            Some(spec) => classify(spec, cx),
            None => Action::Descend,
        },
        "type_spec" | "type_alias" => type_spec(node, cx),
        "const_spec" => Action::leaf("const", spec_names(node, cx)),
        "var_spec" => Action::leaf("variable", spec_names(node, cx)),
        // `var ( ... )` groups.
        "var_spec_list" => Action::Descend,
        "method_elem" | "method_spec" => Action::leaf("method", cx.name(node)),
        _ => Action::Skip,
    }
}

fn type_spec<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let name = cx.name(node);
    if node.kind() == "type_alias" {
        return Action::leaf("type", name);
    }
    match node.child_by_field_name("type") {
        Some(t) if t.kind() == "struct_type" => Action::leaf("struct", name),
        Some(t) if t.kind() == "interface_type" => Action::container("interface", name, Some(t)),
        _ => Action::leaf("type", name),
    }
}

/// The only named child that is a spec, if there is exactly one.
fn single_spec(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let mut specs = node
        .named_children(&mut cursor)
        .filter(|c| c.kind().ends_with("_spec") || c.kind() == "type_alias");
    let first = specs.next()?;
    specs.next().is_none().then_some(first)
}

/// `const a, b = 1, 2` names both.
fn spec_names(node: Node<'_>, cx: &Cx<'_>) -> String {
    let mut cursor = node.walk();
    let names: Vec<String> = node
        .children_by_field_name("name", &mut cursor)
        .map(|n| cx.text(n))
        .collect();
    names.join(", ")
}

/// `func (s *Store) Get(...)` is named `(*Store).Get`.
fn method_name(node: Node<'_>, cx: &Cx<'_>) -> String {
    let name = cx.name(node);
    let receiver = node
        .child_by_field_name("receiver")
        .and_then(|list| list.named_child(0))
        .and_then(|param| param.child_by_field_name("type"))
        .map(|t| cx.text(t));
    match receiver {
        Some(recv) => format!("({recv}).{name}"),
        None => name,
    }
}
