//! Turns serde's account of a bad argument into one line a model can act on:
//! where (`todos[2].status`), what was expected and what came, in plain words.
//!
//! serde tells us only a message (`invalid type: string "5", expected u64`);
//! its shapes are the fixed formats of `serde::de::Error`'s provided methods,
//! so they are read back here. Anything else is passed on, cut and escaped.
//! The offending value is echoed only where it helps (an unknown name, a value
//! out of range), never whole when long and never with raw control characters:
//! a model's 1 MB string or a NUL must not come back into its context.

use serde_json::Value;
use serde_path_to_error::Segment;

/// How many characters of a value or name are echoed.
const ECHO_CHARS: usize = 60;
/// How many characters of a message we could not read are passed on.
const MESSAGE_CHARS: usize = 200;

/// The one-line reason for a failed parse of `args`.
pub(crate) fn describe(
    err: &serde_path_to_error::Error<serde_json::Error>,
    args: &Value,
) -> String {
    let segments: Vec<&Segment> = err.path().iter().collect();
    // serde_json prints no position for `from_value` errors: the text is
    // serde's message as the visitor built it.
    let msg = err.inner().to_string();
    if let Some(reason) = unknown_field(&msg, &segments) {
        return reason;
    }
    let at = |text: String| match path_text(&segments) {
        Some(path) => format!("{path}: {text}"),
        None => text,
    };
    if msg.starts_with("missing field `") || msg.starts_with("duplicate field `") {
        // The name comes from the input type, not the input.
        return at(cut_escaped(&msg, MESSAGE_CHARS));
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ")
        && let Some((unexpected, expected)) = rest.rsplit_once(", expected ")
    {
        return at(format!(
            "expected {}, got {}",
            plain_expected(expected),
            kind_of_unexpected(unexpected)
        ));
    }
    if let Some(rest) = msg.strip_prefix("invalid value: ")
        && let Some((unexpected, expected)) = rest.rsplit_once(", expected ")
    {
        let got = match value_at(args, &segments) {
            Some(v) => echo_value(v),
            None => cut_escaped(unexpected, ECHO_CHARS),
        };
        return at(format!("expected {}, got {got}", plain_expected(expected)));
    }
    if let Some(rest) = msg.strip_prefix("invalid length ")
        && let Some((len, expected)) = rest.split_once(", expected ")
    {
        let items = if len == "1" { "item" } else { "items" };
        return at(format!(
            "expected {}, got {} {items}",
            plain_expected(expected),
            cut_escaped(len, ECHO_CHARS)
        ));
    }
    if let Some(reason) = unknown_variant(&msg, args, &segments) {
        return at(reason);
    }
    at(cut_escaped(&msg, MESSAGE_CHARS))
}

/// `unknown field `nope`, expected one of `a`, `b`` → said at the object that
/// holds the field, with the accepted names listed as serde gives them.
fn unknown_field(msg: &str, segments: &[&Segment]) -> Option<String> {
    let (Segment::Map { key: name }, parent) = segments.split_last()? else {
        return None;
    };
    let tail = msg
        .strip_prefix("unknown field `")?
        .strip_prefix(name.as_str())?
        .strip_prefix("`, ")?;
    let accepted = match names_in(tail, "there are no fields")? {
        names if names.is_empty() => "this takes no fields".to_string(),
        names => format!("expected one of: {}", names.join(", ")),
    };
    let reason = format!(
        "unknown field `{}`; {accepted}",
        cut_escaped(name, ECHO_CHARS)
    );
    Some(match path_text(parent) {
        Some(path) => format!("{path}: {reason}"),
        None => reason,
    })
}

/// `unknown variant `middle`, expected `before` or `after`` → `expected
/// "before" or "after", got "middle"`: the names are what the model must send.
fn unknown_variant(msg: &str, args: &Value, segments: &[&Segment]) -> Option<String> {
    let rest = msg.strip_prefix("unknown variant `")?;
    // The sent name may itself hold "`, expected": take it from the input
    // where the path leads there, else up to the first "`, expected".
    let (sent, tail) = match value_at(args, segments) {
        Some(Value::String(s)) if rest.starts_with(s.as_str()) => {
            (s.as_str(), rest[s.len()..].strip_prefix("`, ")?)
        }
        _ => {
            let split = rest
                .find("`, expected ")
                .or_else(|| rest.find("`, there are no"))?;
            (&rest[..split], &rest[split + 3..])
        }
    };
    let names = names_in(tail, "there are no variants")?;
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let expected = match quoted.as_slice() {
        [] => "nothing (no values are accepted)".to_string(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        many => format!("one of {}", many.join(", ")),
    };
    Some(format!("expected {expected}, got {}", echo_str(sent)))
}

/// The names in serde's `expected one of `a`, `b``, `expected `a` or `b`` or
/// `expected `a``; empty for `none` ("there are no fields").
fn names_in(tail: &str, none: &str) -> Option<Vec<String>> {
    if tail == none {
        return Some(Vec::new());
    }
    let list = tail
        .strip_prefix("expected one of ")
        .or_else(|| tail.strip_prefix("expected "))?;
    let names = list
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|n| cut_escaped(n, ECHO_CHARS))
        .collect::<Vec<_>>();
    (!names.is_empty()).then_some(names)
}

/// `todos[2].status`, or `None` at the top level.
fn path_text(segments: &[&Segment]) -> Option<String> {
    let mut out = String::new();
    for seg in segments {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&cut_escaped(key, ECHO_CHARS));
            }
            Segment::Unknown => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('?');
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The input value the path leads to, if it leads into the input as sent.
fn value_at<'a>(args: &'a Value, segments: &[&Segment]) -> Option<&'a Value> {
    segments.iter().try_fold(args, |v, seg| match seg {
        Segment::Seq { index } => v.get(index),
        Segment::Map { key } | Segment::Enum { variant: key } => v.get(key.as_str()),
        Segment::Unknown => None,
    })
}

