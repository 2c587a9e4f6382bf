//! Rust items with `syn`, stepping over function bodies: attributes,
//! visibility, signatures and headers are parsed with `syn`'s own parsers,
//! while bodies (and the values of consts and statics) stay unparsed token
//! groups. Lexing the file is then most of the cost.
//!
//! Anything unexpected is an error, and the caller falls back to
//! [`super::full`]; both must produce the same outline.

use proc_macro2::Span;
use syn::ext::IdentExt as _;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Generics, Ident, Signature, Token, Visibility, braced, token};

use super::{new, start};
use crate::OutlineItem;

/// Where items are being read: what they are called depends on it.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Module,
    Trait,
    Impl,
    Foreign,
}

/// The items of a file: `source` is parsed (it may have its bodies
/// blanked), names are sliced from `original` (same byte offsets).
pub(super) fn outline(source: &str, original: &str) -> syn::Result<Vec<OutlineItem>> {
    let parser = |input: ParseStream<'_>| items(input, original, Scope::Module);
    parser.parse_str(source)
}

/// Items up to the end of `input`, after any inner attributes (`#![...]`).
fn items(input: ParseStream<'_>, src: &str, scope: Scope) -> syn::Result<Vec<OutlineItem>> {
    input.call(Attribute::parse_inner)?;
    let mut out = Vec::new();
    while !input.is_empty() {
        item(input, src, scope, &mut out)?;
    }
    Ok(out)
}

/// The items in the `{ ... }` block next in `input` (a module, trait, impl
/// or extern block), and the span of its closing brace.
fn block_items(
    input: ParseStream<'_>,
    src: &str,
    scope: Scope,
) -> syn::Result<(Vec<OutlineItem>, Span)> {
    let content;
    let brace = braced!(content in input);
    Ok((items(&content, src, scope)?, brace.span.close()))
}

/// One item, pushed to `out` unless the outline leaves it out (`use`, macro
/// calls); an extern block pushes its items.
fn item(
    input: ParseStream<'_>,
    src: &str,
    scope: Scope,
    out: &mut Vec<OutlineItem>,
) -> syn::Result<()> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    let begin = start(&attrs, &vis, input.span());

    if is_fn(input) {
        input.parse::<Option<Token![default]>>()?;
        let sig: Signature = input.parse()?;
        let (end, has_body) = body_or_semi(input)?;
        let kind = match scope {
            // A bodiless function in a module or impl is not Rust (an
            // attribute macro will rewrite it); `syn` keeps it as opaque
            // tokens and leaves it out, and so does this.
            Scope::Module | Scope::Impl if !has_body => return Ok(()),
            Scope::Trait | Scope::Impl => "method",
            Scope::Module | Scope::Foreign => "function",
        };
        out.push(new(begin, end, kind, sig.ident.to_string()));
    } else if input.peek(Token![struct]) || input.peek(Token![enum]) {
        let kind = if input.peek(Token![struct]) {
            "struct"
        } else {
            "enum"
        };
        skip_tree(input)?;
        let name: Ident = input.parse()?;
        let end = match until_brace_or_semi(input)? {
            Some(semi) => semi,
            None => skip_tree(input)?,
        };
        out.push(new(begin, end, kind, name.to_string()));
    } else if input.peek(Token![union]) && input.peek2(Ident) {
        input.parse::<Token![union]>()?;
        let name: Ident = input.parse()?;
        let end = match until_brace_or_semi(input)? {
            Some(semi) => semi,
            None => skip_tree(input)?,
        };
        out.push(new(begin, end, "union", name.to_string()));
    } else if input.peek(Token![const]) || input.peek(Token![static]) {
        let kind = if input.peek(Token![const]) {
            "const"
        } else {
            "static"
        };
        skip_tree(input)?;
        input.parse::<Option<Token![mut]>>()?;
        let name = if input.peek(Token![_]) {
            input.parse::<Token![_]>()?;
            "_".to_owned()
        } else {
            input.parse::<Ident>()?.to_string()
        };
        let end = until_semi(input)?;
        out.push(new(begin, end, kind, name));
    } else if input.peek(Token![type]) {
        input.parse::<Token![type]>()?;
        let name: Ident = input.parse()?;
        let end = until_semi(input)?;
        out.push(new(begin, end, "type", name.to_string()));
    } else if input.peek(Token![mod]) {
        input.parse::<Token![mod]>()?;
        let name: Ident = input.parse()?;
        let entry = match until_brace_or_semi(input)? {
            Some(semi) => new(begin, semi, "module", name.to_string()),
            None => {
                let (children, end) = block_items(input, src, Scope::Module)?;
                let mut entry = new(begin, end, "module", name.to_string());
                entry.children = children;
                entry
            }
        };
        out.push(entry);
    } else if input.peek(Token![use]) {
        until_semi(input)?;
    } else if input.peek(Token![unsafe])
        || input.peek(Token![auto])
        || input.peek(Token![trait])
        || input.peek(Token![impl])
        || input.peek(Token![extern])
    {
        trait_impl_or_extern(input, src, begin, out)?;
    } else if input.peek(Ident::peek_any) || input.peek(Token![::]) {
        if let Some(entry) = macro_item(input, begin)? {
            out.push(entry);
        }
    } else {
        return Err(input.error("unsupported item"));
    }
    Ok(())
}

/// Whether a function signature starts here (after any `default`).
fn is_fn(input: ParseStream<'_>) -> bool {
    let fork = input.fork();
    let _ = fork.parse::<Option<Token![default]>>();
    let _ = fork.parse::<Option<Token![const]>>();
    let _ = fork.parse::<Option<Token![async]>>();
    let _ = fork.parse::<Option<Token![unsafe]>>();
    if fork.peek(Token![extern]) {
        let _ = fork.parse::<Token![extern]>();
        let _ = fork.parse::<Option<syn::LitStr>>();
    }
    fork.peek(Token![fn])
}

