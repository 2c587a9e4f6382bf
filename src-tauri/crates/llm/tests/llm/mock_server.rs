//! A tiny HTTP/1.1 mock server on 127.0.0.1:0 for provider tests.
//!
//! It replays scripted replies (one per connection, in order), streams bodies with chunked
//! transfer-encoding in small pieces, can cut a body mid-way or hang until the client leaves,
//! and records every request (method, path, headers, JSON body) for assertions.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How a streamed body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The terminating zero-length chunk, then close.
    Complete,
    /// Close the socket without terminating the body.
    Cut,
    /// Keep the connection open until the client closes it.
    Hang,
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    content_type: &'static str,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    piece: usize,
    end: End,
}

impl Reply {
    /// A 200 streamed body sent in `piece`-byte chunks.
    pub fn stream(content_type: &'static str, body: impl Into<String>) -> Self {
        Reply {
            status: 200,
            content_type,
            headers: Vec::new(),
            body: body.into().into_bytes(),
            piece: 17,
            end: End::Complete,
        }
    }

    pub fn sse(body: impl Into<String>) -> Self {
        Self::stream("text/event-stream", body)
    }

    pub fn ndjson(body: impl Into<String>) -> Self {
        Self::stream("application/x-ndjson", body)
    }

    /// A JSON error reply.
    pub fn error(status: u16, body: serde_json::Value) -> Self {
        Reply {
            status,
            ..Self::stream("application/json", body.to_string())
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn end(mut self, end: End) -> Self {
        self.end = end;
        self
    }

    pub fn piece(mut self, piece: usize) -> Self {
        self.piece = piece.max(1);
        self
    }
}

pub struct MockServer {
    pub url: String,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    disconnects: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockServer {
    pub async fn start(replies: impl IntoIterator<Item = Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let disconnects = Arc::new(AtomicUsize::new(0));
        let replies = Arc::new(Mutex::new(replies.into_iter().collect::<VecDeque<_>>()));
        let (req_log, disc) = (requests.clone(), disconnects.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    return;
                };
                let (req_log, disc, replies) = (req_log.clone(), disc.clone(), replies.clone());
                tokio::spawn(async move {
                    serve(sock, req_log, disc, replies).await;
                });
            }
        });
        MockServer {
            url,
            requests,
            disconnects,
            task,
        }
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().unwrap().clone()
    }

    /// How many `End::Hang` replies saw the client go away.
    pub fn disconnects(&self) -> usize {
        self.disconnects.load(Ordering::SeqCst)
    }
}

async fn serve(
    mut sock: TcpStream,
    log: Arc<Mutex<Vec<RecordedRequest>>>,
    disconnects: Arc<AtomicUsize>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
) {
    let Some(req) = read_request(&mut sock).await else {
        return;
    };
    log.lock().unwrap().push(req);
    let reply = replies.lock().unwrap().pop_front().unwrap_or_else(|| {
        Reply::error(
            500,
            serde_json::json!({"error": {"message": "no scripted reply"}}),
        )
    });
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n",
        reply.status, reply.content_type
    );
    for (n, v) in &reply.headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    if sock.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for piece in reply.body.chunks(reply.piece) {
        let mut frame = format!("{:x}\r\n", piece.len()).into_bytes();
        frame.extend_from_slice(piece);
        frame.extend_from_slice(b"\r\n");
        if sock.write_all(&frame).await.is_err() || sock.flush().await.is_err() {
            return;
        }
    }
    match reply.end {
        End::Complete => {
            let _ = sock.write_all(b"0\r\n\r\n").await;
            let _ = sock.shutdown().await;
        }
        End::Cut => {
            let _ = sock.shutdown().await;
        }
        End::Hang => {
            let mut buf = [0u8; 64];
            loop {
                match sock.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            disconnects.fetch_add(1, Ordering::SeqCst);
        }
    }
}

async fn read_request(sock: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let header_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut start = lines.next()?.split(' ');
    let method = start.next()?.to_owned();
    let path = start.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[header_end + 4..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    let body = if body.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&body).unwrap_or_else(|_| {
            serde_json::Value::String(String::from_utf8_lossy(&body).into_owned())
        })
    };
    Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    })
}

/// `data: <json>\n\n`
pub fn sse_data(v: &serde_json::Value) -> String {
    format!("data: {v}\n\n")
}

/// `event: <name>\ndata: <json>\n\n` (Anthropic style, `\r\n` to exercise CRLF handling).
pub fn sse_event(name: &str, v: &serde_json::Value) -> String {
    format!("event: {name}\r\ndata: {v}\r\n\r\n")
}

/// Drains a provider stream: the events before the first error, and that error.
pub async fn collect(
    stream: skald_llm::EventStream<'_>,
) -> (Vec<skald_llm::StreamEvent>, Option<skald_llm::LlmError>) {
    use futures_util::StreamExt;
    let mut stream = stream;
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}
