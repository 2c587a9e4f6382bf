//! Java: classes, interfaces, enums, records and annotation types with their
//! methods, constructors and nested types. Annotations are part of the item
//! they annotate.

use tree_sitter::Node;

use crate::ts::{Action, Cx};

pub(crate) fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let kind = match node.kind() {
        "class_declaration" => "class",
        "interface_declaration" => "interface",
        "enum_declaration" => "enum",
        "record_declaration" => "record",
        "annotation_type_declaration" => "annotation",
        "method_declaration" | "annotation_type_element_declaration" => {
            return Action::leaf("method", cx.name(node));
        }
        "constructor_declaration" | "compact_constructor_declaration" => {
            return Action::leaf("constructor", cx.name(node));
        }
        // Members of an enum after its constants.
        "enum_body_declarations" => return Action::Descend,
        _ => return Action::Skip,
    };
    Action::container(kind, cx.name(node), node.child_by_field_name("body"))
}