/// What serde's expectation means in JSON terms.
fn plain_expected(expected: &str) -> String {
    let plain = match expected {
        "u8" => "a number (integer 0 to 255)",
        "u16" => "a number (integer 0 to 65535)",
        "u32" => "a number (integer 0 to 4294967295)",
        "u64" | "u128" | "usize" => "a number (integer ≥ 0)",
        "i8" => "a number (integer -128 to 127)",
        "i16" => "a number (integer -32768 to 32767)",
        "i32" => "a number (integer -2147483648 to 2147483647)",
        "i64" | "i128" | "isize" => "a number (integer)",
        "f32" | "f64" => "a number",
        "a string" | "a borrowed string" | "path string" | "string or map" => "a string",
        "variant identifier" | "field identifier" => "a string",
        "a character" | "a char" => "a single character",
        "a boolean" => "a boolean (true or false)",
        "a sequence" => "an array",
        "a map" => "an object",
        "unit" => "null",
        other if other.starts_with("struct ") => "an object",
        other => return cut_escaped(other, ECHO_CHARS),
    };
    plain.to_string()
}

/// The JSON kind in serde's `Unexpected` text (`string "5"`, `integer `3``).
/// Only a float's digits are echoed: "got a number" would puzzle where an
/// integer was asked for.
fn kind_of_unexpected(unexpected: &str) -> String {
    if let Some(digits) = unexpected.strip_prefix("floating point `") {
        let digits = digits.strip_suffix('`').unwrap_or(digits);
        return format!(
            "a number with a fraction ({})",
            cut_escaped(digits, ECHO_CHARS)
        );
    }
    let head = unexpected.split([' ', '`', '"']).next().unwrap_or("");
    let kind = match head {
        "string" | "character" => "a string",
        "integer" => "a number",
        "boolean" => "a boolean",
        "null" | "unit" => "null",
        "sequence" => "an array",
        "map" => "an object",
        _ => "a value of another kind",
    };
    kind.to_string()
}

/// A value as echoed back: numbers and booleans as sent, strings quoted, cut
/// and escaped, containers by kind only.
fn echo_value(v: &Value) -> String {
    match v {
        Value::String(s) => echo_str(s),
        Value::Number(n) => cut_escaped(&n.to_string(), ECHO_CHARS),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// A string as a JSON-like literal, so a quote inside it cannot end it early.
fn echo_str(s: &str) -> String {
    let (shown, cut) = escaped_prefix(s, ECHO_CHARS, true);
    format!("\"{shown}\"{}", length_note(s, cut))
}

/// The first `max` characters of `s`, control and direction-changing
/// characters escaped, with the full length said when cut.
fn cut_escaped(s: &str, max: usize) -> String {
    let (shown, cut) = escaped_prefix(s, max, false);
    format!("{shown}{}", length_note(s, cut))
}

fn length_note(s: &str, cut: bool) -> String {
    if cut {
        format!("… ({} characters)", s.chars().count())
    } else {
        String::new()
    }
}

/// Escapes the first `max` characters; `quoted` also escapes `\\` and `"`
/// for a string literal. Says whether anything was left off.
fn escaped_prefix(s: &str, max: usize, quoted: bool) -> (String, bool) {
    let mut out = String::new();
    let mut chars = s.chars();
    for c in chars.by_ref().take(max) {
        match c {
            '\\' | '"' if quoted => {
                out.push('\\');
                out.push(c);
            }
            c => push_escaped(&mut out, c),
        }
    }
    (out, chars.next().is_some())
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\0' => out.push_str("\\0"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        // Bidi controls and zero-width characters would let a value reorder
        // or hide the rest of the line when shown.
        c if c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}' | '\u{feff}') =>
        {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
        c => out.push(c),
    }
}
