//! The shared tree-sitter machinery: one cached [`Parser`] per language per
//! thread, and a cursor walk that turns a syntax tree into outline items by
//! asking a per-language classifier about each named node.

use std::cell::RefCell;
use std::collections::HashMap;

use tree_sitter::{Node, Parser, Tree};

use crate::{CodeIntelError, Language, OutlineItem};

/// How deep the walk may go through nodes that are not themselves items
/// (wrappers such as `export_statement`, preprocessor blocks, parse errors).
/// Deeper wrappers are ignored, so pathological nesting cannot exhaust the
/// stack.
const MAX_DEPTH: usize = 48;

/// Longest name kept; longer ones (a huge C declarator, a CSS selector list)
/// are cut with an ellipsis.
const MAX_NAME_CHARS: usize = 120;

thread_local! {
    static PARSERS: RefCell<HashMap<Language, Parser>> = RefCell::new(HashMap::new());
}

/// The compiled grammar for a tree-sitter-backed language.
fn grammar(lang: Language) -> tree_sitter::Language {
    match lang {
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Language::Go => tree_sitter_go::LANGUAGE.into(),
        Language::Java => tree_sitter_java::LANGUAGE.into(),
        Language::C => tree_sitter_c::LANGUAGE.into(),
        Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        Language::Swift => tree_sitter_swift::LANGUAGE.into(),
        Language::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
        Language::Lua => tree_sitter_lua::LANGUAGE.into(),
        Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
        Language::Bash => tree_sitter_bash::LANGUAGE.into(),
        Language::Elixir => tree_sitter_elixir::LANGUAGE.into(),
        Language::Json => tree_sitter_json::LANGUAGE.into(),
        Language::Yaml => tree_sitter_yaml::LANGUAGE.into(),
        Language::Toml => tree_sitter_toml_ng::LANGUAGE.into(),
        Language::Html => tree_sitter_html::LANGUAGE.into(),
        Language::Css => tree_sitter_css::LANGUAGE.into(),
        Language::Markdown => tree_sitter_md::LANGUAGE.into(),
        Language::Sql => tree_sitter_sequel::LANGUAGE.into(),
        Language::Rust => tree_sitter_rust::LANGUAGE.into(),
    }
}

/// Parses `source` with this thread's parser for `lang`, creating it on
/// first use. Invalid syntax still yields a (partial) tree.
pub(crate) fn parse(lang: Language, source: &str) -> Result<Tree, CodeIntelError> {
    parse_ranges(lang, source, &[])
}

/// Parses only `ranges` of `source` (all of it when empty), with positions
/// still those of the whole document.
pub(crate) fn parse_ranges(
    lang: Language,
    source: &str,
    ranges: &[tree_sitter::Range],
) -> Result<Tree, CodeIntelError> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = match parsers.entry(lang) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut parser = Parser::new();
                parser
                    .set_language(&grammar(lang))
                    .map_err(|err| CodeIntelError::Grammar {
                        language: lang.name(),
                        message: err.to_string(),
                    })?;
                e.insert(parser)
            }
        };
        // Ranges that do not fit the document are a bug in the skim; parse
        // everything rather than fail.
        let ranged = !ranges.is_empty() && parser.set_included_ranges(ranges).is_ok();
        let bytes = source.as_bytes();
        let deadline = std::time::Instant::now() + time_budget(source.len());
        let mut progress = |_: &tree_sitter::ParseState| {
            if std::time::Instant::now() > deadline {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        };
        let tree = parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(tree_sitter::ParseOptions::new().progress_callback(&mut progress)),
        );
        if ranged {
            // Cannot fail: empty means the whole document.
            let _ = parser.set_included_ranges(&[]);
        }
        if tree.is_none() {
            // A failed parse can leave state behind; start clean next time.
            parser.reset();
        }
        tree.ok_or(CodeIntelError::Parse {
            language: lang.name(),
        })
    })
}

