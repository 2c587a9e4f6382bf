//! One classifier per language family, each deciding which syntax nodes are
//! outline items, and the table from [`Language`] to classifier.

pub(crate) mod c_family;
mod data;
mod elixir;
mod go;
mod java;
mod javascript;
mod kotlin;
mod lua;
pub(crate) mod markdown;
mod python;
mod ruby;
mod rust_ts;
mod shell;
mod sql;
mod swift;
mod web;

use tree_sitter::Tree;

use crate::skim;
use crate::ts::{self, Rules};
use crate::{CodeIntelError, Language, Outline};

/// Outlines `source` with the tree-sitter grammar and rules for `lang`.
pub(crate) fn outline_with_tree_sitter(
    lang: Language,
    source: &str,
) -> Result<Outline, CodeIntelError> {
    match lang {
        Language::Markdown => markdown::outline(source),
        _ => {
            let tree = parse_skimmed(lang, source)?;
            Ok(outline_tree_with(lang, &tree, source, rules(lang)))
        }
    }
}

/// Parses around function bodies where the language allows it (see
/// [`skim`]). A syntax error where a skipped body begins or ends means the
/// skim misread the file, and the whole file is parsed instead, so a wrong
/// skim costs time, never outline quality. (Errors elsewhere, such as C
/// macros tree-sitter cannot expand, are the file's own.)
fn parse_skimmed(lang: Language, source: &str) -> Result<Tree, CodeIntelError> {
    if !SKIM.get() {
        return ts::parse(lang, source);
    }
    let ranges = match lang {
        Language::Python => skim::python_included_ranges(source),
        Language::Json => skim::json_included_ranges(source),
        _ => skim_syntax(lang).and_then(|s| skim::included_ranges(source, s)),
    };
    if let Some(ranges) = ranges {
        let tree = ts::parse_ranges(lang, source, &ranges)?;
        if !skim::errors_at_seams(&tree, &ranges) {
            return Ok(tree);
        }
    }
    ts::parse(lang, source)
}

thread_local! {
    /// Whether to skim on this thread; off only to check skimming.
    static SKIM: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Runs `f` with skimming off on this thread, for checking that skimmed
/// outlines equal full-parse ones.
pub fn without_skim<T>(f: impl FnOnce() -> T) -> T {
    let previous = SKIM.replace(false);
    let result = f();
    SKIM.set(previous);
    result
}

fn skim_syntax(lang: Language) -> Option<skim::BraceSyntax> {
    match lang {
        Language::C | Language::Cpp => Some(skim::C_FAMILY),
        Language::JavaScript | Language::TypeScript | Language::Tsx => Some(skim::JAVASCRIPT),
        Language::Java => Some(skim::JAVA),
        Language::Go => Some(skim::GO),
        Language::Kotlin => Some(skim::KOTLIN),
        Language::Swift => Some(skim::SWIFT),
        Language::Python
        | Language::Lua
        | Language::Ruby
        | Language::Bash
        | Language::Elixir
        | Language::Json
        | Language::Yaml
        | Language::Toml
        | Language::Html
        | Language::Css
        | Language::Markdown
        | Language::Sql
        | Language::Rust => None,
    }
}

pub(crate) fn outline_tree_with(
    lang: Language,
    tree: &Tree,
    source: &str,
    rules: Rules,
) -> Outline {
    Outline {
        language: lang.name(),
        items: ts::outline_tree(tree, source, rules),
    }
}

const fn code(classify: ts::Classify) -> Rules {
    Rules {
        classify,
        attach_comments: true,
    }
}

const fn data(classify: ts::Classify) -> Rules {
    Rules {
        classify,
        attach_comments: false,
    }
}

fn rules(lang: Language) -> Rules {
    match lang {
        Language::Python => code(python::classify),
        Language::JavaScript | Language::TypeScript | Language::Tsx => code(javascript::classify),
        Language::Go => code(go::classify),
        Language::Java => code(java::classify),
        Language::C | Language::Cpp => c_family::RULES,
        Language::Swift => code(swift::classify),
        Language::Kotlin => code(kotlin::classify),
        Language::Lua => code(lua::classify),
        Language::Ruby => code(ruby::classify),
        Language::Bash => code(shell::classify),
        Language::Elixir => code(elixir::classify),
        Language::Rust => code(rust_ts::classify),
        Language::Sql => code(sql::classify),
        Language::Json => data(data::classify_json),
        Language::Yaml => data(data::classify_yaml),
        Language::Toml => data(data::classify_toml),
        Language::Html => data(web::classify_html),
        Language::Css => code(web::classify_css),
        // Has its own engine (sections, not a classifier); never reached.
        Language::Markdown => data(|_, _| ts::Action::Skip),
    }
}
