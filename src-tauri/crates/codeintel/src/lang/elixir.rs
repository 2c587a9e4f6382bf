//! Elixir: modules, protocols and implementations with their functions and
//! macros (named `name/arity`), plus ExUnit `describe` and `test` blocks.
//! Elixir definitions are all macro calls, so this looks at call targets.

use tree_sitter::Node;

use crate::ts::{Action, Cx, child_of_kind};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    if node.kind() != "call" {
        return Action::Skip;
    }
    let Some(target) = node.child_by_field_name("target") else {
        return Action::Skip;
    };
    let do_block = child_of_kind(node, &["do_block"]);
    let args = child_of_kind(node, &["arguments"]);
    let first_arg = args.and_then(|a| a.named_child(0));
    match cx.text(target).as_str() {
        keyword @ ("defmodule" | "defprotocol" | "defimpl") => {
            let kind = match keyword {
                "defprotocol" => "protocol",
                "defimpl" => "impl",
                _ => "module",
            };
            let name = match keyword {
                // `defimpl Proto, for: Type`
                "defimpl" => args.map(|a| cx.text(a)).unwrap_or_default(),
                _ => first_arg.map(|a| cx.text(a)).unwrap_or_default(),
            };
            Action::container(kind, name, do_block)
        }
        keyword @ ("def" | "defp" | "defmacro" | "defmacrop" | "defguard" | "defguardp"
        | "defdelegate" | "defn" | "defnp") => {
            let kind = if keyword.starts_with("defmacro") {
                "macro"
            } else if keyword.starts_with("defguard") {
                "guard"
            } else {
                "function"
            };
            let name = first_arg
                .map(|head| function_name(head, cx))
                .unwrap_or_default();
            Action::leaf(kind, name)
        }
        "defstruct" => Action::leaf("struct", String::new()),
        "defexception" => Action::leaf("exception", String::new()),
        "describe" => {
            let name = first_arg.map(|a| cx.text(a)).unwrap_or_default();
            Action::container("describe", name, do_block)
        }
        "test" => {
            let name = first_arg.map(|a| cx.text(a)).unwrap_or_default();
            Action::leaf("test", name)
        }
        _ => Action::Skip,
    }
}

/// `add(cart, item)` → `add/2`; `validate(item) when ...` → `validate/1`;
/// a bare `new` → `new/0`.
fn function_name(head: Node<'_>, cx: &Cx<'_>) -> String {
    let head = if head.kind() == "binary_operator" {
        // A guard: `name(args) when condition`.
        head.child_by_field_name("left").unwrap_or(head)
    } else {
        head
    };
    match head.kind() {
        "call" => {
            let name = head
                .child_by_field_name("target")
                .map(|t| cx.text(t))
                .unwrap_or_default();
            let arity = child_of_kind(head, &["arguments"])
                .map(|a| a.named_child_count())
                .unwrap_or(0);
            format!("{name}/{arity}")
        }
        "identifier" => format!("{}/0", cx.text(head)),
        _ => cx.text(head),
    }
}