/// How long parsing a file of `len` bytes may take before it is abandoned
/// (and the file outlined by the text heuristic). Ordinary files parse at
/// several MB/s, so this is several times what even a slow grammar on a
/// busy machine needs; it exists so that error recovery gone combinatorial
/// cannot hang the tool.
fn time_budget(len: usize) -> std::time::Duration {
    std::time::Duration::from_millis(500 + (len / 500) as u64)
}

/// What a classifier says about one named node.
pub(crate) enum Action<'t> {
    /// The node is an outline item. Its range is the node's range; its
    /// children are looked for among the named children of `body`.
    Item {
        kind: &'static str,
        name: String,
        body: Option<Node<'t>>,
    },
    /// Not an item, but items may be inside (an `export` wrapper, a
    /// declaration list, a preprocessor block).
    Descend,
    /// Neither an item nor a container of items.
    Skip,
}

impl<'t> Action<'t> {
    /// An item without children.
    pub(crate) fn leaf(kind: &'static str, name: String) -> Self {
        Action::Item {
            kind,
            name,
            body: None,
        }
    }

    /// An item whose children live in `body`.
    pub(crate) fn container(kind: &'static str, name: String, body: Option<Node<'t>>) -> Self {
        Action::Item { kind, name, body }
    }
}

/// What a classifier knows about where a node sits.
#[derive(Clone, Copy)]
pub(crate) struct Cx<'s> {
    /// The whole source, for node text.
    pub src: &'s [u8],
    /// The kind of the nearest enclosing item (`"class"`, `"impl"`, ...).
    pub parent: Option<&'static str>,
    /// How many items enclose this node (0 at the top level).
    pub level: usize,
}

impl Cx<'_> {
    /// The node's text with runs of whitespace collapsed to one space,
    /// cut to a readable length.
    pub(crate) fn text(&self, node: Node<'_>) -> String {
        clean_name(&String::from_utf8_lossy(&self.src[node.byte_range()]))
    }

    /// Text of the child in `field`, if present.
    pub(crate) fn field(&self, node: Node<'_>, field: &str) -> Option<String> {
        node.child_by_field_name(field).map(|n| self.text(n))
    }

    /// Text of the `name` field, or an empty string.
    pub(crate) fn name(&self, node: Node<'_>) -> String {
        self.field(node, "name").unwrap_or_default()
    }

    /// Whether the nearest enclosing item is a type-like container, so a
    /// function inside it is a method.
    pub(crate) fn in_type(&self) -> bool {
        matches!(
            self.parent,
            Some(
                "class"
                    | "struct"
                    | "interface"
                    | "trait"
                    | "impl"
                    | "enum"
                    | "object"
                    | "protocol"
                    | "extension"
                    | "record"
                    | "module"
            )
        )
    }
}

/// Collapses whitespace and bounds the length of a name.
pub(crate) fn clean_name(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len().min(MAX_NAME_CHARS + 4));
    let mut chars = 0;
    for word in raw.split_whitespace() {
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars() {
            if chars >= MAX_NAME_CHARS {
                out.push('…');
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}

/// First named child of `node` whose kind is one of `kinds`.
pub(crate) fn child_of_kind<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .find(|c| kinds.contains(&c.kind()))
}

/// The 1-based inclusive line range of a node, not counting whitespace at
/// its end (a section or table that swallows the blank lines after it).
pub(crate) fn line_range(node: Node<'_>, src: &[u8]) -> (usize, usize) {
    let start = node.start_position().row;
    let end = node.end_position().row;
    let trailing_newlines = src
        .get(node.byte_range())
        .unwrap_or_default()
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_whitespace())
        .filter(|&&b| b == b'\n')
        .count();
    let end = end.saturating_sub(trailing_newlines).max(start);
    (start + 1, end + 1)
}

/// A per-language classifier.
pub(crate) type Classify = for<'t> fn(Node<'t>, &Cx<'_>) -> Action<'t>;

