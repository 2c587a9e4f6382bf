//! One scripted reply: status, headers and a body made of byte parts and
//! pauses, sent in small pieces, ending whole, cut or held open.

use std::time::Duration;

/// How a streamed body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum End {
    /// The terminating zero-length chunk.
    Complete,
    /// The connection closes without terminating the body (a broken stream).
    Cut,
    /// The body never ends: the connection stays open until the client
    /// leaves, which [`crate::MockServer::disconnects`] counts.
    Hang,
}

/// A piece of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Bytes(Vec<u8>),
    /// A pause before what follows (a slow model; a stop test's window).
    Pause(Duration),
}

/// Bodies are sent in pieces this long unless a reply says otherwise, so
/// every client test reads events split across network reads.
pub const DEFAULT_PIECE: usize = 17;

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) parts: Vec<Part>,
    pub(crate) piece: usize,
    pub(crate) end: End,
    pub(crate) delay: Duration,
}

impl Reply {
    /// A 200 with `content_type` and nothing in its body yet.
    pub fn new(content_type: impl Into<String>) -> Self {
        Reply {
            status: 200,
            content_type: content_type.into(),
            headers: Vec::new(),
            parts: Vec::new(),
            piece: DEFAULT_PIECE,
            end: End::Complete,
            delay: Duration::ZERO,
        }
    }

    /// A 200 streamed body.
    pub fn stream(content_type: impl Into<String>, body: impl Into<String>) -> Self {
        Self::new(content_type).bytes(body.into())
    }

    /// A 200 `text/event-stream` body (see [`crate::openai`], [`crate::anthropic`]).
    pub fn sse(body: impl Into<String>) -> Self {
        Self::stream("text/event-stream", body)
    }

    /// A 200 `application/x-ndjson` body (see [`crate::ollama`]).
    pub fn ndjson(body: impl Into<String>) -> Self {
        Self::stream("application/x-ndjson", body)
    }

    /// A 200 JSON document.
    pub fn json(body: &serde_json::Value) -> Self {
        Self::stream("application/json", body.to_string())
    }

    /// A JSON error reply with `status`.
    pub fn error(status: u16, body: serde_json::Value) -> Self {
        Self::json(&body).status(status)
    }

    pub fn status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Appends bytes to the body.
    pub fn bytes(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.parts.push(Part::Bytes(bytes.into()));
        self
    }

    /// Appends a pause to the body: what follows is sent `pause` later.
    pub fn pause(mut self, pause: Duration) -> Self {
        self.parts.push(Part::Pause(pause));
        self
    }

    /// Waits `delay` before sending the status line.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn end(mut self, end: End) -> Self {
        self.end = end;
        self
    }

    /// Sends the body in pieces of at most `piece` bytes, one network write each.
    pub fn piece(mut self, piece: usize) -> Self {
        self.piece = piece.max(1);
        self
    }

    /// Sends each part in one piece.
    pub fn whole(self) -> Self {
        self.piece(usize::MAX)
    }

    /// The body's bytes, pauses left out.
    pub fn body_bytes(&self) -> Vec<u8> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Bytes(b) => Some(b.as_slice()),
                Part::Pause(_) => None,
            })
            .flatten()
            .copied()
            .collect()
    }

    pub fn status_code(&self) -> u16 {
        self.status
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts
    }
}

/// A string is an SSE body: what the OpenAI helpers build.
impl From<String> for Reply {
    fn from(sse: String) -> Self {
        Reply::sse(sse)
    }
}

impl From<&str> for Reply {
    fn from(sse: &str) -> Self {
        Reply::sse(sse)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn body_bytes_skip_pauses_and_keep_order() {
        let r = Reply::sse("a")
            .pause(Duration::from_millis(5))
            .bytes("b")
            .piece(0);
        assert_eq!(r.body_bytes(), b"ab");
        assert_eq!(r.piece, 1, "a zero piece would never send anything");
        assert_eq!(r.parts().len(), 3);
    }

    #[test]
    fn errors_are_json_with_their_status() {
        let r = Reply::error(429, serde_json::json!({"error": {"message": "slow down"}}));
        assert_eq!(r.status_code(), 429);
        assert_eq!(r.content_type, "application/json");
        let body: serde_json::Value = serde_json::from_slice(&r.body_bytes()).unwrap();
        assert_eq!(body["error"]["message"], "slow down");
    }
}
