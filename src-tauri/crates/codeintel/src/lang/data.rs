//! Data files: JSON and YAML keys (two levels deep, so a large document
//! stays readable; a top-level YAML list lists its entries), TOML tables and
//! top-level keys.

use tree_sitter::Node;

use crate::ts::{Action, Cx};

/// Keys nested deeper than this are not listed.
const MAX_KEY_LEVEL: usize = 1;

pub(crate) fn classify_json<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "object" if cx.level == 0 => Action::Descend,
        "pair" => {
            let name = node
                .child_by_field_name("key")
                .map(|k| unquote(&cx.text(k)))
                .unwrap_or_default();
            let body = node
                .child_by_field_name("value")
                .filter(|v| v.kind() == "object" && cx.level < MAX_KEY_LEVEL);
            Action::container("key", name, body)
        }
        _ => Action::Skip,
    }
}

pub(crate) fn classify_yaml<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "document" | "block_node" | "block_mapping" | "flow_node" | "flow_mapping" => {
            Action::Descend
        }
        "block_mapping_pair" | "flow_pair" => {
            let name = node
                .child_by_field_name("key")
                .map(|k| unquote(&cx.text(k)))
                .unwrap_or_default();
            let body = node
                .child_by_field_name("value")
                .filter(|_| cx.level < MAX_KEY_LEVEL);
            Action::container("key", name, body)
        }
        // A top-level list (a playbook, a list of records): each entry is an
        // item named after its first line.
        "block_sequence" if cx.level == 0 => Action::Descend,
        "block_sequence_item" if cx.level == 0 => {
            let value = node.named_child(0);
            let first_pair = value
                .and_then(|v| v.named_child(0))
                .filter(|m| m.kind() == "block_mapping")
                .and_then(|m| m.named_child(0));
            let name = first_pair.or(value).map(|n| cx.text(n)).unwrap_or_default();
            Action::container("item", name, value)
        }
        _ => Action::Skip,
    }
}

pub(crate) fn classify_toml<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "table" => Action::leaf("table", format!("[{}]", table_name(node, cx))),
        "table_array_element" => Action::leaf("table", format!("[[{}]]", table_name(node, cx))),
        "pair" if cx.level == 0 => {
            let name = node.named_child(0).map(|k| cx.text(k)).unwrap_or_default();
            Action::leaf("key", name)
        }
        _ => Action::Skip,
    }
}

/// The key in a table header: `package`, `profile.release`.
fn table_name(node: Node<'_>, cx: &Cx<'_>) -> String {
    node.named_child(0)
        .filter(|k| matches!(k.kind(), "bare_key" | "quoted_key" | "dotted_key"))
        .map(|k| cx.text(k))
        .unwrap_or_default()
}

/// `"name"` → `name`; other text unchanged.
fn unquote(text: &str) -> String {
    let quoted = text.len() >= 2
        && ((text.starts_with('"') && text.ends_with('"'))
            || (text.starts_with('\'') && text.ends_with('\'')));
    if quoted {
        text[1..text.len() - 1].to_owned()
    } else {
        text.to_owned()
    }
}
