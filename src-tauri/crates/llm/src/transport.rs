//! The HTTP plumbing shared by the real clients: send, classify failures, retry with backoff
//! before the first event, frame the body and hand frames to a provider-specific decoder.
//!
//! The stream is a pull-based state machine owning the `reqwest::Response`, so dropping it
//! closes the connection; no task is spawned. Decoders never see HTTP, and this module never
//! interprets a provider's JSON beyond error bodies.

use std::collections::VecDeque;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use crate::error::LlmError;
use crate::event::StreamEvent;
use crate::framing::{Frame, Framer, Framing};
use crate::provider::EventStream;
use crate::retry::RetryPolicy;

/// Turns a provider's frames into events. One decoder per attempt.
pub(crate) trait Decoder: Send + 'static {
    /// One frame of the body.
    fn frame(&mut self, frame: Frame) -> Result<Vec<StreamEvent>, LlmError>;
    /// The body ended before [`Decoder::is_done`]: finish leniently or report a broken stream.
    fn eof(&mut self) -> Result<Vec<StreamEvent>, LlmError>;
    /// The provider signalled the end (`[DONE]`, `message_stop`, `"done": true`).
    fn is_done(&self) -> bool;
}

/// Everything needed to (re)send one request.
pub(crate) struct HttpCall {
    pub provider: String,
    pub client: reqwest::Client,
    pub url: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub policy: RetryPolicy,
    pub framing: Framing,
}

/// The connect timeout every client uses; streams themselves have only a per-read timeout.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest silence tolerated between two body chunks (thinking models can pause a while).
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(300);

/// Builds the shared HTTP client. Refuses `https` base URLs when no TLS feature is compiled in.
pub(crate) fn http_client(base_url: &str) -> Result<reqwest::Client, LlmError> {
    let tls = cfg!(feature = "native-tls");
    if !tls
        && base_url
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("https:")
    {
        return Err(LlmError::Config(format!(
            "{base_url}: https needs skald-llm built with the `native-tls` feature"
        )));
    }
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .build()
        .map_err(|e| LlmError::Config(error_chain(&e)))
}

/// Parses `name: value` into a header pair.
pub(crate) fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), LlmError> {
    let n = HeaderName::from_bytes(name.as_bytes())
        .map_err(|e| LlmError::Config(format!("header name {name:?}: {e}")))?;
    let v = HeaderValue::from_str(value)
        .map_err(|e| LlmError::Config(format!("header {name} value: {e}")))?;
    Ok((n, v))
}

/// Joins a base URL and a path without doubling or dropping the slash.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim().trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// The error and its sources on one line (reqwest's top-level message alone hides the cause).
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        let s_msg = s.to_string();
        if !msg.contains(&s_msg) {
            msg.push_str(": ");
            msg.push_str(&s_msg);
        }
        src = s.source();
    }
    msg
}

/// A stream that yields one error and ends (for failures before any request is sent).
pub(crate) fn error_stream(e: LlmError) -> EventStream<'static> {
    Box::pin(futures_util::stream::once(async move { Err(e) }))
}

/// An `f32` as the `f64` a person would write (`0.2`, not `0.20000000298023224`).
pub(crate) fn json_f32(x: f32) -> serde_json::Value {
    let v: f64 = x.to_string().parse().unwrap_or(f64::from(x));
    serde_json::json!(v)
}

/// Starts the event stream for `call`, decoding with a fresh decoder per attempt.
pub(crate) fn event_stream<D, F>(call: HttpCall, new_decoder: F) -> EventStream<'static>
where
    D: Decoder,
    F: Fn() -> D + Send + 'static,
{
    let state = State {
        call,
        new_decoder,
        phase: Phase::Connect,
        queue: VecDeque::new(),
        pending_error: None,
        yielded_any: false,
        retries: 0,
        wait: None,
        frames: 0,
        body_bytes: 0,
    };
    Box::pin(futures_util::stream::unfold(state, |mut st| async move {
        let item = st.next_item().await?;
        Some((item, st))
    }))
}

enum Phase<D> {
    Connect,
    Streaming {
        response: Box<reqwest::Response>,
        framer: Framer,
        decoder: D,
    },
    Finished,
}

