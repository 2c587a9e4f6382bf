//! The matcher as the searcher sees it: the compiled regex, handed the
//! buffer a piece at a time with the cancel flag checked before each piece.
//!
//! The searcher asks for the first matching line in a whole buffer (64 KB
//! or more) in one call, and one regex call cannot be interrupted. Matches
//! never span a line (the regex is compiled with `\n` as line terminator),
//! so searching the buffer in pieces that end at a line end finds the same
//! first line. A piece is at most `piece` bytes long (chosen from the
//! pattern's size, see `pattern::budget`) unless one line is longer,
//! so a stop waits for at most one piece (or one long line).

use std::fmt;
use std::sync::atomic::AtomicBool;

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::{RegexCaptures, RegexMatcher};

use super::search::is_set;

/// The only error: the cancel flag was raised.
#[derive(Debug)]
pub(super) struct Stopped;

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("search stopped")
    }
}

pub(super) struct Chunked<'a> {
    pub inner: &'a RegexMatcher,
    pub cancel: Option<&'a AtomicBool>,
    /// Longest piece handed to one regex call (when its lines are shorter).
    pub piece: usize,
}

impl Chunked<'_> {
    fn check(&self) -> Result<(), Stopped> {
        if is_set(self.cancel) {
            Err(Stopped)
        } else {
            Ok(())
        }
    }
}

/// The inner matcher cannot fail.
fn ok<T>(r: Result<T, NoError>) -> Result<T, Stopped> {
    r.map_err(|_| Stopped)
}

/// Where the piece starting at `start` ends: just after the last line
/// terminator within `piece` bytes, or after the line that outgrows it.
fn piece_end(haystack: &[u8], start: usize, piece: usize) -> usize {
    let limit = start.saturating_add(piece).min(haystack.len());
    if limit == haystack.len() {
        return limit;
    }
    match haystack[start..limit].iter().rposition(|&b| b == b'\n') {
        Some(i) => start + i + 1,
        None => haystack[limit..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(haystack.len(), |i| limit + i + 1),
    }
}

impl Matcher for Chunked<'_> {
    type Captures = RegexCaptures;
    type Error = Stopped;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Stopped> {
        self.check()?;
        ok(self.inner.find_at(haystack, at))
    }

    fn new_captures(&self) -> Result<RegexCaptures, Stopped> {
        ok(self.inner.new_captures())
    }

    fn capture_count(&self) -> usize {
        self.inner.capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.inner.capture_index(name)
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut RegexCaptures,
    ) -> Result<bool, Stopped> {
        self.check()?;
        ok(self.inner.captures_at(haystack, at, caps))
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, Stopped> {
        self.check()?;
        ok(self.inner.shortest_match_at(haystack, at))
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.inner.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.inner.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, Stopped> {
        let mut start = 0;
        while start < haystack.len() {
            self.check()?;
            let end = piece_end(haystack, start, self.piece);
            let found = ok(self.inner.find_candidate_line(&haystack[start..end]))?;
            // An empty match just past a piece's last line terminator is
            // the next piece's business (the searcher ignores one past the
            // buffer's end the same way).
            let inside = |i: usize| end == haystack.len() || i < end - start;
            match found {
                Some(LineMatchKind::Confirmed(i)) if inside(i) => {
                    return Ok(Some(LineMatchKind::Confirmed(start + i)));
                }
                Some(LineMatchKind::Candidate(i)) if inside(i) => {
                    return Ok(Some(LineMatchKind::Candidate(start + i)));
                }
                _ => start = end,
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_line_ends_and_never_split_a_line() {
        let line = "x".repeat(999) + "\n";
        let buf = line.repeat(20);
        let end = piece_end(buf.as_bytes(), 0, 8192);
        assert_eq!(end, 8000);
        assert_eq!(piece_end(buf.as_bytes(), end, 8192), 16000);
        let long = format!("{}\nshort\n", "y".repeat(3 * 8192));
        assert_eq!(piece_end(long.as_bytes(), 0, 8192), 3 * 8192 + 1);
        assert_eq!(piece_end(b"no newline at all", 0, 8192), 17);
        assert_eq!(piece_end(buf.as_bytes(), 0, usize::MAX), buf.len());
    }

    #[test]
    fn a_match_is_found_in_whichever_piece_holds_it() {
        let re = super::super::build_matcher("needle", true).unwrap();
        let m = Chunked {
            inner: &re,
            cancel: None,
            piece: 8192,
        };
        let hay = format!("{}needle\n", ("z".repeat(99) + "\n").repeat(500));
        let found = m.find_candidate_line(hay.as_bytes()).unwrap();
        let pos = match found {
            Some(LineMatchKind::Confirmed(p) | LineMatchKind::Candidate(p)) => p,
            None => panic!("not found"),
        };
        assert!((50_000..50_007).contains(&pos), "{pos}");
        // `^$` must not report the line after a piece as empty.
        let empty = super::super::build_matcher("^$", true).unwrap();
        let m = Chunked {
            inner: &empty,
            cancel: None,
            piece: 8192,
        };
        let pos = |r: Option<LineMatchKind>| match r {
            Some(LineMatchKind::Confirmed(p)) => Some(("confirmed", p)),
            Some(LineMatchKind::Candidate(p)) => Some(("candidate", p)),
            None => None,
        };
        // No line of it is empty: nothing, or only the end of the buffer
        // (which the searcher ignores), may be reported.
        let got = pos(m.find_candidate_line(hay.as_bytes()).unwrap());
        assert!(got.is_none_or(|(_, p)| p == hay.len()), "{got:?}");
    }

    #[test]
    fn a_raised_flag_stops_before_the_next_piece() {
        let re = super::super::build_matcher("needle", true).unwrap();
        let flag = AtomicBool::new(true);
        let m = Chunked {
            inner: &re,
            cancel: Some(&flag),
            piece: 8192,
        };
        assert!(m.find_candidate_line(b"needle\n").is_err());
    }
}
