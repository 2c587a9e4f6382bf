//! One connection to a server: the transport started (a child process in its
//! own process group, or streamable HTTP), the MCP handshake done, and the
//! server's stderr copied line by line to its log file and to a short tail
//! kept in memory for the status.

// Roots and sampling are deprecated by SEP-2577 (a later protocol revision),
// but the servers people run today still send them.
#![allow(deprecated)]

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    CustomNotification, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, ListRootsResult,
    NumberOrString, ProgressNotificationParam, ProgressToken, Role, Root, RootsCapabilities,
    SamplingCapability, SamplingMessage, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, StreamableHttpClientTransportConfig,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};
use skald_core_api::ProgressReporter;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

use crate::McpError;
use crate::config::Transport;
use crate::requests::{ElicitReply, RequestRoute, SamplingRequest, elicitation_of};

/// How long a failed start waits for the rest of the server's stderr.
const STDERR_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

/// Lines of stderr a failed status shows.
pub const STDERR_TAIL_LINES: usize = 20;

/// The last lines a server wrote to stderr.
#[derive(Debug, Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: String) {
        let mut g = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if g.len() == STDERR_TAIL_LINES {
            g.pop_front();
        }
        g.push_back(line);
    }

    pub fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

/// What the server may tell or ask Skald.
#[derive(Clone)]
pub(crate) struct Handler {
    pub server: String,
    /// Elicitation, roots and sampling go to the host.
    pub requests: RequestRoute,
    /// `notifications/tools/list_changed`: the supervisor lists again.
    pub tools_changed: Arc<Notify>,
    /// Where `notifications/progress` of running calls go.
    pub progress: ProgressRoutes,
}

/// The running calls that asked for progress, by their progress token
/// (rmcp gives every request one).
#[derive(Clone, Default)]
pub(crate) struct ProgressRoutes {
    routes: Arc<Mutex<HashMap<String, ProgressReporter>>>,
}

/// Removes its route when the call ends (or is dropped by Stop).
pub(crate) struct ProgressRoute {
    routes: ProgressRoutes,
    token: String,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}

impl ProgressRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ProgressReporter>> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Routes `token`'s notifications to `reporter` while the guard lives.
    pub(crate) fn route(&self, token: &ProgressToken, reporter: ProgressReporter) -> ProgressRoute {
        let token = key(token);
        self.lock().insert(token.clone(), reporter);
        ProgressRoute {
            routes: self.clone(),
            token,
        }
    }

    fn report(&self, p: &ProgressNotificationParam) {
        if let Some(r) = self.lock().get(&key(&p.progress_token)) {
            r.status(p.message.clone(), Some(p.progress), p.total);
        }
    }
}

