//! Searching one opened file: a reader, a matcher and a sink that all give
//! up as soon as the cancel flag is raised, so a stop ends a long file
//! within one piece of it (at most 8 KB for a large pattern, or one line of
//! at most `MAX_LINE_BYTES`), not at its end.

use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use super::chunked::Chunked;
use super::{CUT_MARKER, GrepLine, MAX_LINE_CHARS, OutputMode};

/// How a file's search ended.
pub(super) enum Searched {
    /// To the end (or to the first match in files-only mode).
    Done,
    /// The cancel flag was raised.
    Cancelled,
    /// An error part way; what was found before it stands.
    Failed(io::Error),
}

/// Searches `file` into `sink`.
pub(super) fn search_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    piece: usize,
    file: File,
    sink: &mut Collect<'_>,
) -> Searched {
    let cancel = sink.cancel;
    let reader = CancelRead {
        inner: file,
        cancel,
    };
    let matcher = Chunked {
        inner: matcher,
        cancel,
        piece,
    };
    match searcher.search_reader(&matcher, reader, sink) {
        Ok(()) => Searched::Done,
        Err(_) if is_set(cancel) => Searched::Cancelled,
        Err(e) => Searched::Failed(e),
    }
}

pub(super) fn is_set(flag: Option<&AtomicBool>) -> bool {
    flag.is_some_and(|c| c.load(Ordering::Relaxed))
}

fn stopped() -> io::Error {
    io::Error::other("search stopped")
}

/// Fails every read once the flag is up: the searcher reads a buffer at a
/// time, so this is where a long file is left.
struct CancelRead<'a> {
    inner: File,
    cancel: Option<&'a AtomicBool>,
}

impl Read for CancelRead<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if is_set(self.cancel) {
            return Err(stopped());
        }
        self.inner.read(buf)
    }
}

/// The per-file sink: counts matching lines, keeps lines in content mode,
/// stops at the first match in files-only mode, and at the flag.
pub(super) struct Collect<'a> {
    pub mode: OutputMode,
    pub count: u64,
    pub lines: Vec<GrepLine>,
    pub cancel: Option<&'a AtomicBool>,
}

impl<'a> Collect<'a> {
    pub(super) fn new(mode: OutputMode, cancel: Option<&'a AtomicBool>) -> Self {
        Self {
            mode,
            count: 0,
            lines: Vec::new(),
            cancel,
        }
    }

    fn keep(&mut self, number: Option<u64>, bytes: &[u8], is_match: bool) {
        let mut end = bytes.len();
        if bytes.last() == Some(&b'\n') {
            end -= 1;
        }
        if end > 0 && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        let text = String::from_utf8_lossy(&bytes[..end]);
        let text = match text.char_indices().nth(MAX_LINE_CHARS) {
            Some((i, _)) => format!("{}{CUT_MARKER}", &text[..i]),
            None => text.into_owned(),
        };
        self.lines.push(GrepLine {
            number: number.unwrap_or(0),
            text,
            is_match,
        });
    }
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if is_set(self.cancel) {
            return Err(stopped());
        }
        self.count += 1;
        match self.mode {
            OutputMode::Content => {
                self.keep(mat.line_number(), mat.bytes(), true);
                Ok(true)
            }
            OutputMode::FilesOnly => Ok(false),
            OutputMode::Count => Ok(true),
        }
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        if is_set(self.cancel) {
            return Err(stopped());
        }
        if self.mode == OutputMode::Content {
            self.keep(context.line_number(), context.bytes(), false);
        }
        Ok(true)
    }
}
