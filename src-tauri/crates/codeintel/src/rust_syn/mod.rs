//! Rust via `syn`: functions, structs, enums, unions, traits and impls with
//! their methods (an impl's name is `Trait for Type`, so it renders as
//! `impl Trait for Type`), consts, statics, modules with their items,
//! `macro_rules!` macros and type aliases. Start lines include attributes
//! and doc comments.
//!
//! [`skim`] parses items with `syn` but steps over function bodies, which
//! are most of a file; when it meets syntax it does not handle, [`full`]
//! parses the whole file with `syn::parse_file`. Both give the same outline.
//!
//! Line numbers come from proc-macro2's `span-locations`, which records every
//! parsed file in a thread-local source map; that map is cleared after each
//! file so a long-running app does not accumulate sources. Nothing else in
//! the process may hold proc-macro2 spans across a call into this module on
//! the same thread.

mod blank;
mod full;
mod skim;

use proc_macro2::Span;
use syn::{Attribute, Visibility};

use crate::{Language, Outline, OutlineItem};

/// Deeper bracket nesting than this is left to tree-sitter: `syn` parses
/// recursively, and a generated or hostile file could exhaust the stack,
/// which aborts rather than panics. Hand-written Rust stays far below.
const MAX_SYN_NESTING: usize = 100;

/// The outline, or `None` when `syn` cannot (or should not) parse the file,
/// or panics, which it should not, so the caller can fall back.
pub(crate) fn outline(source: &str) -> Option<Outline> {
    if max_nesting(source) > MAX_SYN_NESTING {
        return None;
    }
    let _clear = ClearSpansOnDrop;
    let result =
        std::panic::catch_unwind(|| skim_blanked(source).or_else(|_| full::outline(source)).ok());
    let items = result.ok().flatten()?;
    Some(Outline {
        language: Language::Rust.name(),
        items,
    })
}

/// The whole-file `syn` outline, to check the skimming parser against.
#[doc(hidden)]
pub fn outline_full(source: &str) -> Option<Vec<OutlineItem>> {
    let _clear = ClearSpansOnDrop;
    full::outline(source).ok()
}

/// The skimming parser's outline (bodies blanked), `None` where it would
/// defer to [`outline_full`].
#[doc(hidden)]
pub fn outline_skim(source: &str) -> Option<Vec<OutlineItem>> {
    let _clear = ClearSpansOnDrop;
    skim_blanked(source).ok()
}

/// [`skim`] on the source with bodies blanked ([`blank`]), or as it is when
/// there is nothing to blank. Names are sliced from the original.
fn skim_blanked(source: &str) -> syn::Result<Vec<OutlineItem>> {
    match blank::blank_bodies(source) {
        Some(blanked) => skim::outline(&blanked, source),
        None => skim::outline(source, source),
    }
}

/// Clears proc-macro2's thread-local source map, including after a panic.
struct ClearSpansOnDrop;

impl Drop for ClearSpansOnDrop {
    fn drop(&mut self) {
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}

fn new(start_line: usize, end: Span, kind: &str, name: String) -> OutlineItem {
    let end_line = end.end().line.max(start_line);
    OutlineItem::new(start_line, end_line, kind, name)
}

/// The item's first line: its first outer attribute or doc comment, else
/// its visibility, else its first keyword.
fn start(attrs: &[Attribute], vis: &Visibility, keyword: Span) -> usize {
    let span = attrs
        .iter()
        .find(|a| matches!(a.style, syn::AttrStyle::Outer))
        .map(|a| a.pound_token.span)
        .or(match vis {
            Visibility::Public(p) => Some(p.span),
            Visibility::Restricted(r) => Some(r.pub_token.span),
            Visibility::Inherited => None,
        })
        .unwrap_or(keyword);
    span.start().line
}

/// The deepest bracket nesting, counting brackets in strings and comments
/// too (an overestimate only means a fallback).
fn max_nesting(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in source.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
