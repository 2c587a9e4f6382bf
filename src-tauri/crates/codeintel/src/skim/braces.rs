//! Brace languages (C, C++, Java, JavaScript, TypeScript, Go, Kotlin,
//! Swift): a `{ ... }` block is skipped unless its header (the text since the
//! previous `;`, `{` or `}`, outside parentheses) names a container such as
//! `class` or `namespace`, whose members the outline lists.

use tree_sitter::{Point, Range};

use super::{Cursor, MIN_SKIP_BYTES, complement};

/// The lexical rules of a family of brace languages.
#[derive(Clone, Copy)]
pub(crate) struct BraceSyntax {
    /// Header words that make a block a container whose members matter.
    pub containers: &'static [&'static str],
    /// `#` at the start of a line begins a preprocessor line (C, C++).
    pub preprocessor: bool,
    /// `"""` delimits multi-line strings (Kotlin, Swift, Java text blocks).
    pub triple_quotes: bool,
    /// A `(` after the container word means a function returning that type
    /// (`struct node *make(void) {`), not a container (C, C++).
    pub parens_make_functions: bool,
    /// `/.../` can be a regular expression literal (JavaScript, TypeScript).
    pub regex_literals: bool,
}

pub(crate) const C_FAMILY: BraceSyntax = BraceSyntax {
    containers: &["struct", "union", "class", "enum", "namespace", "extern"],
    preprocessor: true,
    triple_quotes: false,
    parens_make_functions: true,
    regex_literals: false,
};

pub(crate) const JAVASCRIPT: BraceSyntax = BraceSyntax {
    containers: &[
        "class",
        "interface",
        "namespace",
        "module",
        "enum",
        "declare",
        "global",
    ],
    preprocessor: false,
    triple_quotes: false,
    parens_make_functions: false,
    regex_literals: true,
};

pub(crate) const JAVA: BraceSyntax = BraceSyntax {
    containers: &["class", "interface", "enum", "record"],
    preprocessor: false,
    triple_quotes: true,
    parens_make_functions: false,
    regex_literals: false,
};

pub(crate) const GO: BraceSyntax = BraceSyntax {
    containers: &["struct", "interface"],
    preprocessor: false,
    triple_quotes: false,
    parens_make_functions: false,
    regex_literals: false,
};

pub(crate) const KOTLIN: BraceSyntax = BraceSyntax {
    containers: &["class", "interface", "object", "enum", "companion"],
    preprocessor: false,
    triple_quotes: true,
    parens_make_functions: false,
    regex_literals: false,
};

pub(crate) const SWIFT: BraceSyntax = BraceSyntax {
    containers: &["class", "struct", "enum", "extension", "protocol", "actor"],
    preprocessor: false,
    triple_quotes: true,
    parens_make_functions: false,
    regex_literals: false,
};

