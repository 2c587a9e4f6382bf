//! Test support (feature `test-support`): [`MockOpenAi`], a tiny
//! OpenAI-compatible HTTP server on 127.0.0.1 that answers each
//! `POST …/chat/completions` with the next scripted SSE body and records the
//! request. Plain std threads, so a test can point a child process
//! (`OPENAI_BASE_URL`) at it. Never part of a product build.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

#[derive(Default)]
struct Shared {
    replies: Mutex<VecDeque<String>>,
    /// Replies for requests whose body contains the first string.
    routed: Mutex<Vec<(String, String)>>,
    requests: Mutex<Vec<Value>>,
    stop: AtomicBool,
}

/// What the mock's `GET /v1/models` lists.
pub const MOCK_MODELS: [&str; 2] = ["mock-small", "mock-large"];

/// The mock server; stops accepting when dropped.
pub struct MockOpenAi {
    base_url: String,
    shared: Arc<Shared>,
}

impl MockOpenAi {
    /// Starts serving `replies` (SSE bodies, one per request, in order).
    /// Once they run out, requests get a 500.
    pub fn start(replies: impl IntoIterator<Item = String>) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let base_url = format!("http://{}/v1", listener.local_addr()?);
        let shared = Arc::new(Shared::default());
        lock(&shared.replies).extend(replies);
        let s = shared.clone();
        std::thread::Builder::new()
            .name("mock-openai".into())
            .spawn(move || accept_loop(&listener, &s))?;
        Ok(Self { base_url, shared })
    }

    /// The base URL for `OPENAI_BASE_URL` (ends in `/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Adds a reply to the script.
    pub fn push(&self, sse_body: String) {
        lock(&self.shared.replies).push_back(sse_body);
    }

    /// Adds a reply for the next request whose body contains `needle` (an
    /// agent's prompt), whatever its place among concurrent requests.
    pub fn push_for(&self, needle: &str, sse_body: String) {
        lock(&self.shared.routed).push((needle.to_string(), sse_body));
    }

    /// Every request body received so far.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.shared.requests).clone()
    }
}

impl Drop for MockOpenAi {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let s = shared.clone();
                let _ = std::thread::Builder::new()
                    .name("mock-openai-conn".into())
                    .spawn(move || {
                        let _ = serve(stream, &s);
                    });
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0usize;
    let mut line = String::new();
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((name, value)) = l.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    // `GET /v1/models`: a fixed list, outside the script (Settings and
    // `skald models` ask for it; it is not a turn).
    if request_line.starts_with("GET ") && request_line.contains("/models") {
        let list = json!({"object": "list", "data": MOCK_MODELS.iter().map(|id| json!({"id": id, "object": "model", "owned_by": "mock"})).collect::<Vec<_>>()}).to_string();
        let mut out = stream;
        write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{list}",
            list.len()
        )?;
        return out.flush();
    }
    lock(&shared.requests).push(serde_json::from_slice(&body).unwrap_or(Value::Null));
    let text = String::from_utf8_lossy(&body);
    let routed = {
        let mut routed = lock(&shared.routed);
        routed
            .iter()
            .position(|(needle, _)| text.contains(needle.as_str()))
            .map(|i| routed.remove(i).1)
    };
    let reply = routed.or_else(|| lock(&shared.replies).pop_front());
    let mut out = stream;
    match reply {
        // A whole HTTP response scripted as such ([`rate_limited`]).
        Some(raw) if raw.starts_with("HTTP/1.1 ") => write!(out, "{raw}")?,
        Some(sse) => write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{sse}",
            sse.len()
        )?,
        None => {
            let body = json!({"error": {"message": "mock: no scripted reply left", "type": "invalid_request_error"}}).to_string();
            write!(
                out,
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )?;
        }
    }
    out.flush()
}

/// A scripted reply that is a 429 asking to wait `retry_after_secs` (the
/// client retries: script the next reply after it).
pub fn rate_limited(retry_after_secs: u32) -> String {
    let body = json!({"error": {"message": "Rate limit reached for requests", "type": "requests"}})
        .to_string();
    format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: {retry_after_secs}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn frame(chunk: &Value) -> String {
    format!("data: {chunk}\n\n")
}

/// An SSE answer with `text` (in a few pieces), usage, `[DONE]`.
pub fn sse_text(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(8) {
        let s: String = piece.iter().collect();
        out.push_str(&frame(
            &json!({"choices": [{"index": 0, "delta": {"content": s}}]}),
        ));
    }
    out.push_str(&frame(
        &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ));
    out.push_str(&frame(
        &json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
    ));
    out.push_str("data: [DONE]\n\n");
    out
}

/// An SSE answer calling one tool, its arguments split across chunks.
pub fn sse_tool_call(id: &str, name: &str, arguments: &str) -> String {
    let mut out = frame(
        &json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}}]}),
    );
    let chars: Vec<char> = arguments.chars().collect();
    for piece in chars.chunks(5) {
        let s: String = piece.iter().collect();
        out.push_str(&frame(
            &json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": s}}
            ]}}]}),
        ));
    }
    out.push_str(&frame(
        &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ));
    out.push_str("data: [DONE]\n\n");
    out
}
