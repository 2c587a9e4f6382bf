//! [`McpManager`]: every configured server, each kept connected by a
//! supervisor task of its own — connect in the background (nothing waits
//! for it but the calls that need it), list its tools, watch for the
//! connection to end, restart with backoff. Callers read a server's
//! [`ServerStatus`] and wait for it only as long as its timeout.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use rmcp::Peer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult, Tool as McpToolDef,
};
use rmcp::service::RoleClient;
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde::Serialize;
use serde_json::Value;
use skald_core_api::{ProgressReporter, ToolOutput};
use skald_store::Store;
use tokio::sync::{Notify, broadcast, watch};
use tokio_util::sync::CancellationToken;

use crate::McpError;
use crate::client::{Handler, ProgressRoutes, StderrTail, connect, secret_names};
use crate::config::ServerConfig;
use crate::requests::{
    Callers, ClientRequests, RequestRoute, current_call_id, satisfy_url_elicitations,
    url_elicitations_required,
};
use crate::result::to_output;

/// First wait before a restart; doubles up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerStatus {
    Connecting,
    Ready {
        tools: usize,
    },
    /// Why, with the last lines of its stderr; a restart is scheduled.
    Failed {
        reason: String,
        stderr: Vec<String>,
    },
    /// An HTTP server answered 401: the person signs in (OAuth) first.
    NeedsSignIn {
        reason: String,
    },
    Disabled,
}

impl ServerStatus {
    pub fn label(&self) -> &'static str {
        match self {
            ServerStatus::Connecting => "connecting",
            ServerStatus::Ready { .. } => "ready",
            ServerStatus::Failed { .. } => "failed",
            ServerStatus::NeedsSignIn { .. } => "needs_sign_in",
            ServerStatus::Disabled => "disabled",
        }
    }
}

/// A live connection: what calls go through, and the server's tools.
#[derive(Clone)]
pub(crate) struct Live {
    pub peer: Peer<RoleClient>,
    pub tools: Arc<Vec<McpToolDef>>,
}

pub(crate) struct Server {
    pub config: ServerConfig,
    status: watch::Sender<ServerStatus>,
    live: RwLock<Option<Live>>,
    tail: StderrTail,
    stop: CancellationToken,
    retry_now: Notify,
    /// The server refused the connection's token: connect again (with a
    /// refreshed one, or to ask for a sign-in).
    reconnect: Notify,
    changes: broadcast::Sender<String>,
}

impl Server {
    fn set_status(&self, s: ServerStatus) {
        let same = *self.status.borrow() == s;
        self.status.send_replace(s);
        if !same {
            let _ = self.changes.send(self.config.name.clone());
        }
    }

    fn set_live(&self, live: Option<Live>) {
        *self.live.write().unwrap_or_else(PoisonError::into_inner) = live;
    }

    pub(crate) fn live(&self) -> Option<Live> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn failed(&self, reason: String) {
        self.set_live(None);
        self.set_status(ServerStatus::Failed {
            reason,
            stderr: self.tail.lines(),
        });
    }

    fn failed_with(&self, e: McpError) {
        match e {
            McpError::SignInRequired(reason) => {
                self.set_live(None);
                self.set_status(ServerStatus::NeedsSignIn { reason });
            }
            other => self.failed(other.to_string()),
        }
    }
}

struct Inner {
    servers: RwLock<BTreeMap<String, Arc<Server>>>,
    log_dir: Option<PathBuf>,
    store: Option<Store>,
    progress: ProgressRoutes,
    /// Names of servers whose status changed (the app's `mcp-status`).
    changes: broadcast::Sender<String>,
    /// What servers ask of Skald (elicitation, roots, sampling).
    requests: Arc<RwLock<Option<Arc<dyn ClientRequests>>>>,
    /// The tool calls running on each server, newest last: a server's
    /// request during a call belongs to it.
    callers: Callers,
}