/// The ranges to parse: everything except the insides of skippable blocks.
/// `None` when nothing is worth skipping or the braces do not balance (the
/// whole file is parsed then).
pub(crate) fn included_ranges(source: &str, syntax: BraceSyntax) -> Option<Vec<Range>> {
    let mut cur = Cursor {
        bytes: source.as_bytes(),
        pos: 0,
        row: 0,
        line_start: 0,
    };
    // One entry per open brace: the header state to resume after it, when
    // it opened inside `<...>` (`class Store<T extends { id: number }> {`).
    let mut braces: Vec<Option<(bool, usize)>> = Vec::new();
    let mut angles = 0usize;
    // Inside a skipped block: its depth and where its inside starts.
    let mut skipping: Option<(usize, usize, Point)> = None;
    let mut skipped: Vec<(usize, Point, usize, Point)> = Vec::new();
    let mut header_is_container = false;
    let mut parens = 0usize;
    let mut at_line_start = true;
    // Whether a `/` here would start a regular expression rather than
    // divide: after an operator or opening bracket, not after a value.
    let mut regex_allowed = true;
    while cur.pos < cur.bytes.len() {
        let b = cur.bytes[cur.pos];
        let line_start = at_line_start;
        at_line_start = b == b'\n' || (line_start && (b == b' ' || b == b'\t'));
        let was_regex_allowed = regex_allowed;
        if !b.is_ascii_whitespace() {
            regex_allowed = !matches!(b, b')' | b']' | b'}' | b'"' | b'\'' | b'`')
                && !b.is_ascii_alphanumeric()
                && !matches!(b, b'_' | b'$');
        }
        match b {
            b'/' if cur.peek(1) == b'/' => cur.skip_line(),
            b'/' if cur.peek(1) == b'*' => {
                cur.bump();
                cur.bump();
                cur.skip_until(b"*/", false);
            }
            b'#' if syntax.preprocessor && line_start => cur.skip_line(),
            b'/' if syntax.regex_literals && was_regex_allowed => {
                cur.bump();
                cur.skip_regex();
                regex_allowed = false;
            }
            b'"' if syntax.triple_quotes && cur.peek(1) == b'"' && cur.peek(2) == b'"' => {
                cur.bump();
                cur.bump();
                cur.bump();
                cur.skip_until(b"\"\"\"", true);
            }
            b'"' => {
                cur.bump();
                cur.skip_until(b"\"", true);
            }
            // Not a quote in `1'000'000` (C++ digit separators).
            b'\''
                if !cur
                    .pos
                    .checked_sub(1)
                    .is_some_and(|p| cur.bytes[p].is_ascii_digit()) =>
            {
                cur.bump();
                cur.skip_until(b"'", true);
            }
            b'`' => {
                cur.bump();
                cur.skip_until(b"`", true);
            }
            b'(' | b'[' => {
                if b == b'(' && parens == 0 && syntax.parens_make_functions {
                    header_is_container = false;
                }
                parens += 1;
                cur.bump();
            }
            b')' | b']' => {
                parens = parens.saturating_sub(1);
                cur.bump();
            }
            b'<' if parens == 0 => {
                angles += 1;
                cur.bump();
            }
            // Not the `>` of `=>` or `->`.
            b'>' if parens == 0 => {
                let arrow = cur
                    .pos
                    .checked_sub(1)
                    .is_some_and(|p| matches!(cur.bytes[p], b'=' | b'-'));
                if !arrow {
                    angles = angles.saturating_sub(1);
                }
                cur.bump();
            }
            b'{' => {
                cur.bump();
                let resume = (angles > 0).then_some((header_is_container, angles));
                if skipping.is_none() && !header_is_container && resume.is_none() {
                    skipping = Some((braces.len(), cur.pos, cur.point(cur.pos)));
                }
                braces.push(resume);
                header_is_container = false;
                parens = 0;
                angles = 0;
            }
            b'}' => {
                let resume = braces.pop()?;
                if let Some((depth, start, start_point)) = skipping
                    && depth == braces.len()
                {
                    if cur.pos - start >= MIN_SKIP_BYTES {
                        skipped.push((start, start_point, cur.pos, cur.point(cur.pos)));
                    }
                    skipping = None;
                }
                cur.bump();
                (header_is_container, angles) = resume.unwrap_or((false, 0));
                parens = 0;
            }
            b';' => {
                cur.bump();
                if parens == 0 {
                    header_is_container = false;
                    angles = 0;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'@' => {
                let start = cur.pos;
                cur.bump();
                while cur.pos < cur.bytes.len()
                    && (cur.bytes[cur.pos].is_ascii_alphanumeric()
                        || matches!(cur.bytes[cur.pos], b'_' | b'$'))
                {
                    cur.bump();
                }
                // `module.exports` and `x.class` are not keywords.
                let member = start.checked_sub(1).is_some_and(|p| cur.bytes[p] == b'.')
                    || cur.peek(0) == b'.';
                let word = source[start..cur.pos].trim_start_matches('@');
                // After these words a `/` starts a regular expression.
                regex_allowed = matches!(
                    word,
                    "return"
                        | "typeof"
                        | "case"
                        | "do"
                        | "else"
                        | "in"
                        | "of"
                        | "new"
                        | "delete"
                        | "void"
                        | "throw"
                        | "yield"
                        | "await"
                        | "instanceof"
                );
                if skipping.is_none() && parens == 0 && !member && syntax.containers.contains(&word)
                {
                    header_is_container = true;
                }
            }
            _ => cur.bump(),
        }
    }
    if !braces.is_empty() || skipped.is_empty() {
        return None;
    }
    Some(complement(&skipped, source.len(), cur.point(cur.pos)))
}
