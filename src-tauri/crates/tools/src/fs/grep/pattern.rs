//! What a pattern may cost. One regex call cannot be interrupted, so the
//! pattern itself must keep each call short (the search hands the engine
//! 8 KB pieces, see `chunked`, and checks the cancel flag between them).
//!
//! Measured (release build, 2 cores), what bounds the time is how many NFA
//! states are alive at once, not how long the pattern is written:
//! `a{40000}` (8 characters) on one 100,000-character line took 18.6 s and
//! 800 MB; `a{10000}` 1.2 s; `a{1000}` 10 ms. Forty case-sensitive branches
//! like `a{1000}c` fit in a 2 MB NFA yet took 26 s per 64 KB once the lazy
//! DFA gave up. Hence:
//! * [`MAX_PATTERN_BYTES`]: a megabyte of pattern is refused at once;
//! * [`MAX_REPEAT`]: a counted repetition (`{n}`, `{n,}`, `{m,n}`) counts at
//!   most 1000, the counts of nested ones multiplied (RE2's and Go's rule);
//! * [`MAX_EXPANDED`]: at most 10,000 characters and classes once counted
//!   repetitions are written out, which keeps the lazy DFA inside its cache
//!   (20,000 cost 0.35 s for the first 64 KB, 40,000 fell off the cliff);
//! * [`NFA_SIZE_LIMIT`]: the compiled NFA (Unicode classes repeated grow it);
//! * [`DFA_CACHE_LIMIT`]: the lazy DFA's cache per searching thread (ripgrep
//!   allows 1 GB; 812 MB was seen), so no pattern holds more memory.
//!
//! The first three are checked on the syntax tree before anything is
//! compiled. Ordinary patterns are far from every cap and cost nothing more.

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use regex_syntax::ast::{self, Ast, RepetitionKind, RepetitionRange};

use super::super::access::one_line;
use super::super::label::quoted;
use super::MAX_LINE_BYTES;

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Largest count of a counted repetition (`{n}`, `{n,}`, `{m,n}`); the
/// counts of nested repetitions multiply.
pub const MAX_REPEAT: u64 = 1000;
/// Most characters and classes once counted repetitions are written out
/// (`a{1000}|b{1000}` has 2000).
pub const MAX_EXPANDED: u64 = 10_000;
/// Largest compiled NFA, in bytes (ripgrep's default is 100 MB).
pub const NFA_SIZE_LIMIT: usize = 2 << 20;
/// Lazy-DFA cache per searching thread, in bytes.
pub const DFA_CACHE_LIMIT: usize = 32 << 20;
/// Nesting depth of groups and repetitions (grep-regex's default).
const NEST_LIMIT: u32 = 250;

/// Why a pattern is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("pattern is empty; pass a regex to search for")]
    Empty,
    #[error(
        "pattern is {0} bytes long; the limit is {MAX_PATTERN_BYTES} (search for a shorter, distinctive part of the text)"
    )]
    TooLong(usize),
    #[error(
        "pattern repeats too much: {shown} asks for {count} repetitions, at most {MAX_REPEAT} (the counts of nested repetitions multiply); use a smaller count, or + or *"
    )]
    TooManyRepeats { shown: String, count: u64 },
    #[error(
        "pattern is too large once its counted repetitions are written out: {0} characters or classes, at most {MAX_EXPANDED}; use smaller counts or fewer alternatives"
    )]
    TooLarge(u64),
    #[error(
        "pattern is too complex: it compiles to more than {} MB (counted repetitions of \\w, . or Unicode classes grow fast); use a smaller count or an ASCII class such as [A-Za-z0-9_]",
        NFA_SIZE_LIMIT >> 20
    )]
    TooComplex,
    #[error(
        "invalid regex {shown}: {reason} (grep_files uses Rust regex syntax; escape literal ( [ {{ . * + ? with \\)"
    )]
    Invalid { shown: String, reason: String },
}

/// The checks that need no compiling: length and counted repetitions.
/// A pattern that does not parse passes here; [`build_matcher`] says why.
pub fn check_pattern(pattern: &str) -> Result<(), PatternError> {
    if pattern.is_empty() {
        return Err(PatternError::Empty);
    }
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(PatternError::TooLong(pattern.len()));
    }
    let Ok(tree) = ast::parse::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(pattern)
    else {
        return Ok(());
    };
    let expanded = cost(&tree, pattern)?.expanded;
    if expanded > MAX_EXPANDED {
        return Err(PatternError::TooLarge(expanded));
    }
    Ok(())
}