/// Every configured server. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl McpManager {
    /// `log_dir`: where `<server>.log` (its stderr) goes. `store`: where
    /// `${NAME}` secrets come from.
    pub fn new(log_dir: Option<PathBuf>, store: Option<Store>) -> Self {
        if let Some(d) = &log_dir
            && let Err(e) = std::fs::create_dir_all(d)
        {
            tracing::warn!(dir = %d.display(), error = %e, "cannot create the MCP log directory");
        }
        Self {
            inner: Arc::new(Inner {
                servers: RwLock::new(BTreeMap::new()),
                log_dir,
                store,
                progress: ProgressRoutes::default(),
                changes: broadcast::channel(64).0,
                requests: Arc::new(RwLock::new(None)),
                callers: Callers::default(),
            }),
        }
    }

    /// Starts every server configured in the store (the enabled ones
    /// connect in the background). Returns how many were configured.
    pub async fn load(&self, store: &Store) -> Result<usize, McpError> {
        let rows = store.mcp_servers().list().await?;
        let n = rows.len();
        for row in rows {
            match ServerConfig::from_row(&row) {
                Ok(c) => self.put(c),
                Err(e) => tracing::warn!(server = %row.name, error = %e, "MCP server skipped"),
            }
        }
        Ok(n)
    }

    /// Adds or replaces a server; an enabled one starts connecting now.
    pub fn put(&self, config: ServerConfig) {
        let status = if config.enabled {
            ServerStatus::Connecting
        } else {
            ServerStatus::Disabled
        };
        let server = Arc::new(Server {
            config,
            status: watch::channel(status).0,
            live: RwLock::new(None),
            tail: StderrTail::default(),
            stop: CancellationToken::new(),
            retry_now: Notify::new(),
            reconnect: Notify::new(),
            changes: self.inner.changes.clone(),
        });
        let _ = self.inner.changes.send(server.config.name.clone());
        let old = self
            .inner
            .servers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(server.config.name.clone(), server.clone());
        if let Some(old) = old {
            old.stop.cancel();
        }
        if server.config.enabled {
            tokio::spawn(supervise(self.inner.clone(), server));
        }
    }

    /// Stops and forgets a server. Returns whether it was there.
    pub fn remove(&self, name: &str) -> bool {
        let old = self
            .inner
            .servers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name);
        let _ = self.inner.changes.send(name.to_string());
        old.map(|s| s.stop.cancel()).is_some()
    }

    /// Names of servers whose status (or configuration) changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<String> {
        self.inner.changes.subscribe()
    }

    /// Who answers servers' elicitation, roots and sampling requests
    /// (without one: declined, no roots).
    pub fn set_requests(&self, requests: Arc<dyn ClientRequests>) {
        *self
            .inner
            .requests
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(requests);
    }

    pub fn store(&self) -> Option<&Store> {
        self.inner.store.as_ref()
    }

    /// Stops every server.
    pub fn shutdown(&self) {
        let servers = std::mem::take(
            &mut *self
                .inner
                .servers
                .write()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for s in servers.values() {
            s.stop.cancel();
        }
    }

    /// Retries a failed server at once instead of after its backoff.
    pub fn retry(&self, name: &str) -> bool {
        self.server(name)
            .map(|s| s.retry_now.notify_one())
            .is_some()
    }

    pub(crate) fn server(&self, name: &str) -> Option<Arc<Server>> {
        self.inner
            .servers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    pub(crate) fn servers(&self) -> Vec<Arc<Server>> {
        self.inner
            .servers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// Configured server names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.servers()
            .iter()
            .map(|s| s.config.name.clone())
            .collect()
    }

    /// The enabled servers as `activate_tools` groups: `(name, what it is
    /// for)`, with its tool count once it is ready.
    pub fn groups(&self) -> Vec<(String, String)> {
        self.servers()
            .iter()
            .filter(|s| s.config.enabled)
            .map(|s| {
                let d = s.config.description.trim();
                let about = match (&*s.status.borrow(), d.is_empty()) {
                    (ServerStatus::Ready { tools }, true) => format!("{tools} tools"),
                    (ServerStatus::Ready { tools }, false) => format!("{d}; {tools} tools"),
                    (_, _) => d.to_string(),
                };
                (s.config.name.clone(), about)
            })
            .collect()
    }

    pub fn config(&self, name: &str) -> Option<ServerConfig> {
        self.server(name).map(|s| s.config.clone())
    }

    pub fn status(&self, name: &str) -> Option<ServerStatus> {
        self.server(name).map(|s| s.status.borrow().clone())
    }

    /// The server's log file (its stderr), if logs are kept.
    pub fn log_path(&self, name: &str) -> Option<PathBuf> {
        self.inner
            .log_dir
            .as_ref()
            .map(|d| d.join(format!("{name}.log")))
    }

    /// The tools of a ready server: `(name, description, input schema)`.
    pub fn tools(&self, name: &str) -> Vec<(String, String, Value)> {
        let Some(live) = self.server(name).and_then(|s| s.live()) else {
            return Vec::new();
        };
        live.tools
            .iter()
            .map(|t| {
                (
                    t.name.to_string(),
                    t.description.as_deref().unwrap_or_default().to_string(),
                    Value::Object((*t.input_schema).clone()),
                )
            })
            .collect()
    }

    /// Waits, at most the server's start timeout, until it is ready; a failed or
    /// disabled server is an error at once (with its stderr tail).
    pub async fn wait_ready(&self, name: &str) -> Result<(), McpError> {
        let server = self
            .server(name)
            .ok_or_else(|| McpError::UnknownServer(name.to_string()))?;
        let mut rx = server.status.subscribe();
        let timeout = server.config.start_timeout();
        let waited = tokio::time::timeout(timeout, async {
            loop {
                let s = rx.borrow_and_update().clone();
                match s {
                    ServerStatus::Ready { .. } => return Ok(()),
                    ServerStatus::Disabled => return Err(McpError::Disabled(name.to_string())),
                    ServerStatus::NeedsSignIn { reason } => {
                        return Err(McpError::SignInRequired(format!(
                            "{name}: {reason} (sign in: the MCP page or `skald mcp login {name}`)"
                        )));
                    }
                    ServerStatus::Failed { reason, stderr } => {
                        return Err(McpError::NotReady {
                            server: name.to_string(),
                            reason,
                            stderr: stderr.join("\n"),
                        });
                    }
                    ServerStatus::Connecting => {}
                }
                if rx.changed().await.is_err() {
                    return Err(McpError::UnknownServer(name.to_string()));
                }
            }
        })
        .await;
        waited.unwrap_or_else(|_| {
            Err(McpError::NotReady {
                server: name.to_string(),
                reason: format!("not ready within {} ms", timeout.as_millis()),
                stderr: server.tail.lines().join("\n"),
            })
        })
    }

    /// Calls `tool` on `server` within the server's timeout. Dropping the
    /// returned future (Stop) or the timeout sends `notifications/cancelled`.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        args: Value,
    ) -> Result<ToolOutput, McpError> {
        self.call_with_progress(server, tool, args, None).await
    }

    /// [`call`](Self::call), asking the server for `notifications/progress`
    /// (a progress token) when `progress` is given; they go to it.
    pub async fn call_with_progress(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        progress: Option<ProgressReporter>,
    ) -> Result<ToolOutput, McpError> {
        self.wait_ready(server).await?;
        let s = self
            .server(server)
            .ok_or_else(|| McpError::UnknownServer(server.to_string()))?;
        let live = s.live().ok_or_else(|| McpError::NotReady {
            server: server.to_string(),
            reason: "disconnected".into(),
            stderr: s.tail.lines().join("\n"),
        })?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        match args {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => {}
            other => {
                return Err(McpError::Call(format!(
                    "arguments must be a JSON object, got {other}"
                )));
            }
        }
        let timeout = s.config.timeout;
        let _caller = self.inner.callers.enter(server, current_call_id());
        // rmcp cancels (notifications/cancelled) a call whose future is
        // dropped: on Stop and on this timeout alike (`call_reporting` does
        // the same for a call that reports progress).
        let attempt = |params: CallToolRequestParams| {
            let (live, progress) = (&live, progress.clone());
            async move {
                let call = async {
                    match progress {
                        None => live.peer.call_tool(params).await,
                        Some(p) => {
                            call_reporting(&live.peer, params, &self.inner.progress, p).await
                        }
                    }
                };
                tokio::time::timeout(timeout, call).await
            }
        };
        let mut outcome = attempt(params.clone()).await;
        // -32042: the server wants the person on a page first (a sign-in, a
        // consent). Asked as URL elicitations, outside the server's timeout
        // (it is the person's time), then the call runs again, once: a
        // second refusal is an error like any other, never a loop.
        if let Ok(Err(e)) = &outcome
            && let Some(pages) = url_elicitations_required(e)
        {
            let host = self.requests_for(server).host();
            satisfy_url_elicitations(host, server, current_call_id(), pages).await?;
            outcome = attempt(params).await;
        }
        match outcome {
            Err(_) => Err(McpError::Timeout {
                server: server.to_string(),
                ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            }),
            Ok(Err(e)) if crate::client::auth_required(&e) => {
                // The access token expired or was revoked mid-connection.
                s.reconnect.notify_one();
                Err(McpError::SignInRequired(format!(
                    "{server} refused the access token; reconnecting with a refreshed one (try again)"
                )))
            }
            Ok(Err(e)) => {
                let tail = s.tail.lines();
                let mut msg = e.to_string();
                if !tail.is_empty() && live.peer.is_transport_closed() {
                    msg.push_str(&format!("; stderr: {}", tail.join(" | ")));
                }
                Err(McpError::Call(msg))
            }
            Ok(Ok(result)) => to_output(&result),
        }
    }

    fn requests_for(&self, _server: &str) -> RequestRoute {
        RequestRoute {
            callers: self.inner.callers.clone(),
            host: self.inner.requests.clone(),
        }
    }

    /// The `Authorization` value of an HTTP server the person signed in
    /// to (OAuth), its access token refreshed when it expired.
    async fn bearer_for(&self, config: &ServerConfig) -> Result<Option<String>, McpError> {
        let (Some(store), crate::config::Transport::Http { url, .. }) =
            (&self.inner.store, &config.transport)
        else {
            return Ok(None);
        };
        crate::oauth::access_token(store, &config.name, url).await
    }

    /// Secrets a transport names, read from the store.
    async fn secrets_for(&self, config: &ServerConfig) -> HashMap<String, String> {
        let mut out = HashMap::new();
        let Some(store) = &self.inner.store else {
            return out;
        };
        for name in secret_names(&config.transport) {
            if let Ok(Some(v)) = store.secrets().get(&name).await {
                out.insert(name, v);
            }
        }
        out
    }
}

