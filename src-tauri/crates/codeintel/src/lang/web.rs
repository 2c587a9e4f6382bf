//! HTML and CSS. HTML lists landmark elements (`header`, `nav`, `main`,
//! `section`, forms, tables, scripts, headings...) and any element with an
//! `id`, named like a selector (`nav.main-nav`, `section#docs`); other
//! elements are looked through. CSS lists rule sets by selector, and at-rules
//! (`@media` with the rules inside it).

use tree_sitter::Node;

use crate::ts::{Action, Cx, child_of_kind};

pub(crate) fn classify_html<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "element" | "script_element" | "style_element" => element(node, cx),
        _ => Action::Skip,
    }
}

fn element<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    let Some(tag) = child_of_kind(node, &["start_tag", "self_closing_tag"]) else {
        // An element whose start tag was lost to a parse error.
        return Action::Descend;
    };
    let tag_name = child_of_kind(tag, &["tag_name"])
        .map(|t| cx.text(t).to_ascii_lowercase())
        .unwrap_or_default();
    let (mut id, mut classes, mut src) = (None, None, None);
    let mut cursor = tag.walk();
    for attr in tag
        .named_children(&mut cursor)
        .filter(|a| a.kind() == "attribute")
    {
        let Some(name) = child_of_kind(attr, &["attribute_name"]) else {
            continue;
        };
        let value = child_of_kind(attr, &["quoted_attribute_value", "attribute_value"]).map(|v| {
            let v = child_of_kind(v, &["attribute_value"]).unwrap_or(v);
            cx.text(v)
        });
        match cx.text(name).to_ascii_lowercase().as_str() {
            "id" => id = value,
            "class" => classes = value,
            "src" | "href" => src = value,
            _ => {}
        }
    }
    let heading = matches!(tag_name.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
    if !(id.is_some() || heading || is_landmark(&tag_name)) {
        return Action::Descend;
    }
    let mut name = tag_name;
    if let Some(id) = id {
        name.push('#');
        name.push_str(&id);
    }
    if let Some(classes) = classes {
        for class in classes.split_whitespace() {
            name.push('.');
            name.push_str(class);
        }
    }
    if heading {
        // The heading's text says more than its tag.
        let text = text_content(node, cx);
        if !text.is_empty() {
            name.push(' ');
            name.push_str(&text);
        }
        return Action::leaf("element", name);
    }
    if let Some(src) = src.filter(|_| name.starts_with("script") || name.starts_with("link")) {
        name.push(' ');
        name.push_str(&src);
    }
    Action::container("element", name, Some(node))
}

fn is_landmark(tag: &str) -> bool {
    matches!(
        tag,
        "html"
            | "head"
            | "body"
            | "header"
            | "nav"
            | "main"
            | "section"
            | "article"
            | "aside"
            | "footer"
            | "form"
            | "table"
            | "dialog"
            | "template"
            | "script"
            | "style"
    )
}

/// The text directly inside an element and its inline children.
fn text_content(node: Node<'_>, cx: &Cx<'_>) -> String {
    let mut parts = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "text" => parts.push(cx.text(child)),
            "element" => parts.push(text_content(child, cx)),
            _ => {}
        }
    }
    crate::ts::clean_name(&parts.join(" "))
}

pub(crate) fn classify_css<'t>(node: Node<'t>, cx: &Cx<'_>) -> Action<'t> {
    match node.kind() {
        "rule_set" => {
            let name = child_of_kind(node, &["selectors"])
                .map(|s| cx.text(s))
                .unwrap_or_default();
            Action::leaf("selector", name)
        }
        "media_statement"
        | "supports_statement"
        | "at_rule"
        | "scope_statement"
        | "layer_statement"
        | "container_statement" => {
            let body = child_of_kind(node, &["block"]);
            Action::container("at-rule", head(node, body, cx), body)
        }
        "keyframes_statement" => {
            let name = child_of_kind(node, &["keyframes_name"])
                .map(|n| cx.text(n))
                .unwrap_or_default();
            Action::leaf("keyframes", name)
        }
        "block" => Action::Descend,
        _ => Action::Skip,
    }
}

/// The text of an at-rule up to its block: `@media (max-width: 600px)`.
fn head(node: Node<'_>, body: Option<Node<'_>>, cx: &Cx<'_>) -> String {
    let end = body.map_or(node.end_byte(), |b| b.start_byte());
    let bytes = cx.src.get(node.start_byte()..end).unwrap_or_default();
    crate::ts::clean_name(&String::from_utf8_lossy(bytes))
}