/// The worst cost per byte grows with the pattern's written-out size: about
/// 15 ns per character or class, measured on patterns built to defeat the
/// lazy DFA. These budgets (bytes times that size) keep one regex call near
/// 0.1 s (a piece of a buffer) and 2 s (a whole line) at worst.
const PIECE_BUDGET: u64 = 8 << 20;
const LINE_BUDGET: u64 = 128 << 20;
/// The smallest piece and the shortest line limit (for the largest patterns).
const MIN_PIECE_BYTES: u64 = 1024;
const MIN_LINE_BYTES: u64 = 16 * 1024;

/// How much text one regex call may get for a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Budget {
    /// Bytes of a buffer searched in one call (more only for a longer line).
    pub piece: usize,
    /// The longest line searched; a longer one ends the file's search.
    pub line: usize,
}

/// The [`Budget`] for `pattern`: a small pattern gets whole buffers and
/// lines up to `MAX_LINE_BYTES` (ordinary searches cost nothing more), the
/// largest 1 KB pieces and 16 KB lines, so a stop is never far away.
pub(super) fn budget(pattern: &str) -> Budget {
    let expanded = ast::parse::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(pattern)
        .ok()
        .and_then(|tree| cost(&tree, pattern).ok())
        .map_or(MAX_EXPANDED, |c| c.expanded)
        .max(1);
    let bytes = |budget: u64, min: u64, max: u64| {
        usize::try_from((budget / expanded).clamp(min, max)).unwrap_or(usize::MAX)
    };
    Budget {
        piece: bytes(PIECE_BUDGET, MIN_PIECE_BYTES, u64::MAX),
        line: bytes(LINE_BUDGET, MIN_LINE_BYTES, MAX_LINE_BYTES as u64),
    }
}

/// What a (sub)pattern costs: the largest product of nested repetition
/// counts in it, and how many characters and classes it has once every
/// counted repetition is written out (an upper bound on the NFA states
/// alive at once).
#[derive(Clone, Copy)]
struct Cost {
    depth: u64,
    expanded: u64,
}

/// The [`Cost`] of `tree`, or the first repetition over [`MAX_REPEAT`].
fn cost(tree: &Ast, pattern: &str) -> Result<Cost, PatternError> {
    let one = Cost {
        depth: 1,
        expanded: 1,
    };
    match tree {
        Ast::Repetition(rep) => {
            let inner = cost(&rep.ast, pattern)?;
            let count = match &rep.op.kind {
                RepetitionKind::Range(
                    RepetitionRange::Exactly(n)
                    | RepetitionRange::AtLeast(n)
                    | RepetitionRange::Bounded(_, n),
                ) => u64::from(*n).max(1),
                // A loop adds no states.
                RepetitionKind::ZeroOrOne
                | RepetitionKind::ZeroOrMore
                | RepetitionKind::OneOrMore => 1,
            };
            let depth = inner.depth.saturating_mul(count);
            if depth > MAX_REPEAT {
                let text = pattern
                    .get(rep.span.start.offset..rep.span.end.offset)
                    .unwrap_or(pattern);
                return Err(PatternError::TooManyRepeats {
                    shown: quoted(text, 40),
                    count: depth,
                });
            }
            Ok(Cost {
                depth,
                expanded: inner.expanded.saturating_mul(count),
            })
        }
        Ast::Group(group) => cost(&group.ast, pattern),
        Ast::Alternation(alt) => sum(&alt.asts, pattern),
        Ast::Concat(cat) => sum(&cat.asts, pattern),
        Ast::Literal(_)
        | Ast::Dot(_)
        | Ast::ClassUnicode(_)
        | Ast::ClassPerl(_)
        | Ast::ClassBracketed(_) => Ok(one),
        Ast::Empty(_) | Ast::Flags(_) | Ast::Assertion(_) => Ok(Cost {
            depth: 1,
            expanded: 0,
        }),
    }
}

/// Alternatives and sequences: the deepest nesting, the summed size.
fn sum(trees: &[Ast], pattern: &str) -> Result<Cost, PatternError> {
    trees.iter().try_fold(
        Cost {
            depth: 1,
            expanded: 0,
        },
        |acc, t| {
            let c = cost(t, pattern)?;
            Ok(Cost {
                depth: acc.depth.max(c.depth),
                expanded: acc.expanded.saturating_add(c.expanded),
            })
        },
    )
}

