//! The engines behind the `get_ast_outline` tool: given a file's path and
//! text, list its definitions (functions, classes, methods, structs, headings,
//! keys, ...) with their line ranges and without their bodies.
//!
//! Three engines, chosen by file extension ([`language_for`]):
//! - tree-sitter grammars for most languages and data formats (`ts` walks
//!   the tree, one classifier per language family under `lang`);
//! - `syn` for Rust (`rust_syn`), falling back to tree-sitter-rust when the
//!   file does not parse (a file mid-edit);
//! - a text heuristic for anything else (`text`).
//!
//! Speed: parsing is nearly all the cost, and function bodies are most of
//! the text, so both engines step over bodies. tree-sitter is told to parse
//! around them (`skim`: C family, JavaScript/TypeScript, Java, Go, Kotlin,
//! Swift, Python, deep JSON), and Rust items are read with `syn` without
//! parsing bodies (`rust_syn`). Each has a whole-file path it falls back to
//! and is checked against (`outline-bench --check-skim`/`--check-rust`). One
//! tree-sitter parser per language is cached per thread. See
//! `docs/benchmarks-outline.md` for figures against ctags.
//!
//! This crate is a leaf: it is the only one that compiles grammars, and it
//! never touches the filesystem policy, the database or the UI. It does not
//! even read files: the caller (the `tools` crate) resolves and reads the
//! path under its own policy and passes the text in.

mod error;
mod lang;
mod language;
mod outline;
mod rust_syn;
mod sections;
mod skim;
mod text;
mod ts;

use std::path::Path;

pub use error::CodeIntelError;
pub use language::{Language, language_for};
pub use outline::{EMPTY_OUTLINE, NO_OUTLINE_FOR_TYPE, Outline, OutlineItem};

/// Outlines `source`, the text of the file at `path`. The language comes
/// from the extension; unknown extensions get the text heuristic.
///
/// Never panics on odd input: an empty file gives an empty outline, and
/// invalid syntax gives whatever definitions could still be recognised.
pub fn outline_source(path: &Path, source: &str) -> Result<Outline, CodeIntelError> {
    let is_header = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("h"));
    match language_for(path) {
        Some(Language::C) if is_header => or_text(lang::c_family::outline_header(source), source),
        Some(lang) => outline_language(lang, source),
        None => Ok(text::outline(source)),
    }
}

/// Outlines `source` as `lang`, whatever its file is called.
pub fn outline_language(lang: Language, source: &str) -> Result<Outline, CodeIntelError> {
    match lang {
        Language::Rust => Ok(rust_syn::outline(source).unwrap_or_else(|| rust_fallback(source))),
        _ => or_text(lang::outline_with_tree_sitter(lang, source), source),
    }
}

/// A parse that was abandoned (see `ts::time_budget`) gets the text
/// heuristic, which still says something and says it is a heuristic.
fn or_text(
    result: Result<Outline, CodeIntelError>,
    source: &str,
) -> Result<Outline, CodeIntelError> {
    result.or_else(|err| match err {
        CodeIntelError::Parse { .. } => Ok(text::outline(source)),
        CodeIntelError::Grammar { .. } => Err(err),
    })
}

/// Rust that `syn` rejects: tree-sitter-rust's partial tree, or failing even
/// that, the text heuristic.
fn rust_fallback(source: &str) -> Outline {
    lang::outline_with_tree_sitter(Language::Rust, source).unwrap_or_else(|_| text::outline(source))
}

/// Engine internals exposed for tests and the benchmark; not API.
#[doc(hidden)]
pub mod internals {
    pub use crate::lang::without_skim;
    pub use crate::rust_syn::{outline_full as rust_full, outline_skim as rust_skim};

    /// Whether a full tree-sitter parse of `source` has syntax errors.
    pub fn full_parse_has_errors(lang: crate::Language, source: &str) -> bool {
        crate::ts::parse(lang, source).map_or(true, |t| t.root_node().has_error())
    }
}

/// The tree-sitter syntax tree of `source` as indented text, for anyone
/// writing or debugging a classifier (see `examples/syntax-tree.rs`). Rust is
/// shown as tree-sitter-rust sees it.
#[doc(hidden)]
pub fn syntax_tree(lang: Language, source: &str) -> Result<String, CodeIntelError> {
    ts::debug_tree(lang, source)
}
