//! SQL: `CREATE` statements (tables, views, indexes, functions, triggers,
//! types, schemas, sequences, databases).

use tree_sitter::Node;

use crate::ts::{Action, Cx, child_of_kind};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let kind = match node.kind() {
        "statement" | "block" | "transaction" => return Action::Descend,
        "create_table" => "table",
        "create_view" | "create_materialized_view" => "view",
        "create_index" => "index",
        "create_function" => "function",
        "create_trigger" => "trigger",
        "create_type" => "type",
        "create_schema" => "schema",
        "create_sequence" => "sequence",
        "create_database" => "database",
        "create_extension" => "extension",
        "create_role" => "role",
        _ => return Action::Skip,
    };
    let name = if kind == "index" {
        // `CREATE INDEX name ON table`: the index name is the `column` field.
        node.child_by_field_name("column")
            .map(|n| cx.text(n))
            .or_else(|| {
                child_of_kind(node, &["object_reference"]).map(|t| format!("on {}", cx.text(t)))
            })
    } else {
        child_of_kind(node, &["object_reference", "identifier"]).map(|n| cx.text(n))
    };
    Action::leaf(kind, name.unwrap_or_default())
}
