//! Blanking function bodies before `syn` sees the file: every byte of a
//! body's inside except line breaks becomes a space. `syn` still has to lex
//! every byte, and lexing is most of the cost; spaces are the cheapest thing
//! to lex, and `fn f() {   }` parses like the original. Lines and byte
//! offsets outside bodies stay where they were, so outline ranges and impl
//! names (sliced from the original text) are unchanged.
//!
//! The scan is lexical: comments (nested), strings (raw ones too), char
//! literals versus lifetimes. A `{` is a body when the item header before it
//! (since the last `;`, `{` or `}`) has `fn name` outside brackets. Anything it
//! misreads makes `syn` fail, and the caller parses the original instead.

/// The source with function bodies blanked, or `None` when there is nothing
/// to blank or the braces do not balance.
pub(super) fn blank_bodies(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut depth = 0usize;
    let mut brackets = 0usize;
    let mut header_has_fn = false;
    // Depth and start of the body being blanked.
    let mut body: Option<(usize, usize)> = None;
    let mut pos = 0;
    while pos < bytes.len() {
        let b = bytes[pos];
        match b {
            b'/' if bytes.get(pos + 1) == Some(&b'/') => {
                while pos < bytes.len() && bytes[pos] != b'\n' {
                    pos += 1;
                }
                continue;
            }
            b'/' if bytes.get(pos + 1) == Some(&b'*') => {
                pos = skip_block_comment(bytes, pos)?;
                continue;
            }
            b'"' => {
                pos = skip_string(bytes, pos + 1)?;
                continue;
            }
            b'\'' => {
                pos = skip_char_or_lifetime(bytes, pos);
                continue;
            }
            b'(' | b'[' => brackets += 1,
            b')' | b']' => brackets = brackets.saturating_sub(1),
            b'{' => {
                if body.is_none() && header_has_fn && brackets == 0 {
                    body = Some((depth, pos + 1));
                }
                depth += 1;
                header_has_fn = false;
                brackets = 0;
            }
            b'}' => {
                depth = depth.checked_sub(1)?;
                if let Some((body_depth, start)) = body
                    && body_depth == depth
                {
                    let blanked = out.get_or_insert_with(|| bytes.to_vec());
                    for byte in &mut blanked[start..pos] {
                        if !matches!(*byte, b'\n' | b'\r') {
                            *byte = b' ';
                        }
                    }
                    body = None;
                }
                header_has_fn = false;
                brackets = 0;
            }
            b';' if brackets == 0 => header_has_fn = false,
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = pos;
                while pos < bytes.len()
                    && (bytes[pos].is_ascii_alphanumeric() || bytes[pos] == b'_')
                {
                    pos += 1;
                }
                let word = &bytes[start..pos];
                if matches!(word, b"r" | b"br" | b"cr") && is_raw_string_start(bytes, pos) {
                    pos = skip_raw_string(bytes, pos)?;
                } else if word == b"fn" && brackets == 0 && body.is_none() {
                    // `fn name`, not the pointer type `fn(A) -> B`.
                    let next = bytes[pos..].iter().find(|b| !b.is_ascii_whitespace());
                    header_has_fn |= next.is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_');
                }
                continue;
            }
            _ => {}
        }
        pos += 1;
    }
    if depth != 0 {
        return None;
    }
    // Only ASCII spaces were written over whole bodies, whose bounds are
    // ASCII braces, so the result is still UTF-8.
    out.and_then(|bytes| String::from_utf8(bytes).ok())
}

/// After `/*` at `pos`: the position after the matching `*/` (block
/// comments nest in Rust).
fn skip_block_comment(bytes: &[u8], mut pos: usize) -> Option<usize> {
    let mut nesting = 0usize;
    while pos + 1 < bytes.len() {
        match (bytes[pos], bytes[pos + 1]) {
            (b'/', b'*') => {
                nesting += 1;
                pos += 2;
            }
            (b'*', b'/') => {
                nesting -= 1;
                pos += 2;
                if nesting == 0 {
                    return Some(pos);
                }
            }
            _ => pos += 1,
        }
    }
    None
}

/// Inside a string at `pos`: the position after its closing quote.
fn skip_string(bytes: &[u8], mut pos: usize) -> Option<usize> {
    while pos < bytes.len() {
        match bytes[pos] {
            b'\\' => pos += 2,
            b'"' => return Some(pos + 1),
            _ => pos += 1,
        }
    }
    None
}

/// Whether `#*"` follows (after an `r`, `br` or `cr` prefix).
fn is_raw_string_start(bytes: &[u8], mut pos: usize) -> bool {
    while bytes.get(pos) == Some(&b'#') {
        pos += 1;
    }
    bytes.get(pos) == Some(&b'"')
}

/// At the `#`s or `"` of a raw string: the position after its end.
fn skip_raw_string(bytes: &[u8], mut pos: usize) -> Option<usize> {
    let mut hashes = 0;
    while bytes.get(pos) == Some(&b'#') {
        hashes += 1;
        pos += 1;
    }
    pos += 1; // the opening quote
    while pos < bytes.len() {
        if bytes[pos] == b'"'
            && bytes[pos + 1..]
                .iter()
                .take(hashes)
                .filter(|&&b| b == b'#')
                .count()
                == hashes
        {
            return Some(pos + 1 + hashes);
        }
        pos += 1;
    }
    None
}

/// At a `'`: past a char literal (`'x'`, `'\n'`, `'é'`), or just past the
/// quote of a lifetime or label (`'a`).
fn skip_char_or_lifetime(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos + 1) {
        Some(b'\\') => {
            // An escape: to the closing quote on this line.
            let mut end = pos + 2;
            while end < bytes.len() && bytes[end] != b'\'' && bytes[end] != b'\n' {
                end += 1;
            }
            end + 1
        }
        Some(&first) => {
            let width = match first {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            if bytes.get(pos + 1 + width) == Some(&b'\'') {
                pos + 2 + width
            } else {
                pos + 1
            }
        }
        None => pos + 1,
    }
}