/// `trait`, `impl` and `extern` blocks (with `unsafe`/`auto` in front).
fn trait_impl_or_extern(
    input: ParseStream<'_>,
    src: &str,
    begin: usize,
    out: &mut Vec<OutlineItem>,
) -> syn::Result<()> {
    input.parse::<Option<Token![unsafe]>>()?;
    input.parse::<Option<Token![auto]>>()?;
    if input.peek(Token![trait]) {
        input.parse::<Token![trait]>()?;
        let name: Ident = input.parse()?;
        let entry = match until_brace_or_semi(input)? {
            // A trait alias: `trait A = B + C;`
            Some(semi) => new(begin, semi, "trait", name.to_string()),
            None => {
                let (children, end) = block_items(input, src, Scope::Trait)?;
                let mut entry = new(begin, end, "trait", name.to_string());
                entry.children = children;
                entry
            }
        };
        out.push(entry);
    } else if input.peek(Token![impl]) {
        out.push(impl_block(input, src, begin)?);
    } else if input.peek(Token![extern]) {
        input.parse::<Token![extern]>()?;
        if input.peek(Token![crate]) {
            until_semi(input)?;
            return Ok(());
        }
        input.parse::<Option<syn::LitStr>>()?;
        // Listed in place: the block itself is not an item.
        out.extend(block_items(input, src, Scope::Foreign)?.0);
    } else {
        return Err(input.error("expected trait, impl or extern"));
    }
    Ok(())
}

/// `impl<G> Trait for Type where ... { items }`, named `Trait for Type` as
/// written between the generics and the `where` clause or body.
fn impl_block(input: ParseStream<'_>, src: &str, begin: usize) -> syn::Result<OutlineItem> {
    let impl_token: Token![impl] = input.parse()?;
    let generics = if input.peek(Token![<]) {
        Some(input.parse::<Generics>()?)
    } else {
        None
    };
    let from = generics
        .as_ref()
        .and_then(|g| g.gt_token.as_ref())
        .map_or(impl_token.span, |t| t.spans[0]);
    let mut where_span = None;
    while !input.peek(token::Brace) {
        if where_span.is_none() && input.peek(Token![where]) {
            where_span = Some(input.span());
        }
        skip_tree(input)?;
    }
    let to = where_span.unwrap_or_else(|| input.span());
    let name = src
        .get(from.byte_range().end..to.byte_range().start)
        .map(crate::ts::clean_name)
        .unwrap_or_default();
    let (children, end) = block_items(input, src, Scope::Impl)?;
    let mut entry = new(begin, end, "impl", name);
    entry.children = children;
    Ok(entry)
}

/// A macro invocation as an item: `macro_rules! name { ... }` is a macro
/// definition; other invocations define nothing the outline can see.
fn macro_item(input: ParseStream<'_>, begin: usize) -> syn::Result<Option<OutlineItem>> {
    let path = input.call(syn::Path::parse_mod_style)?;
    input.parse::<Token![!]>()?;
    let name: Option<Ident> = input.parse()?;
    let body_end = skip_tree(input)?;
    let semi: Option<Token![;]> = input.parse()?;
    let end = semi.map_or(body_end, |s| s.spans[0]);
    let is_macro_rules = path.is_ident("macro_rules");
    Ok(match name {
        Some(name) if is_macro_rules => Some(new(begin, end, "macro", name.to_string())),
        _ => None,
    })
}

/// Steps over a function body, or the `;` of a bodiless signature: the span
/// of the closing brace or semicolon, and whether there was a body.
fn body_or_semi(input: ParseStream<'_>) -> syn::Result<(Span, bool)> {
    if input.peek(Token![;]) {
        Ok((input.parse::<Token![;]>()?.spans[0], false))
    } else if input.peek(token::Brace) {
        Ok((skip_tree(input)?, true))
    } else {
        Err(input.error("expected a function body"))
    }
}

/// Steps over tokens to the first `;` outside any group; its span.
fn until_semi(input: ParseStream<'_>) -> syn::Result<Span> {
    while !input.peek(Token![;]) {
        skip_tree(input)?;
    }
    Ok(input.parse::<Token![;]>()?.spans[0])
}

/// Steps over tokens to the first `;` (consumed; its span) or `{ ... }`
/// block (left next in `input`; `None`) outside any group.
fn until_brace_or_semi(input: ParseStream<'_>) -> syn::Result<Option<Span>> {
    loop {
        if input.peek(Token![;]) {
            return Ok(Some(input.parse::<Token![;]>()?.spans[0]));
        }
        if input.peek(token::Brace) {
            return Ok(None);
        }
        skip_tree(input)?;
    }
}

/// Steps over one token tree without copying it (a group is stepped over
/// whole); the span of its last token.
fn skip_tree(input: ParseStream<'_>) -> syn::Result<Span> {
    input.step(|cursor| {
        if let Some((_, _, span, rest)) = cursor.any_group() {
            return Ok((span.close(), rest));
        }
        if let Some((punct, rest)) = cursor.punct() {
            return Ok((punct.span(), rest));
        }
        if let Some((ident, rest)) = cursor.ident() {
            return Ok((ident.span(), rest));
        }
        if let Some((literal, rest)) = cursor.literal() {
            return Ok((literal.span(), rest));
        }
        if let Some((lifetime, rest)) = cursor.lifetime() {
            return Ok((lifetime.span(), rest));
        }
        Err(cursor.error("unexpected end of input"))
    })
}
