//! Display labels for tool calls: short for cards and notifications, full for
//! tooltips and history.

/// Which label length a caller wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolDescriptionLength {
    Short,
    Full,
}

impl ToolDescriptionLength {
    pub fn max_chars(self) -> usize {
        match self {
            ToolDescriptionLength::Short => MAX_LABEL_SHORT,
            ToolDescriptionLength::Full => MAX_LABEL_FULL,
        }
    }
}

pub const MAX_LABEL_SHORT: usize = 60;
pub const MAX_LABEL_FULL: usize = 120;

/// Cuts `s` to at most `max` characters (not bytes), ending with `…` when cut,
/// so multi-byte text never splits inside a character.
pub fn truncate_label(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(truncate_label("read_file a.rs", 60), "read_file a.rs");
        assert_eq!(truncate_label("", 60), "");
    }

    #[test]
    fn long_text_is_cut_with_ellipsis_to_exact_length() {
        let s = "x".repeat(200);
        let t = truncate_label(&s, MAX_LABEL_SHORT);
        assert_eq!(t.chars().count(), MAX_LABEL_SHORT);
        assert!(t.ends_with('…'));
    }

    #[test]
    fn multibyte_text_cuts_on_char_boundary() {
        let s = "日本語のファイル名".repeat(20);
        let t = truncate_label(&s, 10);
        assert_eq!(t.chars().count(), 10);
        assert_eq!(t, "日本語のファイル名…");
        let emoji = "🦀".repeat(100);
        assert_eq!(truncate_label(&emoji, 3), "🦀🦀…");
    }

    #[test]
    fn exact_fit_and_tiny_limits() {
        assert_eq!(truncate_label("abc", 3), "abc");
        assert_eq!(truncate_label("abcd", 1), "…");
        assert_eq!(truncate_label("abcd", 0), "");
    }

    #[test]
    fn max_chars_matches_constants() {
        assert_eq!(ToolDescriptionLength::Short.max_chars(), 60);
        assert_eq!(ToolDescriptionLength::Full.max_chars(), 120);
    }
}