struct State<D, F> {
    call: HttpCall,
    new_decoder: F,
    phase: Phase<D>,
    queue: VecDeque<StreamEvent>,
    pending_error: Option<LlmError>,
    yielded_any: bool,
    retries: u32,
    /// The backoff before the next attempt, slept once its `Retrying` event is out.
    wait: Option<Duration>,
    /// Frames and bytes of the current attempt's body (a body with bytes but not one
    /// frame was never an event stream).
    frames: usize,
    body_bytes: usize,
}

impl<D, F> State<D, F>
where
    D: Decoder,
    F: Fn() -> D + Send + 'static,
{
    async fn next_item(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                // A retry notice is not part of the response: retrying stays allowed.
                if !matches!(event, StreamEvent::Retrying { .. }) {
                    self.yielded_any = true;
                }
                return Some(Ok(event));
            }
            if let Some(wait) = self.wait.take() {
                tokio::time::sleep(wait).await;
            }
            match std::mem::replace(&mut self.phase, Phase::Finished) {
                Phase::Finished => return self.pending_error.take().map(Err),
                Phase::Connect => match connect(&self.call).await {
                    Ok(response) => {
                        self.frames = 0;
                        self.body_bytes = 0;
                        self.phase = Phase::Streaming {
                            response: Box::new(response),
                            framer: Framer::new(self.call.framing),
                            decoder: (self.new_decoder)(),
                        }
                    }
                    Err(e) => self.retry_or_fail(e).await,
                },
                Phase::Streaming {
                    mut response,
                    mut framer,
                    mut decoder,
                } => {
                    let (result, ended) = match response.chunk().await {
                        Ok(Some(bytes)) => {
                            self.body_bytes += bytes.len();
                            let frames = framer.push(&bytes);
                            (self.decode(&mut decoder, frames), false)
                        }
                        Ok(None) => {
                            let frames = framer.finish();
                            let mut r = self.decode(&mut decoder, frames);
                            if r.is_ok()
                                && self.call.framing == Framing::Sse
                                && self.frames == 0
                                && self.body_bytes > 0
                            {
                                r = Err(LlmError::NotEventStream {
                                    provider: self.call.provider.clone(),
                                    content_type: response
                                        .headers()
                                        .get(CONTENT_TYPE)
                                        .and_then(|v| v.to_str().ok())
                                        .unwrap_or("no content type")
                                        .to_string(),
                                    url: self.call.url.clone(),
                                });
                            } else if r.is_ok() && !decoder.is_done() {
                                r = decoder.eof().map(|evs| self.queue.extend(evs));
                            }
                            (r, true)
                        }
                        Err(e) => (
                            Err(LlmError::StreamBroken {
                                provider: self.call.provider.clone(),
                                message: error_chain(&e),
                            }),
                            true,
                        ),
                    };
                    match result {
                        Err(e) => {
                            drop(response);
                            self.retry_or_fail(e).await;
                        }
                        Ok(()) if ended || decoder.is_done() => {}
                        Ok(()) => {
                            self.phase = Phase::Streaming {
                                response,
                                framer,
                                decoder,
                            }
                        }
                    }
                }
            }
        }
    }

    /// Decodes frames into the queue; stops at the provider's end marker.
    fn decode(&mut self, decoder: &mut D, frames: Vec<Frame>) -> Result<(), LlmError> {
        for frame in frames {
            if decoder.is_done() {
                break;
            }
            self.frames += 1;
            let events = decoder.frame(frame)?;
            self.queue.extend(events);
        }
        Ok(())
    }

    /// Schedules another attempt when allowed (retriable, nothing yielded yet, budget left),
    /// otherwise records the error to be yielded after whatever is already queued.
    async fn retry_or_fail(&mut self, e: LlmError) {
        let policy = self.call.policy;
        if e.is_retriable() && !self.yielded_any && self.retries < policy.max_retries {
            let delay = policy.delay(self.retries, e.retry_after());
            self.retries += 1;
            tracing::warn!(
                provider = %self.call.provider,
                retry = self.retries,
                delay_ms = delay.as_millis() as u64,
                "retrying after: {e}"
            );
            self.queue.clear();
            // Announced first, so the person sees the countdown while the client waits.
            self.queue.push_back(StreamEvent::Retrying {
                attempt: self.retries + 1,
                max_attempts: policy.max_retries.saturating_add(1),
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                reason: e.reason().to_string(),
                detail: e.to_string(),
            });
            self.wait = Some(delay);
            self.phase = Phase::Connect;
        } else {
            self.pending_error = Some(e);
            self.phase = Phase::Finished;
        }
    }
}

