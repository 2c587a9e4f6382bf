//! The server: hyper on a thread of its own with a current-thread runtime;
//! requests are recorded, then answered from the model lists, the control
//! endpoints, the routes or the script ([`crate::send`] sends the reply).

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::fs::File;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_body_util::BodyExt;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

use crate::reply::Reply;
use crate::route::{self, Match, Route};
use crate::send::ChannelBody;

/// What `GET …/models` lists unless told otherwise.
pub const MOCK_MODELS: [&str; 2] = ["mock-small", "mock-large"];

/// How long held requests wait for the rest ([`MockBuilder::hold_until`]):
/// a client that never asks must not hang a test.
const HOLD_LIMIT: Duration = Duration::from_secs(60);

/// One request as the server saw it.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedRequest {
    pub method: String,
    /// With the query string.
    pub path: String,
    /// Lower-cased names, in the order received.
    pub headers: Vec<(String, String)>,
    /// The JSON body; a body that is not JSON as a string; none as null.
    pub body: Value,
    /// When it arrived, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// The local process that sent it, when looked up ([`MockBuilder::peer_pids`]).
    pub pid: Option<u32>,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Answers from the request instead of the queue.
pub type Responder = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

/// How to build a [`MockServer`].
pub struct MockBuilder {
    replies: Vec<Reply>,
    routes: Vec<Route>,
    models: Option<Vec<String>>,
    windows: HashMap<String, u64>,
    responder: Option<Responder>,
    exhausted: Option<Reply>,
    hold: usize,
    peer_pids: bool,
    record_file: Option<PathBuf>,
    port: u16,
}

impl Default for MockBuilder {
    fn default() -> Self {
        MockBuilder {
            replies: Vec::new(),
            routes: Vec::new(),
            models: Some(MOCK_MODELS.iter().map(|m| (*m).to_owned()).collect()),
            windows: HashMap::new(),
            responder: None,
            exhausted: None,
            hold: 0,
            peer_pids: false,
            record_file: None,
            port: 0,
        }
    }
}

impl MockBuilder {
    /// Adds replies to the script, in order.
    pub fn replies<R: Into<Reply>>(mut self, replies: impl IntoIterator<Item = R>) -> Self {
        self.replies.extend(replies.into_iter().map(Into::into));
        self
    }

    /// Replies for the requests `when` takes, in order, whatever their place
    /// among other requests ([`crate::route`]); before the queue.
    pub fn route<R: Into<Reply>>(
        mut self,
        when: Match,
        replies: impl IntoIterator<Item = R>,
    ) -> Self {
        route::add(&mut self.routes, when, replies.into_iter().map(Into::into));
        self
    }

    /// What model lists name (`GET …/models`, `GET /api/tags`).
    pub fn models<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.models = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Says `model` has a context window of `tokens`: its entry in
    /// `GET …/models` carries `context_length` (as OpenRouter's and LM
    /// Studio's do) and Ollama's `POST /api/show` answers it in
    /// `model_info` as `mock.context_length`. A model not named here has
    /// no window in either.
    pub fn context_window(mut self, model: impl Into<String>, tokens: u64) -> Self {
        self.windows.insert(model.into(), tokens);
        self
    }

    /// Model lists are scripted replies like any other request.
    pub fn no_models(mut self) -> Self {
        self.models = None;
        self
    }

    /// Answers every scripted request with `f(request)`, not from the queue.
    pub fn respond_with(
        mut self,
        f: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) -> Self {
        self.responder = Some(Arc::new(f));
        self
    }

    /// The answer once the script is used up (default: a 400 saying so).
    pub fn exhausted(mut self, reply: Reply) -> Self {
        self.exhausted = Some(reply);
        self
    }

    /// The first `n` scripted requests are answered together, once the
    /// `n`-th has arrived (clients racing side by side).
    pub fn hold_until(mut self, n: usize) -> Self {
        self.hold = n;
        self
    }

    /// Records which local process sent each request (Linux, `/proc`).
    pub fn peer_pids(mut self, on: bool) -> Self {
        self.peer_pids = on;
        self
    }

    /// Appends each request, as one JSON line, to `path` as it arrives.
    pub fn record_to(mut self, path: impl Into<PathBuf>) -> Self {
        self.record_file = Some(path.into());
        self
    }

