//! The reference Rust outline: `syn` parses the whole file, bodies
//! included, and the items are read off the syntax tree. Used when the
//! faster [`super::skim`] parser meets syntax it does not handle.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    Fields, ForeignItem, ImplItem, Item, ItemImpl, MacroDelimiter, Signature, TraitItem, Visibility,
};

use super::{new, start};
use crate::OutlineItem;

/// The items of a parsed file.
pub(super) fn outline(source: &str) -> syn::Result<Vec<OutlineItem>> {
    let file = syn::parse_file(source)?;
    Ok(items(&file.items, source, Parent::Module))
}

#[derive(Clone, Copy, PartialEq)]
enum Parent {
    Module,
    Type,
}

fn items(list: &[Item], src: &str, parent: Parent) -> Vec<OutlineItem> {
    let mut out = Vec::with_capacity(list.len());
    for item in list {
        item_into(item, src, parent, &mut out);
    }
    out
}

fn item_into(item: &Item, src: &str, parent: Parent, out: &mut Vec<OutlineItem>) {
    let entry = match item {
        Item::Fn(f) => {
            let kind = if parent == Parent::Type {
                "method"
            } else {
                "function"
            };
            new(
                start(&f.attrs, &f.vis, sig_start(&f.sig)),
                f.block.brace_token.span.close(),
                kind,
                f.sig.ident.to_string(),
            )
        }
        Item::Struct(s) => {
            let end = match &s.fields {
                Fields::Named(n) => n.brace_token.span.close(),
                Fields::Unnamed(u) => s
                    .semi_token
                    .as_ref()
                    .map_or(u.paren_token.span.close(), |t| t.spans[0]),
                Fields::Unit => s.semi_token.as_ref().map_or(s.ident.span(), |t| t.spans[0]),
            };
            let start = start(&s.attrs, &s.vis, s.struct_token.span);
            new(start, end, "struct", s.ident.to_string())
        }
        Item::Enum(e) => new(
            start(&e.attrs, &e.vis, e.enum_token.span),
            e.brace_token.span.close(),
            "enum",
            e.ident.to_string(),
        ),
        Item::Union(u) => new(
            start(&u.attrs, &u.vis, u.union_token.span),
            u.fields.brace_token.span.close(),
            "union",
            u.ident.to_string(),
        ),
        Item::Trait(t) => {
            let mut entry = new(
                start(&t.attrs, &t.vis, t.trait_token.span),
                t.brace_token.span.close(),
                "trait",
                t.ident.to_string(),
            );
            entry.children = t.items.iter().filter_map(trait_item).collect();
            entry
        }
        Item::TraitAlias(t) => new(
            start(&t.attrs, &t.vis, t.trait_token.span),
            t.semi_token.spans[0],
            "trait",
            t.ident.to_string(),
        ),
        Item::Impl(i) => {
            let mut entry = new(
                start(&i.attrs, &Visibility::Inherited, i.impl_token.span),
                i.brace_token.span.close(),
                "impl",
                impl_name(i, src),
            );
            entry.children = i.items.iter().filter_map(impl_item).collect();
            entry
        }
        Item::Mod(m) => {
            let end = match &m.content {
                Some((brace, _)) => brace.span.close(),
                None => m.semi.as_ref().map_or(m.ident.span(), |t| t.spans[0]),
            };
            let mut entry = new(
                start(&m.attrs, &m.vis, m.mod_token.span),
                end,
                "module",
                m.ident.to_string(),
            );
            if let Some((_, content)) = &m.content {
                entry.children = items(content, src, Parent::Module);
            }
            entry
        }
        Item::Const(c) => new(
            start(&c.attrs, &c.vis, c.const_token.span),
            c.semi_token.spans[0],
            "const",
            c.ident.to_string(),
        ),
        Item::Static(s) => new(
            start(&s.attrs, &s.vis, s.static_token.span),
            s.semi_token.spans[0],
            "static",
            s.ident.to_string(),
        ),
        Item::Type(t) => new(
            start(&t.attrs, &t.vis, t.type_token.span),
            t.semi_token.spans[0],
            "type",
            t.ident.to_string(),
        ),
        Item::Macro(m) => {
            // Only `macro_rules! name`; other invocations define nothing
            // visible here.
            let Some(ident) = &m.ident else { return };
            let end = m
                .semi_token
                .as_ref()
                .map_or_else(|| delimiter_close(&m.mac.delimiter), |t| t.spans[0]);
            let first = m
                .mac
                .path
                .segments
                .first()
                .map_or(ident.span(), |s| s.ident.span());
            new(
                start(&m.attrs, &Visibility::Inherited, first),
                end,
                "macro",
                ident.to_string(),
            )
        }
        // `extern "C" { ... }`: its items are listed in place.
        Item::ForeignMod(f) => {
            out.extend(f.items.iter().filter_map(foreign_item));
            return;
        }
        Item::ExternCrate(_) | Item::Use(_) | Item::Verbatim(_) => return,
        _ => return,
    };
    out.push(entry);
}

