//! C and C++: functions (definitions, and prototypes as `prototype`), structs,
//! unions, enums, classes with their methods, typedefs and aliases, macros,
//! namespaces, and file-scope variables. Preprocessor conditionals and
//! `extern "C"` blocks are looked through.

use tree_sitter::Node;

use super::Rules;
use crate::ts::{Action, Cx};
use crate::{CodeIntelError, Language, Outline};

pub(crate) const RULES: Rules = Rules {
    classify,
    attach_comments: true,
};

/// A `.h` file may be C or C++: one with C++-only syntax (a class,
/// namespace, template or access specifier at the start of a line) is read
/// as C++, any other as C.
pub(crate) fn outline_header(source: &str) -> Result<Outline, CodeIntelError> {
    let lang = if looks_like_cpp(source) {
        Language::Cpp
    } else {
        Language::C
    };
    super::outline_with_tree_sitter(lang, source)
}

/// C parses `namespace x {` and `class X {` without complaint (as K&R
/// functions), so C++ is recognised by its own syntax.
fn looks_like_cpp(source: &str) -> bool {
    source.lines().any(|line| {
        let line = line.trim_start();
        [
            "namespace ",
            "class ",
            "template",
            "public:",
            "private:",
            "protected:",
        ]
        .iter()
        .any(|w| line.starts_with(w))
    })
}

fn classify<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let in_type = matches!(cx.parent, Some("class" | "struct" | "union"));
    match node.kind() {
        "function_definition" => {
            let kind = if in_type { "method" } else { "function" };
            Action::leaf(kind, declarator_name(node, cx).unwrap_or_default())
        }
        "declaration" | "field_declaration" => declaration(node, cx, in_type),
        "type_definition" => type_definition(node, cx),
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            specifier(node, cx, None)
        }
        "alias_declaration" | "type_alias_declaration" => Action::leaf("type", cx.name(node)),
        "concept_definition" => Action::leaf("concept", cx.name(node)),
        // `#define GUARD_H` (no value) is an include guard or a flag.
        "preproc_def" if node.child_by_field_name("value").is_none() => Action::Skip,
        "preproc_def" | "preproc_function_def" => Action::leaf("macro", cx.name(node)),
        "namespace_definition" => {
            let name = cx
                .field(node, "name")
                .unwrap_or_else(|| "(anonymous)".into());
            Action::container("namespace", name, node.child_by_field_name("body"))
        }
        // `template <...> X`: outlined as X, with the range from `template`.
        "template_declaration" => {
            let mut cursor = node.walk();
            let inner = node
                .named_children(&mut cursor)
                .find(|c| !matches!(c.kind(), "template_parameter_list" | "requires_clause"));
            match inner {
                Some(inner) => classify(inner, cx),
                None => Action::Skip,
            }
        }
        "preproc_ifdef"
        | "preproc_if"
        | "preproc_else"
        | "preproc_elif"
        | "preproc_elifdef"
        | "linkage_specification"
        | "declaration_list" => Action::Descend,
        _ => Action::Skip,
    }
}

/// A declaration: a function prototype (a method declaration inside a
/// class), a type defined in passing, or a file-scope variable.
fn declaration<'t>(node: Node<'t>, cx: &Cx<'_>, in_type: bool) -> Action<'t> {
    if let Some(declarator) = node.child_by_field_name("declarator")
        && innermost_function_declarator(declarator).is_some()
    {
        let name = declarator_name(node, cx).unwrap_or_default();
        return Action::leaf(if in_type { "method" } else { "prototype" }, name);
    }
    // `struct s { ... } var;` and bodies of nested types.
    if let Some(ty) = node.child_by_field_name("type")
        && ty.child_by_field_name("body").is_some()
    {
        return specifier(ty, cx, None);
    }
    if cx.level > 0 || node.kind() == "field_declaration" {
        return Action::Skip;
    }
    match declarator_name(node, cx) {
        Some(name) if !name.is_empty() => Action::leaf("variable", name),
        _ => Action::Skip,
    }
}

/// `typedef struct x { ... } x_t;` is the struct `x_t`; any other typedef is
/// a `type`.
fn type_definition<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let name = {
        let mut cursor = node.walk();
        let names: Vec<String> = node
            .children_by_field_name("declarator", &mut cursor)
            .map(|d| leaf_name(d, cx))
            .collect();
        names.join(", ")
    };
    match node.child_by_field_name("type") {
        Some(ty) if ty.child_by_field_name("body").is_some() => specifier(ty, cx, Some(name)),
        _ => Action::leaf("type", name),
    }
}

/// A struct, union, enum or class with a body; forward declarations are
/// not outlined.
fn specifier<'t>(node: Node<'t>, cx: &Cx<'_>, name: Option<String>) -> Action<'t> {
    let Some(body) = node.child_by_field_name("body") else {
        return Action::Skip;
    };
    let kind = match node.kind() {
        "struct_specifier" => "struct",
        "union_specifier" => "union",
        "enum_specifier" => "enum",
        "class_specifier" => "class",
        _ => return Action::Skip,
    };
    let name = name
        .filter(|n| !n.is_empty())
        .or_else(|| cx.field(node, "name"))
        .unwrap_or_else(|| "(anonymous)".into());
    // Only C++-style records have member functions worth listing.
    let body = (kind != "enum").then_some(body);
    Action::container(kind, name, body)
}

/// The declared name: through pointers, references, arrays, parentheses and
/// function declarators down to the identifier (`Circle::area`, `~Shape`,
/// `operator==` included).
fn declarator_name(node: Node<'_>, cx: &Cx<'_>) -> Option<String> {
    node.child_by_field_name("declarator")
        .map(|d| leaf_name(d, cx))
}

fn leaf_name(mut node: Node<'_>, cx: &Cx<'_>) -> String {
    // Bounded: declarators nest a handful of levels in real code.
    for _ in 0..32 {
        match node.child_by_field_name("declarator") {
            Some(inner) if !is_name(node.kind()) => node = inner,
            _ => break,
        }
    }
    cx.text(node)
}

fn is_name(kind: &str) -> bool {
    matches!(
        kind,
        "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "template_function"
            | "primitive_type"
    )
}

fn innermost_function_declarator(mut node: Node<'_>) -> Option<Node<'_>> {
    for _ in 0..32 {
        if node.kind() == "function_declarator" {
            return Some(node);
        }
        node = node.child_by_field_name("declarator")?;
    }
    None
}