    /// Listens on this port of 127.0.0.1 (default: any free one).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    pub fn start(self) -> std::io::Result<MockServer> {
        let record_file = match &self.record_file {
            Some(p) => Some(Mutex::new(
                File::options().create(true).append(true).open(p)?,
            )),
            None => None,
        };
        let listener = std::net::TcpListener::bind(("127.0.0.1", self.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            replies: Mutex::new(self.replies.into()),
            routes: Mutex::new(self.routes),
            models: Mutex::new(self.models),
            windows: self.windows,
            responder: self.responder,
            exhausted: self.exhausted.unwrap_or_else(|| {
                Reply::error(
                    400,
                    json!({"error": {"message": "mock: no scripted reply left", "type": "invalid_request_error"}}),
                )
            }),
            record: Mutex::new(Vec::new()),
            record_file,
            disconnects: AtomicUsize::new(0),
            hold: self.hold,
            arrived: watch::Sender::new(0),
            peer_pids: self.peer_pids,
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stopped) = oneshot::channel();
        let st = state.clone();
        let thread = std::thread::Builder::new()
            .name("skald-llm-mock".into())
            .spawn(move || {
                runtime.block_on(accept_loop(listener, st, stopped));
                runtime.shutdown_timeout(Duration::from_secs(1));
            })?;
        let url = format!("http://{addr}");
        Ok(MockServer {
            base_url: format!("{url}/v1"),
            url,
            port: addr.port(),
            state,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

/// A running mock; it stops (and closes its connections) when dropped.
pub struct MockServer {
    url: String,
    base_url: String,
    port: u16,
    state: Arc<State>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MockServer {
    /// Serves `replies` in order; model lists name [`MOCK_MODELS`].
    pub fn start<R: Into<Reply>>(replies: impl IntoIterator<Item = R>) -> std::io::Result<Self> {
        Self::builder().replies(replies).start()
    }

    /// Serves `replies` in order to every request, model lists included.
    pub fn raw<R: Into<Reply>>(replies: impl IntoIterator<Item = R>) -> std::io::Result<Self> {
        Self::builder().no_models().replies(replies).start()
    }

    pub fn builder() -> MockBuilder {
        MockBuilder::default()
    }

    /// `http://127.0.0.1:PORT` (Anthropic's and Ollama's base URL).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `http://127.0.0.1:PORT/v1` (an OpenAI-compatible base URL).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Adds a reply to the end of the script.
    pub fn push(&self, reply: impl Into<Reply>) {
        lock(&self.state.replies).push_back(reply.into());
    }

    /// Adds a reply for the next request `when` takes that no earlier reply
    /// for the same match is waiting for ([`crate::route`]).
    pub fn push_for(&self, when: Match, reply: impl Into<Reply>) {
        route::add(&mut lock(&self.state.routes), when, [reply.into()]);
    }

    /// Every request received so far (control requests aside), in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.record).clone()
    }

    /// The bodies of the POST requests received so far: what a client asked
    /// the model, turn by turn (Ollama's `/api/show` asks no model: left out).
    pub fn bodies(&self) -> Vec<Value> {
        lock(&self.state.record)
            .iter()
            .filter(|r| r.method == "POST" && !is_show(&r.path))
            .map(|r| r.body.clone())
            .collect()
    }

    /// How many held-open replies ([`End::Hang`]) saw their client leave.
    pub fn disconnects(&self) -> usize {
        self.state.disconnects.load(Ordering::SeqCst)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub(crate) struct State {
    pub(crate) replies: Mutex<VecDeque<Reply>>,
    pub(crate) routes: Mutex<Vec<Route>>,
    pub(crate) models: Mutex<Option<Vec<String>>>,
    windows: HashMap<String, u64>,
    responder: Option<Responder>,
    exhausted: Reply,
    pub(crate) record: Mutex<Vec<RecordedRequest>>,
    pub(crate) record_file: Option<Mutex<File>>,
    pub(crate) disconnects: AtomicUsize,
    hold: usize,
    arrived: watch::Sender<usize>,
    peer_pids: bool,
}

impl State {
    fn record(&self, r: &RecordedRequest) {
        if let Some(f) = &self.record_file
            && let Ok(line) = serde_json::to_string(r)
        {
            let mut f = lock(f);
            // One write per line, so a reader never sees half a request.
            let _ = f.write_all(format!("{line}\n").as_bytes());
            let _ = f.flush();
        }
        lock(&self.record).push(r.clone());
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn accept_loop(
    listener: std::net::TcpListener,
    state: Arc<State>,
    mut stopped: oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    loop {
        let (sock, peer) = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(_) => continue,
            },
        };
        let _ = sock.set_nodelay(true);
        let st = state.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let st = st.clone();
                async move { Ok::<_, Infallible>(handle(req, peer, st).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(sock), svc)
                .await;
        });
    }
}

async fn handle(
    req: Request<hyper::body::Incoming>,
    peer: SocketAddr,
    st: Arc<State>,
) -> Response<ChannelBody> {
    let method = req.method().as_str().to_owned();
    let path = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), |p| p.as_str().to_owned());
    let headers = req
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let bytes = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    if let Some(control) = path.strip_prefix("/_mock/") {
        return crate::control::answer(&method, control, &bytes, &st);
    }
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    let pid = if st.peer_pids {
        tokio::task::spawn_blocking(move || crate::peer::pid_of_local_port(peer.port()))
            .await
            .ok()
            .flatten()
    } else {
        None
    };
    let rec = RecordedRequest {
        method,
        path,
        headers,
        body,
        time_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        pid,
    };
    st.record(&rec);
    let reply = match model_list(&st, &rec) {
        Some(list) => list,
        None => scripted(&st, &rec).await,
    };
    crate::send::respond(reply, st).await
}

/// The fixed model lists, in the shapes the three APIs document (OpenAI's
/// `data[].id` is also what Anthropic's list carries).
fn model_list(st: &State, rec: &RecordedRequest) -> Option<Reply> {
    let models = lock(&st.models).clone()?;
    let path = rec.path.split('?').next().unwrap_or_default();
    if rec.method == "POST" && is_show(path) {
        // Ollama's model details: the window, when one was given.
        let name = rec.body.get("model").and_then(Value::as_str).unwrap_or("");
        if !models.iter().any(|m| m == name) {
            return Some(
                Reply::error(404, json!({"error": format!("model '{name}' not found")})).whole(),
            );
        }
        let mut info = json!({"general.architecture": "mock"});
        if let Some(n) = st.windows.get(name) {
            info["mock.context_length"] = json!(n);
        }
        return Some(Reply::json(&json!({"parameters": "", "model_info": info})).whole());
    }
    if rec.method != "GET" {
        return None;
    }
    if path.ends_with("/models") {
        let data: Vec<Value> = models
            .iter()
            .map(|id| {
                let mut entry = json!({"id": id, "object": "model", "type": "model", "owned_by": "mock", "display_name": id});
                if let Some(n) = st.windows.get(id) {
                    entry["context_length"] = json!(n);
                }
                entry
            })
            .collect();
        Some(Reply::json(&json!({"object": "list", "data": data, "has_more": false})).whole())
    } else if path == "/api/tags" {
        let data: Vec<Value> = models
            .iter()
            .map(|m| json!({"name": m, "model": m}))
            .collect();
        Some(Reply::json(&json!({"models": data})).whole())
    } else {
        None
    }
}

fn is_show(path: &str) -> bool {
    path.split('?').next() == Some("/api/show")
}

async fn scripted(st: &State, rec: &RecordedRequest) -> Reply {
    if st.hold > 0 {
        let mut n = 0;
        st.arrived.send_modify(|c| {
            *c += 1;
            n = *c;
        });
        if n <= st.hold {
            let mut rx = st.arrived.subscribe();
            let _ = tokio::time::timeout(HOLD_LIMIT, rx.wait_for(|c| *c >= st.hold)).await;
        }
    }
    if let Some(r) = route::take(&mut lock(&st.routes), &rec.body) {
        return r;
    }
    if let Some(f) = &st.responder {
        return f(rec);
    }
    lock(&st.replies)
        .pop_front()
        .unwrap_or_else(|| st.exhausted.clone())
}
