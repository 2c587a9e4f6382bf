//! The fallback for file types without a parser: lines that look like
//! definitions (`def x`, `sub x`, `class X`, `function x`, `proc x`, ...),
//! nested by indentation. When nothing matches, the outline is empty and says
//! so honestly rather than guessing.

use crate::Outline;
use crate::sections::{Flat, nest};

/// [`Outline::language`] of a heuristic outline.
pub(crate) const LANGUAGE: &str = "text";

/// Words that may precede a definition keyword and are skipped.
const MODIFIERS: &[&str] = &[
    "export",
    "default",
    "pub",
    "pub(crate)",
    "pub(super)",
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "async",
    "abstract",
    "final",
    "sealed",
    "open",
    "override",
    "virtual",
    "inline",
    "local",
    "unsafe",
    "extern",
    "data",
    "partial",
];

/// Definition keywords and the kind each one introduces.
const KEYWORDS: &[(&str, &str)] = &[
    ("def", "function"),
    ("defp", "function"),
    ("fn", "function"),
    ("func", "function"),
    ("fun", "function"),
    ("function", "function"),
    ("sub", "function"),
    ("proc", "function"),
    ("procedure", "function"),
    ("method", "method"),
    ("class", "class"),
    ("struct", "struct"),
    ("enum", "enum"),
    ("trait", "trait"),
    ("interface", "interface"),
    ("protocol", "protocol"),
    ("module", "module"),
    ("defmodule", "module"),
    ("package", "package"),
    ("namespace", "namespace"),
    ("impl", "impl"),
    ("object", "object"),
    ("record", "record"),
    ("type", "type"),
    ("typedef", "type"),
    ("macro", "macro"),
    ("macro_rules!", "macro"),
];

/// Outlines any text by the definition-like lines in it.
pub(crate) fn outline(source: &str) -> Outline {
    let mut flat = Vec::new();
    for (row, line) in source.lines().enumerate() {
        if let Some((kind, name)) = definition(line) {
            let indent = line
                .chars()
                .take_while(|c| c.is_whitespace())
                .map(|c| if c == '\t' { 4 } else { 1 })
                .sum();
            flat.push(Flat {
                level: indent,
                line: row,
                kind,
                name,
            });
        }
    }
    // A function indented under a type is its method.
    let mut items = nest(flat, source);
    mark_methods(&mut items);
    Outline {
        language: LANGUAGE,
        items,
    }
}

/// `(kind, name)` when the line starts (after modifiers) with a definition
/// keyword followed by a name, and goes on like code rather than prose.
fn definition(line: &str) -> Option<(&'static str, String)> {
    let (mut word, mut rest) = next_word(line);
    while MODIFIERS.contains(&word) {
        (word, rest) = next_word(rest);
    }
    let kind = KEYWORDS.iter().find(|(k, _)| *k == word)?.1;
    let name_len = rest
        .char_indices()
        .find(|&(_, c)| {
            !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '$' | '-' | '!' | '?'))
        })
        .map_or(rest.len(), |(i, _)| i);
    let (name, tail) = rest.split_at(name_len);
    let name = name.trim_end_matches([':', '.', '-']);
    // A name starts with a letter or underscore: `type = 3` is not a type.
    if !name.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$') {
        return None;
    }
    // Code goes on with punctuation or nothing; prose (`class of problems
    // that ...`) goes on with words.
    let tail = tail.trim_start();
    let looks_like_code = tail.is_empty()
        || rest[name.len()..].starts_with(':')
        || tail.starts_with(['(', '{', ':', '=', ';', '<', '[', '|', '\\'])
        || [
            "extends",
            "implements",
            "where",
            "->",
            "do",
            "then",
            "begin",
            "is",
        ]
        .iter()
        .any(|w| tail.starts_with(w));
    looks_like_code.then(|| (kind, name.to_owned()))
}

/// The first whitespace-separated word and what follows it (trimmed).
fn next_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], s[end..].trim_start())
}

fn mark_methods(items: &mut [crate::OutlineItem]) {
    for item in items {
        let is_type = matches!(
            item.kind.as_str(),
            "class" | "struct" | "trait" | "interface" | "protocol" | "impl" | "object" | "record"
        );
        if is_type {
            for child in &mut item.children {
                if child.kind == "function" {
                    child.kind = "method".to_owned();
                }
            }
        }
        mark_methods(&mut item.children);
    }
}
