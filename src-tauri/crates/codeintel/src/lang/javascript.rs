//! JavaScript, TypeScript and TSX: classes and their methods, functions,
//! interfaces, type aliases, enums, namespaces, and top-level `const`/`let`
//! bindings (arrow functions among them).

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "class_declaration" | "abstract_class_declaration" | "class" => {
            Action::container("class", cx.name(node), node.child_by_field_name("body"))
        }
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            Action::leaf("function", cx.name(node))
        }
        "method_definition" | "abstract_method_signature" | "method_signature" => {
            Action::leaf("method", cx.name(node))
        }
        // `handle = () => { ... }` in a class body.
        "field_definition" | "public_field_definition" => {
            let name = node
                .child_by_field_name("property")
                .or_else(|| node.child_by_field_name("name"));
            let is_function = node.child_by_field_name("value").is_some_and(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
            });
            match name {
                Some(name) if is_function => Action::leaf("method", cx.text(name)),
                _ => Action::Skip,
            }
        }
        "interface_declaration" => {
            Action::container("interface", cx.name(node), node.child_by_field_name("body"))
        }
        "type_alias_declaration" => Action::leaf("type", cx.name(node)),
        "enum_declaration" => Action::leaf("enum", cx.name(node)),
        "internal_module" => {
            Action::container("namespace", cx.name(node), node.child_by_field_name("body"))
        }
        "module" => Action::container("module", cx.name(node), node.child_by_field_name("body")),
        // The item range covers `export` (and any decorators before it).
        "export_statement" => match node.child_by_field_name("declaration") {
            Some(decl) => classify(decl, cx),
            None => default_export(node, cx),
        },
        // `declare module "x" { ... }`, `declare function f(): void;`
        "ambient_declaration" => match node.named_child(0) {
            Some(inner) => classify(inner, cx),
            None => Action::Skip,
        },
        // Where a namespace statement hides.
        "expression_statement"
            if cx.level == 0 || matches!(cx.parent, Some("module" | "namespace")) =>
        {
            match node.named_child(0) {
                Some(inner) if matches!(inner.kind(), "internal_module" | "module") => {
                    classify(inner, cx)
                }
                _ => Action::Skip,
            }
        }
        "lexical_declaration" | "variable_declaration"
            if cx.level == 0 || matches!(cx.parent, Some("module" | "namespace")) =>
        {
            binding(node, cx)
        }
        // `namespace N { ... }` bodies.
        "statement_block" => Action::Descend,
        _ => Action::Skip,
    }
}

/// `export default <expression>`: a class or function expression is
/// outlined under its name, or `default` when it has none.
fn default_export<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let Some(value) = node.child_by_field_name("value") else {
        return Action::Skip;
    };
    let name = value
        .child_by_field_name("name")
        .map(|n| cx.text(n))
        .unwrap_or_else(|| "default".to_owned());
    match value.kind() {
        "class" => Action::container("class", name, value.child_by_field_name("body")),
        "function_expression" | "arrow_function" | "generator_function" => {
            Action::leaf("function", name)
        }
        _ => Action::Skip,
    }
}

/// `const NAME = ...`: a function when bound to a function or arrow, a class
/// when bound to a class expression, else `const` or `variable`. A
/// declaration with several bindings is named after the first.
fn binding<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let mut cursor = node.walk();
    let Some(declarator) = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "variable_declarator")
    else {
        return Action::Skip;
    };
    let Some(name) = declarator.child_by_field_name("name") else {
        return Action::Skip;
    };
    let name = cx.text(name);
    let value = declarator.child_by_field_name("value");
    match value.map(|v| v.kind()) {
        Some("arrow_function" | "function_expression" | "function" | "generator_function") => {
            Action::leaf("function", name)
        }
        Some("class") => Action::container(
            "class",
            name,
            value.and_then(|v| v.child_by_field_name("body")),
        ),
        // `const x = require("x")` is an import, not a definition.
        Some("call_expression") if value.is_some_and(|v| is_require(v, cx)) => Action::Skip,
        _ => {
            let is_const = node.child(0).is_some_and(|k| k.kind() == "const");
            Action::leaf(if is_const { "const" } else { "variable" }, name)
        }
    }
}

fn is_require(call: Node<'_>, cx: &Cx<'_>) -> bool {
    call.child_by_field_name("function")
        .is_some_and(|f| cx.text(f) == "require")
}