/// Checks `pattern` and compiles it within the caps, line by line
/// (`\n` never matches), case-insensitively unless `case_sensitive`.
pub fn build_matcher(pattern: &str, case_sensitive: bool) -> Result<RegexMatcher, PatternError> {
    check_pattern(pattern)?;
    RegexMatcherBuilder::new()
        .case_insensitive(!case_sensitive)
        .line_terminator(Some(b'\n'))
        .nest_limit(NEST_LIMIT)
        .size_limit(NFA_SIZE_LIMIT)
        .dfa_size_limit(DFA_CACHE_LIMIT)
        .build(pattern)
        .map_err(|e| {
            let msg = e.to_string();
            if msg.contains("exceeds size limit") {
                return PatternError::TooComplex;
            }
            let reason = msg
                .lines()
                .find_map(|l| l.trim().strip_prefix("error: "))
                .map_or_else(|| one_line(&msg), str::to_string);
            PatternError::Invalid {
                shown: quoted(pattern, 200),
                reason,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(p: &str) -> PatternError {
        match build_matcher(p, false) {
            Ok(_) => panic!("{p:?} was accepted"),
            Err(e) => e,
        }
    }

    #[test]
    fn ordinary_patterns_pass() {
        for p in [
            r"fn\s+new\(",
            r"\bfunction\s+\w+\s*\(",
            r"[0-9a-f]{40}",
            r"a{1000}",
            r"(ab){10}c{100}",
            r"\w{20}",
            r"x{2,1000}",
            r"(?x) a{3} b",
            r"todo|fixme|xxx",
        ] {
            assert!(build_matcher(p, false).is_ok(), "{p}");
        }
    }

    #[test]
    fn a_large_count_is_refused_before_compiling() {
        let e = refused("a{40000}");
        assert_eq!(
            e,
            PatternError::TooManyRepeats {
                shown: "\"a{40000}\"".to_string(),
                count: 40000
            }
        );
        assert!(matches!(
            refused("x{1,1001}"),
            PatternError::TooManyRepeats { count: 1001, .. }
        ));
        assert!(matches!(
            refused("b{5000,}"),
            PatternError::TooManyRepeats { count: 5000, .. }
        ));
    }

    #[test]
    fn nested_counts_multiply() {
        match refused("x(?:(?:ab){100}c){20}") {
            PatternError::TooManyRepeats { shown, count } => {
                assert_eq!(count, 2000);
                assert_eq!(shown, "\"(?:(?:ab){100}c){20}\"");
            }
            other => panic!("{other:?}"),
        }
        // Siblings do not multiply; loops (* + ?) do not count.
        assert!(build_matcher("a{900}b{900}|c{900}", false).is_ok());
        assert!(build_matcher("(?:a{500})+", false).is_ok());
    }

    #[test]
    fn many_counted_branches_are_refused_by_their_written_out_size() {
        let branches: Vec<String> = (0..11).map(|i| format!("a{{{}}}{i}", 1000 - i)).collect();
        let p = branches.join("|");
        assert_eq!(refused(&p), PatternError::TooLarge(10_957));
        assert!(build_matcher(&branches[..9].join("|"), true).is_ok());
        // Plain alternatives up to the length cap are fine.
        let words: Vec<String> = (0..400).map(|i| format!("word{i:05}")).collect();
        let p = words.join("|");
        assert!(p.len() <= MAX_PATTERN_BYTES);
        assert!(build_matcher(&p, false).is_ok());
    }

    #[test]
    fn budgets_shrink_as_patterns_grow() {
        // Ordinary patterns search whole buffers and lines up to 8 MB.
        let small = budget(r"fn\s+new\(");
        assert!(small.piece > 1 << 20);
        assert_eq!(small.line, MAX_LINE_BYTES);
        assert_eq!(
            budget("a{1000}"),
            Budget {
                piece: 8_388,
                line: 134_217
            }
        );
        assert_eq!(
            budget(&"ab{1000}".repeat(9)),
            Budget {
                piece: 1024,
                line: 16 * 1024
            }
        );
    }

    #[test]
    fn a_long_pattern_is_refused_by_length() {
        let p = "x".repeat(1 << 20);
        assert_eq!(refused(&p), PatternError::TooLong(1 << 20));
        assert!(build_matcher(&"y".repeat(MAX_PATTERN_BYTES), true).is_ok());
    }

    #[test]
    fn a_pattern_too_big_once_compiled_is_refused() {
        assert_eq!(refused(r"\w{500}"), PatternError::TooComplex);
        assert!(
            refused(r"\w{500}")
                .to_string()
                .starts_with("pattern is too complex: it compiles to more than 2 MB")
        );
    }

    #[test]
    fn invalid_patterns_keep_the_regex_reason() {
        let e = refused("fn (").to_string();
        assert!(
            e.starts_with("invalid regex \"fn (\": unclosed group"),
            "{e}"
        );
        assert_eq!(refused(""), PatternError::Empty);
    }
}
