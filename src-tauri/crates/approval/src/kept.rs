//! The preview a finished write keeps on its card, bounded: every write
//! that runs stores one (not only those a person was asked about), so a
//! large file's before/after are cut down to the lines that change, with
//! a few lines of context, and a change itself too large is cut with a
//! note saying so.

/// Most bytes kept of a finished write's before and after together.
pub const MAX_KEPT_PREVIEW_BYTES: usize = 64 * 1024;

/// Unchanged lines kept on each side of the change when a file is cut.
const CONTEXT_LINES: usize = 3;

/// What is stored of a write's preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptPreview {
    /// The file before the write (`None`: it did not exist or is not text).
    pub old: Option<String>,
    /// The file after it (`None`: not predicted).
    pub new: Option<String>,
    /// Why these are not the whole files; `None` when they are.
    pub note: Option<String>,
}

/// `old` and `new` as kept: whole when they fit [`MAX_KEPT_PREVIEW_BYTES`],
/// else the changed lines with [`CONTEXT_LINES`] around them, else the start
/// of those.
pub fn kept_preview(old: Option<String>, new: Option<String>) -> KeptPreview {
    kept_within(old, new, MAX_KEPT_PREVIEW_BYTES)
}

fn kept_within(old: Option<String>, new: Option<String>, max: usize) -> KeptPreview {
    let size = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    if size(&old) + size(&new) <= max {
        return KeptPreview {
            old,
            new,
            note: None,
        };
    }
    let a: Vec<&str> = old.as_deref().map_or(Vec::new(), lines);
    let b: Vec<&str> = new.as_deref().map_or(Vec::new(), lines);
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let from = head.saturating_sub(CONTEXT_LINES);
    let cut_tail = tail.saturating_sub(CONTEXT_LINES);
    let a = &a[from..a.len() - cut_tail];
    let b = &b[from..b.len() - cut_tail];
    let total = old
        .as_deref()
        .or(new.as_deref())
        .map_or(0, |s| lines(s).len());
    let mut note = format!(
        "Large file: only the changed lines are kept here, from line {} ({} lines before the change unchanged).",
        from + 1,
        from
    );
    let joined = |ls: &[&str]| ls.concat();
    let (mut a, mut b) = (joined(a), joined(b));
    if a.len() + b.len() > max {
        a = start_of(&a, max / 2);
        b = start_of(&b, max / 2);
        note.push_str(&format!(
            " The change is larger than {} KiB: only its start is shown (the file has {total} lines).",
            max / 1024
        ));
    }
    KeptPreview {
        old: old.map(|_| a),
        new: new.map(|_| b),
        note: Some(note),
    }
}

/// Lines with their ends, so joining them gives the text back.
fn lines(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

/// The whole lines of `s` that fit in `max` bytes (the first one cut at a
/// character boundary when even it does not fit).
fn start_of(s: &str, max: usize) -> String {
    let mut out = String::new();
    for line in lines(s) {
        if out.len() + line.len() > max {
            if out.is_empty() {
                let mut end = max;
                while !line.is_char_boundary(end) {
                    end -= 1;
                }
                out.push_str(&line[..end]);
            }
            break;
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize, changed: Option<usize>) -> String {
        (1..=n)
            .map(|i| {
                if Some(i) == changed {
                    format!("line {i} changed\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect()
    }

    #[test]
    fn a_small_write_is_kept_whole() {
        let k = kept_preview(Some("old\n".into()), Some("new\n".into()));
        assert_eq!(k.old.as_deref(), Some("old\n"));
        assert_eq!(k.new.as_deref(), Some("new\n"));
        assert_eq!(k.note, None);
    }

    #[test]
    fn a_large_file_keeps_the_changed_lines_with_context_and_says_so() {
        let (old, new) = (numbered(5000, None), numbered(5000, Some(2500)));
        assert!(old.len() + new.len() > MAX_KEPT_PREVIEW_BYTES);
        let k = kept_preview(Some(old), Some(new));
        assert_eq!(
            k.old.as_deref(),
            Some("line 2497\nline 2498\nline 2499\nline 2500\nline 2501\nline 2502\nline 2503\n")
        );
        assert_eq!(
            k.new.as_deref(),
            Some(
                "line 2497\nline 2498\nline 2499\nline 2500 changed\nline 2501\nline 2502\nline 2503\n"
            )
        );
        let note = k.note.unwrap();
        assert!(note.contains("from line 2497"), "{note}");
    }

    #[test]
    fn a_change_too_large_is_cut_to_its_start() {
        let new = numbered(20_000, None);
        let k = kept_within(None, Some(new.clone()), 1024);
        assert_eq!(k.old, None);
        let kept = k.new.unwrap();
        assert!(kept.len() <= 512, "{}", kept.len());
        assert!(new.starts_with(&kept));
        assert!(kept.ends_with('\n'));
        assert!(
            k.note
                .unwrap()
                .contains("only its start is shown (the file has 20000 lines)")
        );
    }

    #[test]
    fn one_long_line_is_cut_at_a_character_boundary() {
        let new = "é".repeat(1000);
        let k = kept_within(Some(String::new()), Some(new), 101);
        let kept = k.new.unwrap();
        assert!(kept.len() <= 50 && !kept.is_empty(), "{}", kept.len());
    }
}