fn trait_item(item: &TraitItem) -> Option<OutlineItem> {
    let none = Visibility::Inherited;
    Some(match item {
        TraitItem::Fn(f) => {
            let end = f.default.as_ref().map_or_else(
                || {
                    f.semi_token
                        .as_ref()
                        .map_or(f.sig.ident.span(), |t| t.spans[0])
                },
                |b| b.brace_token.span.close(),
            );
            new(
                start(&f.attrs, &none, sig_start(&f.sig)),
                end,
                "method",
                f.sig.ident.to_string(),
            )
        }
        TraitItem::Const(c) => new(
            start(&c.attrs, &none, c.const_token.span),
            c.semi_token.spans[0],
            "const",
            c.ident.to_string(),
        ),
        TraitItem::Type(t) => new(
            start(&t.attrs, &none, t.type_token.span),
            t.semi_token.spans[0],
            "type",
            t.ident.to_string(),
        ),
        _ => return None,
    })
}

fn impl_item(item: &ImplItem) -> Option<OutlineItem> {
    Some(match item {
        ImplItem::Fn(f) => new(
            start(&f.attrs, &f.vis, sig_start(&f.sig)),
            f.block.brace_token.span.close(),
            "method",
            f.sig.ident.to_string(),
        ),
        ImplItem::Const(c) => new(
            start(&c.attrs, &c.vis, c.const_token.span),
            c.semi_token.spans[0],
            "const",
            c.ident.to_string(),
        ),
        ImplItem::Type(t) => new(
            start(&t.attrs, &t.vis, t.type_token.span),
            t.semi_token.spans[0],
            "type",
            t.ident.to_string(),
        ),
        _ => return None,
    })
}

fn foreign_item(item: &ForeignItem) -> Option<OutlineItem> {
    Some(match item {
        ForeignItem::Fn(f) => new(
            start(&f.attrs, &f.vis, sig_start(&f.sig)),
            f.semi_token.spans[0],
            "function",
            f.sig.ident.to_string(),
        ),
        ForeignItem::Static(s) => new(
            start(&s.attrs, &s.vis, s.static_token.span),
            s.semi_token.spans[0],
            "static",
            s.ident.to_string(),
        ),
        ForeignItem::Type(t) => new(
            start(&t.attrs, &t.vis, t.type_token.span),
            t.semi_token.spans[0],
            "type",
            t.ident.to_string(),
        ),
        _ => return None,
    })
}

/// `Trait for Type` / `Type` (so the item renders as `impl Trait for Type`),
/// as written in the source between the generics and the `where` clause or
/// body, whitespace collapsed.
fn impl_name(i: &ItemImpl, src: &str) -> String {
    let from = i
        .generics
        .gt_token
        .as_ref()
        .map_or(i.impl_token.span, |t| t.spans[0])
        .byte_range()
        .end;
    let to = i
        .generics
        .where_clause
        .as_ref()
        .map_or(i.brace_token.span.open(), |w| w.where_token.span)
        .byte_range()
        .start;
    let written = src.get(from..to).map(crate::ts::clean_name);
    match written {
        Some(text) if !text.is_empty() => text,
        // Spans without positions: fall back to the type's own text.
        _ => i.self_ty.span().source_text().unwrap_or_default(),
    }
}

/// The first token of a signature: `const`, `async`, `unsafe`, `extern` or
/// `fn`.
fn sig_start(sig: &Signature) -> Span {
    sig.constness
        .as_ref()
        .map(|t| t.span)
        .or(sig.asyncness.as_ref().map(|t| t.span))
        .or(sig.unsafety.as_ref().map(|t| t.span))
        .or(sig.abi.as_ref().map(|a| a.extern_token.span))
        .unwrap_or(sig.fn_token.span)
}

fn delimiter_close(delimiter: &MacroDelimiter) -> Span {
    match delimiter {
        MacroDelimiter::Paren(p) => p.span.close(),
        MacroDelimiter::Brace(b) => b.span.close(),
        MacroDelimiter::Bracket(b) => b.span.close(),
    }
}