/// `tools/call` with the server's `notifications/progress` for this request
/// (rmcp's progress token of the request) going to `reporter`.
async fn call_reporting(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    routes: &ProgressRoutes,
    reporter: ProgressReporter,
) -> Result<CallToolResult, ServiceError> {
    let handle = peer
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await?;
    let _route = routes.route(&handle.progress_token, reporter);
    let mut guard = CancelOnDrop {
        peer: peer.clone(),
        id: Some(handle.id.clone()),
    };
    let response = handle.await_response().await;
    guard.id = None;
    match response? {
        ServerResult::CallToolResult(r) => Ok(r),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Sends `notifications/cancelled` for a request whose caller went away.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (Some(id), Ok(rt)) = (self.id.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let peer = self.peer.clone();
        rt.spawn(async move {
            let param =
                CancelledNotificationParam::new(Some(id), Some("stopped by the user".into()));
            let _ = peer.notify_cancelled(param).await;
        });
    }
}

/// Keeps one server connected until it is stopped.
async fn supervise(inner: Arc<Inner>, server: Arc<Server>) {
    let manager = McpManager { inner };
    let name = server.config.name.clone();
    let log = manager.log_path(&name);
    let mut backoff = FIRST_BACKOFF;
    while !server.stop.is_cancelled() {
        server.set_status(ServerStatus::Connecting);
        let secrets = manager.secrets_for(&server.config).await;
        let tools_changed = Arc::new(Notify::new());
        let handler = Handler {
            server: name.clone(),
            tools_changed: tools_changed.clone(),
            progress: manager.inner.progress.clone(),
            requests: manager.requests_for(&name),
        };
        let bearer = match manager.bearer_for(&server.config).await {
            Ok(b) => b,
            Err(e) => {
                server.failed_with(e);
                tokio::select! {
                    _ = server.stop.cancelled() => break,
                    _ = server.retry_now.notified() => {}
                }
                continue;
            }
        };
        let attempt = async {
            let running = connect(
                &server.config.transport,
                &secrets,
                bearer.as_deref(),
                log.as_deref(),
                &server.tail,
                handler,
            )
            .await?;
            let tools = running
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| McpError::Handshake(format!("tools/list: {e}")))?;
            Ok::<_, McpError>((running, tools))
        };
        let connected = tokio::select! {
            _ = server.stop.cancelled() => break,
            r = tokio::time::timeout(server.config.start_timeout(), attempt) => r,
        };
        match connected {
            Err(_) => server.failed(format!(
                "no answer to the handshake within {} ms",
                server.config.start_timeout().as_millis()
            )),
            Ok(Err(McpError::SignInRequired(reason))) => {
                // Retrying cannot help until the person signs in (which
                // retries at once).
                server.set_live(None);
                server.set_status(ServerStatus::NeedsSignIn { reason });
                tokio::select! {
                    _ = server.stop.cancelled() => break,
                    _ = server.retry_now.notified() => {}
                }
                continue;
            }
            Ok(Err(e)) => server.failed(e.to_string()),
            Ok(Ok((running, tools))) => {
                backoff = FIRST_BACKOFF;
                let peer = running.peer().clone();
                server.set_live(Some(Live {
                    peer: peer.clone(),
                    tools: Arc::new(tools.clone()),
                }));
                server.set_status(ServerStatus::Ready { tools: tools.len() });
                tracing::info!(server = %name, tools = tools.len(), "MCP server ready");
                let ct = running.cancellation_token();
                let mut closed = Box::pin(running.waiting());
                let mut why = "the server closed the connection";
                loop {
                    tokio::select! {
                        _ = &mut closed => break,
                        _ = server.reconnect.notified() => {
                            ct.cancel();
                            let _ = tokio::time::timeout(Duration::from_secs(2), &mut closed).await;
                            why = "the server refused the access token; reconnecting";
                            break;
                        }
                        _ = server.stop.cancelled() => {
                            ct.cancel();
                            let _ = tokio::time::timeout(Duration::from_secs(2), closed).await;
                            server.set_live(None);
                            return;
                        }
                        _ = tools_changed.notified() => {
                            if let Ok(Ok(tools)) = tokio::time::timeout(
                                server.config.timeout,
                                peer.list_all_tools(),
                            ).await {
                                server.set_live(Some(Live {
                                    peer: peer.clone(),
                                    tools: Arc::new(tools.clone()),
                                }));
                                server.set_status(ServerStatus::Ready { tools: tools.len() });
                            }
                        }
                    }
                }
                server.failed(why.into());
            }
        }
        tracing::warn!(server = %name, status = ?*server.status.borrow(), "MCP server not connected; retrying in {backoff:?}");
        tokio::select! {
            _ = server.stop.cancelled() => break,
            _ = server.retry_now.notified() => {}
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
    server.set_live(None);
}