/// Sends the request once; a non-success status becomes an [`LlmError::Http`].
async fn connect(call: &HttpCall) -> Result<reqwest::Response, LlmError> {
    let sent = call
        .client
        .post(&call.url)
        .headers(call.headers.clone())
        .header(CONTENT_TYPE, "application/json")
        .body(call.body.clone())
        .send()
        .await;
    let response = match sent {
        Ok(r) => r,
        Err(e) if e.is_builder() => return Err(LlmError::Config(error_chain(&e))),
        Err(e) => {
            return Err(LlmError::Network {
                provider: call.provider.clone(),
                message: error_chain(&e),
            });
        }
    };
    if response.status().is_success() {
        return match not_event_stream(call, &response) {
            Some(e) => Err(e),
            None => Ok(response),
        };
    }
    Err(http_error(&call.provider, response).await)
}

/// A success whose body cannot be the stream asked for: a web page or a JSON document
/// where server-sent events were expected (a base URL pointing at a website, or at a
/// server that ignores `stream: true`). Unknown or absent types are given the benefit of
/// the doubt: the decoder reports what it cannot read.
fn not_event_stream(call: &HttpCall, response: &reqwest::Response) -> Option<LlmError> {
    if call.framing != Framing::Sse {
        return None;
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase())?;
    let essence = content_type.split(';').next().unwrap_or("").trim();
    let wrong = essence == "text/html"
        || essence == "application/xhtml+xml"
        || essence == "application/json"
        || essence.ends_with("/xml");
    wrong.then(|| LlmError::NotEventStream {
        provider: call.provider.clone(),
        content_type,
        url: call.url.clone(),
    })
}

/// Builds the error for a non-success response: status, `Retry-After`, the provider's text.
pub(crate) async fn http_error(provider: &str, response: reqwest::Response) -> LlmError {
    let status = response.status();
    let retry_after = retry_after(response.headers());
    let body = response.text().await.unwrap_or_default();
    let detail = error_text(&body);
    let message = match (status.canonical_reason(), detail.is_empty()) {
        (Some(reason), true) => reason.to_owned(),
        (Some(reason), false) => format!("{reason}: {detail}"),
        (None, _) => detail,
    };
    LlmError::Http {
        provider: provider.to_owned(),
        status: status.as_u16(),
        message,
        retry_after,
    }
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds. HTTP-date values are ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|n| n.is_finite() && *n >= 0.0)
    };
    if let Some(ms) = get("retry-after-ms") {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    get("retry-after").map(Duration::from_secs_f64)
}

/// The human part of an error body: `error.message` (OpenAI, Anthropic), `error` as a string
/// (Ollama), `message`, or the raw body trimmed to a readable length.
pub(crate) fn error_text(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let candidates = [
            v.pointer("/error/message"),
            v.get("error").filter(|e| e.is_string()),
            v.get("message"),
            v.get("detail"),
        ];
        if let Some(s) = candidates.into_iter().flatten().find_map(|c| c.as_str()) {
            return s.to_owned();
        }
    }
    let trimmed = body.trim();
    match trimmed.char_indices().nth(500) {
        Some((i, _)) => format!("{}…", &trimmed[..i]),
        None => trimmed.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_reads_each_providers_shape() {
        assert_eq!(
            error_text(
                r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#
            ),
            "Incorrect API key provided"
        );
        assert_eq!(
            error_text(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded"
        );
        assert_eq!(
            error_text(r#"{"error":"model 'x' not found"}"#),
            "model 'x' not found"
        );
        assert_eq!(error_text("  plain text \n"), "plain text");
    }

    #[test]
    fn urls_join_cleanly() {
        assert_eq!(
            join_url("http://h/v1/", "/chat/completions"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(join_url("http://h", "api/chat"), "http://h/api/chat");
    }

    #[test]
    fn retry_after_headers() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut d = HeaderMap::new();
        d.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&d), None);
    }
}