fn key(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::String(s) => format!("s:{s}"),
        NumberOrString::Number(n) => format!("n:{n}"),
    }
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.notify_one();
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.report(&params);
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method != crate::requests::ELICITATION_COMPLETE {
            return;
        }
        let id = notification
            .params
            .as_ref()
            .and_then(|p| p.get("elicitationId"))
            .and_then(serde_json::Value::as_str);
        if let (Some(id), Some(host)) = (id, self.requests.host()) {
            host.elicitation_complete(&self.server, id);
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(elicitation) = elicitation_of(&self.server, request) else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let Some(host) = self.requests.host() else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let call = self.requests.callers.latest(&self.server);
        if call.is_none() {
            tracing::info!(server = %self.server, "elicitation outside a tool call declined");
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        let url_mode = elicitation.url.is_some();
        let reply = host.elicit(call, elicitation).await;
        Ok(match reply {
            // A URL-mode answer carries no content: the person did it there.
            ElicitReply::Accept(_) if url_mode => ElicitResult::new(ElicitationAction::Accept),
            ElicitReply::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(content)
            }
            ElicitReply::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitReply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let dirs = match self.requests.host() {
            Some(host) => host.roots(self.requests.callers.latest(&self.server)).await,
            None => Vec::new(),
        };
        Ok(ListRootsResult::new(
            dirs.iter().map(|d| root_of(d)).collect(),
        ))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some(host) = self.requests.host() else {
            return Err(ErrorData::invalid_request(SAMPLING_DECLINED, None));
        };
        let request = SamplingRequest {
            server: self.server.clone(),
            system: params.system_prompt.clone(),
            messages: params
                .messages
                .iter()
                .map(|m| {
                    let role = match m.role {
                        Role::User => "user",
                        Role::Assistant => "assistant",
                    };
                    let text: Vec<String> = m
                        .content
                        .iter()
                        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                        .collect();
                    (role.to_string(), text.join("\n"))
                })
                .collect(),
            max_tokens: params.max_tokens,
        };
        match host
            .sample(self.requests.callers.latest(&self.server), request)
            .await
        {
            Ok(reply) => Ok(CreateMessageResult::new(
                SamplingMessage::assistant_text(reply.text),
                reply.model,
            )
            .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN)),
            Err(why) => Err(ErrorData::invalid_request(why, None)),
        }
    }

    fn get_info(&self) -> ClientConfig {
        // Sampling is declared so servers ask, and hear why not, rather
        // than fail for want of the capability.
        let mut caps = ClientCapabilities::default();
        caps.roots = Some(RootsCapabilities::default());
        caps.sampling = Some(SamplingCapability::default());
        caps.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        ClientConfig::new(
            caps,
            Implementation::new("skald", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// What a server hears when sampling is not allowed.
pub const SAMPLING_DECLINED: &str = "Skald declines sampling requests from MCP servers unless the person allows them (the `mcp.allow_sampling` setting).";

/// A directory as an MCP root (`file://` URI).
fn root_of(dir: &Path) -> Root {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    Root::new(format!("file://{}", dir.display())).with_name(name)
}

/// Whether a connection failed because the server wants a bearer token
/// (401 with `WWW-Authenticate`).
pub(crate) fn auth_required(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if err.downcast_ref::<AuthRequiredError>().is_some() {
            return true;
        }
        cur = err.source();
    }
    let text = e.to_string();
    text.contains("Auth required") || text.contains("authorization required")
}

pub(crate) type Running = RunningService<RoleClient, Handler>;

/// Fills `${NAME}` from `secrets`; a name without a secret is an error that
/// names it (never its value).
pub fn fill_secrets(value: &str, secrets: &HashMap<String, String>) -> Result<String, McpError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &after[..end];
        match secrets.get(name) {
            Some(v) => out.push_str(v),
            None => return Err(McpError::MissingSecret(name.to_string())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Every `${NAME}` a transport refers to.
pub fn secret_names(t: &Transport) -> Vec<String> {
    let values: Vec<&String> = match t {
        Transport::Stdio { env, .. } => env.values().collect(),
        Transport::Http { headers, .. } => headers.values().collect(),
    };
    let mut names = Vec::new();
    for v in values {
        let mut rest = v.as_str();
        while let Some(start) = rest.find("${") {
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else { break };
            names.push(after[..end].to_string());
            rest = &after[end + 1..];
        }
    }
    names.sort();
    names.dedup();
    names
}

fn filled(
    map: &BTreeMap<String, String>,
    secrets: &HashMap<String, String>,
) -> Result<Vec<(String, String)>, McpError> {
    map.iter()
        .map(|(k, v)| Ok((k.clone(), fill_secrets(v, secrets)?)))
        .collect()
}

/// Starts the transport and completes the handshake.
pub(crate) async fn connect(
    transport: &Transport,
    secrets: &HashMap<String, String>,
    bearer: Option<&str>,
    log: Option<&Path>,
    tail: &StderrTail,
    handler: Handler,
) -> Result<Running, McpError> {
    match transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args);
            for (k, v) in filled(env, secrets)? {
                cmd.env(k, v);
            }
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let mut wrap = CommandWrap::from(cmd);
            wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
            let (proc, stderr) = TokioChildProcess::builder(wrap)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| McpError::Spawn(format!("{command}: {e}")))?;
            let pump = stderr.map(|stderr| {
                tokio::spawn(pump_stderr(
                    stderr,
                    log.map(Path::to_path_buf),
                    tail.clone(),
                ))
            });
            match handler.serve(proc).await {
                Ok(running) => Ok(running),
                Err(e) => {
                    // A server that died at start has written why: let its
                    // last lines reach the tail before the status is set.
                    if let Some(p) = pump {
                        let _ = tokio::time::timeout(STDERR_GRACE, p).await;
                    }
                    Err(McpError::Handshake(e.to_string()))
                }
            }
        }
        Transport::Http { url, headers, .. } => {
            let mut custom = HashMap::new();
            for (k, v) in filled(headers, secrets)? {
                let name = http::HeaderName::try_from(k.as_str())
                    .map_err(|e| McpError::InvalidConfig(format!("header `{k}`: {e}")))?;
                let value = http::HeaderValue::try_from(v.as_str())
                    .map_err(|e| McpError::InvalidConfig(format!("header `{k}`: {e}")))?;
                custom.insert(name, value);
            }
            let mut config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            if let Some(token) = bearer {
                config = config.auth_header(token.to_string());
            }
            let transport = StreamableHttpClientTransport::from_config(config);
            handler.serve(transport).await.map_err(|e| {
                if auth_required(&e) {
                    McpError::SignInRequired(format!("{url} asks to sign in"))
                } else {
                    McpError::Handshake(e.to_string())
                }
            })
        }
    }
}

/// Copies stderr to the log file (appending, so restarts keep history) and
/// the tail.
async fn pump_stderr(stderr: tokio::process::ChildStderr, log: Option<PathBuf>, tail: StderrTail) {
    let mut file = match &log {
        Some(p) => tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .await
            .ok(),
        None => None,
    };
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(f) = file.as_mut() {
            let _ = f.write_all(line.as_bytes()).await;
            let _ = f.write_all(b"\n").await;
        }
        tail.push(line);
    }
    if let Some(f) = file.as_mut() {
        let _ = f.flush().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_fill_placeholders_and_missing_ones_are_named() {
        let s: HashMap<String, String> = [("TOKEN".to_string(), "abc".to_string())].into();
        assert_eq!(fill_secrets("Bearer ${TOKEN}", &s).unwrap(), "Bearer abc");
        assert_eq!(fill_secrets("plain", &s).unwrap(), "plain");
        assert_eq!(fill_secrets("${oops", &s).unwrap(), "${oops");
        let e = fill_secrets("${NOPE}", &s).unwrap_err();
        assert!(e.to_string().contains("NOPE"));
        let t = Transport::Http {
            url: "http://x".into(),
            headers: [("A".to_string(), "${B} ${C}".to_string())].into(),
            client_id: None,
        };
        assert_eq!(secret_names(&t), ["B", "C"]);
    }
}
