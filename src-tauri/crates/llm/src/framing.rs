//! Byte-stream framing: Server-Sent Events and newline-delimited JSON.
//!
//! Turns arbitrary chunks of bytes (split anywhere, even inside a UTF-8 character or between
//! `\r` and `\n`) into whole frames. It knows nothing about what the frames mean.

/// One frame: an SSE event (its `event:` name and joined `data:` lines) or one NDJSON line
/// (no event name, the line as data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub event: Option<String>,
    pub data: String,
}

/// Which framing a response uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `text/event-stream`.
    Sse,
    /// One JSON document per line.
    Ndjson,
}

/// Incremental framer over a byte stream.
#[derive(Debug)]
pub(crate) struct Framer {
    framing: Framing,
    buf: Vec<u8>,
    /// The previous chunk ended in `\r`; a leading `\n` in the next one belongs to it.
    pending_cr: bool,
    event: Option<String>,
    data: Vec<String>,
}

impl Framer {
    pub(crate) fn new(framing: Framing) -> Self {
        Framer {
            framing,
            buf: Vec::new(),
            pending_cr: false,
            event: None,
            data: Vec::new(),
        }
    }

    /// Feeds bytes; returns the frames they complete.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) -> Vec<Frame> {
        if self.pending_cr {
            self.pending_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < self.buf.len() {
            let b = self.buf[i];
            if b == b'\n' || b == b'\r' {
                let line = String::from_utf8_lossy(&self.buf[start..i]).into_owned();
                if b == b'\r' {
                    if i + 1 < self.buf.len() {
                        if self.buf[i + 1] == b'\n' {
                            i += 1;
                        }
                    } else {
                        self.pending_cr = true;
                    }
                }
                i += 1;
                start = i;
                if let Some(frame) = self.line(&line) {
                    out.push(frame);
                }
            } else {
                i += 1;
            }
        }
        self.buf.drain(..start);
        out
    }

    /// The stream ended: flushes a last unterminated line and any event still being built.
    pub(crate) fn finish(&mut self) -> Vec<Frame> {
        let mut out = Vec::new();
        if !self.buf.is_empty() {
            let line = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf.clear();
            if let Some(frame) = self.line(&line) {
                out.push(frame);
            }
        }
        if let Some(frame) = self.dispatch() {
            out.push(frame);
        }
        out
    }

    fn line(&mut self, line: &str) -> Option<Frame> {
        match self.framing {
            Framing::Ndjson => {
                let line = line.trim();
                (!line.is_empty()).then(|| Frame {
                    event: None,
                    data: line.to_owned(),
                })
            }
            Framing::Sse => {
                if line.is_empty() {
                    return self.dispatch();
                }
                if line.starts_with(':') {
                    return None;
                }
                let (field, value) = match line.split_once(':') {
                    Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                    None => (line, ""),
                };
                match field {
                    "data" => self.data.push(value.to_owned()),
                    "event" => self.event = Some(value.to_owned()),
                    _ => {}
                }
                None
            }
        }
    }

    fn dispatch(&mut self) -> Option<Frame> {
        let event = self.event.take();
        if self.data.is_empty() {
            return None;
        }
        let data = std::mem::take(&mut self.data).join("\n");
        Some(Frame { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse(chunks: &[&[u8]]) -> Vec<Frame> {
        let mut f = Framer::new(Framing::Sse);
        let mut out: Vec<Frame> = chunks.iter().flat_map(|c| f.push(c)).collect();
        out.extend(f.finish());
        out
    }

    fn frame(event: Option<&str>, data: &str) -> Frame {
        Frame {
            event: event.map(String::from),
            data: data.into(),
        }
    }

    #[test]
    fn sse_events_with_crlf_comments_and_multiline_data() {
        let got = sse(&[
            b": keep-alive\r\n\r\nevent: ping\r\ndata: {}\r\n\r\n",
            b"data: line one\ndata:line two\n\n",
        ]);
        assert_eq!(
            got,
            vec![frame(Some("ping"), "{}"), frame(None, "line one\nline two")]
        );
    }

    #[test]
    fn sse_split_anywhere_including_between_cr_and_lf_and_inside_utf8() {
        let whole = "event: a\r\ndata: h\u{e9}llo\r\n\r\ndata: [DONE]\r\n\r\n".as_bytes();
        for cut in 0..whole.len() {
            let got = sse(&[&whole[..cut], &whole[cut..]]);
            assert_eq!(
                got,
                vec![frame(Some("a"), "h\u{e9}llo"), frame(None, "[DONE]")],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn sse_event_without_trailing_blank_line_is_flushed_at_end() {
        assert_eq!(sse(&[b"data: x"]), vec![frame(None, "x")]);
    }

    #[test]
    fn ndjson_lines() {
        let mut f = Framer::new(Framing::Ndjson);
        let mut got = f.push(b"{\"a\":1}\n\n{\"b\"");
        got.extend(f.push(b":2}\r\n{\"c\":3}"));
        got.extend(f.finish());
        assert_eq!(
            got,
            vec![
                frame(None, "{\"a\":1}"),
                frame(None, "{\"b\":2}"),
                frame(None, "{\"c\":3}")
            ]
        );
    }
}