/// How one language is outlined with the shared walker.
#[derive(Clone, Copy)]
pub(crate) struct Rules {
    /// Decides what each named node is.
    pub classify: Classify,
    /// Whether comments (and attributes) directly above an item, with no
    /// blank line between, count as part of it, as doc comments do.
    pub attach_comments: bool,
}

/// Comment-like nodes that may be attached to the item below them.
fn is_prefix(kind: &str) -> bool {
    kind.ends_with("comment") || kind == "attribute_item"
}

/// Outlines a whole tree.
pub(crate) fn outline_tree(tree: &Tree, src: &str, rules: Rules) -> Vec<OutlineItem> {
    let cx = Cx {
        src: src.as_bytes(),
        parent: None,
        level: 0,
    };
    let mut items = Vec::new();
    walk(tree.root_node(), &cx, rules, 0, &mut items);
    items
}

fn walk(node: Node<'_>, cx: &Cx<'_>, rules: Rules, depth: usize, out: &mut Vec<OutlineItem>) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return;
    }
    // 0-based rows: where the current run of comments started and ended,
    // and where the last non-comment node ended.
    let mut prefix: Option<(usize, usize)> = None;
    let mut last_code_end: Option<usize> = None;
    loop {
        let child = cursor.node();
        if child.is_named() {
            let (start_line, end_line) = line_range(child, cx.src);
            if rules.attach_comments && is_prefix(child.kind()) {
                let (row, end_row) = (start_line - 1, end_line - 1);
                prefix = match prefix {
                    Some((first, last)) if row <= last + 1 => Some((first, end_row)),
                    // A comment trailing code on the same line belongs to it.
                    _ if last_code_end.is_some_and(|end| row <= end) => None,
                    _ => Some((row, end_row)),
                };
            } else {
                let attached = prefix
                    .take()
                    .filter(|&(_, last)| last + 1 >= start_line - 1)
                    .map(|(first, _)| first + 1);
                last_code_end = Some(end_line - 1);
                let action = if child.is_error() {
                    // Definitions survive inside parse errors; keep looking.
                    Action::Descend
                } else {
                    (rules.classify)(child, cx)
                };
                match action {
                    Action::Item { kind, name, body } => {
                        let start = attached.unwrap_or(start_line).min(start_line);
                        let mut item = OutlineItem::new(start, end_line, kind, name);
                        if let Some(body) = body {
                            let inner = Cx {
                                src: cx.src,
                                parent: Some(kind),
                                level: cx.level + 1,
                            };
                            walk(body, &inner, rules, depth + 1, &mut item.children);
                        }
                        out.push(item);
                    }
                    Action::Descend => walk(child, cx, rules, depth + 1, out),
                    Action::Skip => {}
                }
            }
        }
        if !cursor.goto_next_sibling() {
            break;
        }
    }
}

/// The syntax tree as indented text, one named node per line with its
/// field name, kind and line range (leaves show their text), for writing
/// classifiers.
pub(crate) fn debug_tree(lang: Language, source: &str) -> Result<String, CodeIntelError> {
    use std::fmt::Write as _;
    let tree = parse(lang, source)?;
    let src = source.as_bytes();
    let mut out = String::new();
    let mut cursor = tree.walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        if node.is_named() {
            let (start, end) = line_range(node, src);
            let field = cursor
                .field_name()
                .map(|f| format!("{f}: "))
                .unwrap_or_default();
            let _ = write!(
                out,
                "{}{field}{} [{start}-{end}]",
                "  ".repeat(depth),
                node.kind()
            );
            if node.named_child_count() == 0 {
                let text = clean_name(&String::from_utf8_lossy(&src[node.byte_range()]));
                let _ = write!(out, " {text:?}");
            }
            out.push('\n');
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(out);
            }
            depth = depth.saturating_sub(1);
        }
    }
}
