//! File names shown to the model, escaped so that a name cannot forge
//! output: a file called `a\n1:fake` must stay on its one line of a listing
//! or a grep heading, never become a second entry.
//!
//! Escaped: control characters (C0, DEL, C1: `\n`, `\t`, `\r`, `\u{0}`,
//! `\u{1b}`, …), the Unicode line and paragraph separators (which some
//! renderers break lines at) and the bidirectional formatting characters
//! (which reorder what a reader sees). A backslash is left as it is: it
//! cannot start a new line, and escaping it would double every separator
//! of a Windows path. Bytes that are not UTF-8 are shown as `\x{ff}`.

use std::ffi::OsStr;
use std::fmt::Write as _;

/// `name` with every character that could forge or hide output escaped.
pub(crate) fn escape_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    push_escaped(&mut out, name);
    out
}

/// [`escape_name`] for a name that may not be UTF-8 (a path from a walk):
/// invalid bytes are written `\x{..}` instead of being replaced with `�`,
/// so two different names never look the same.
pub(crate) fn escape_os_name(name: &OsStr) -> String {
    let mut out = String::with_capacity(name.len());
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        for chunk in name.as_bytes().utf8_chunks() {
            push_escaped(&mut out, chunk.valid());
            for b in chunk.invalid() {
                let _ = write!(out, "\\x{{{b:02x}}}");
            }
        }
    }
    #[cfg(not(unix))]
    push_escaped(&mut out, &name.to_string_lossy());
    out
}

fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        if needs_escape(c) {
            // `escape_default` gives `\n`, `\t`, `\r` and `\u{1b}` forms.
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_unchanged() {
        for name in [
            "src/main.rs",
            "Ünïcödé 名前.txt",
            "a b",
            "C:\\dir\\f.txt",
            "",
        ] {
            assert_eq!(escape_name(name), name);
        }
    }

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(escape_name("a\nb"), "a\\nb");
        assert_eq!(escape_name("a\tb\r"), "a\\tb\\r");
        assert_eq!(escape_name("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(escape_name("nul\0"), "nul\\u{0}");
        assert_eq!(escape_name("del\u{7f}"), "del\\u{7f}");
        assert_eq!(escape_name("c1\u{85}"), "c1\\u{85}");
    }

    #[test]
    fn a_newline_cannot_forge_a_second_line() {
        let forged = "x.rs\n12:let secret = 1;\nother.rs";
        let shown = escape_name(forged);
        assert_eq!(shown.lines().count(), 1, "{shown}");
        assert_eq!(shown, "x.rs\\n12:let secret = 1;\\nother.rs");
    }

    #[test]
    fn separators_and_bidi_controls_are_escaped() {
        assert_eq!(escape_name("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert_eq!(escape_name("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
        assert_eq!(escape_name("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
    }

    #[cfg(unix)]
    #[test]
    fn invalid_utf8_bytes_are_shown_as_hex() {
        use std::os::unix::ffi::OsStrExt;
        let name = OsStr::from_bytes(b"caf\xe9\n.txt");
        assert_eq!(escape_os_name(name), "caf\\x{e9}\\n.txt");
        assert_eq!(escape_os_name(OsStr::new("ok\t")), "ok\\t");
    }
}
