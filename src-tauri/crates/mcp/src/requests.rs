//! What a server may ask of Skald while connected: an elicitation (a form
//! for the person), its roots (the working directory) and sampling (a
//! completion from the session's model). The host (the session) answers
//! through [`ClientRequests`]; this crate only routes a request to the tool
//! call it belongs to.
//!
//! MCP does not say which call a server request belongs to, so a request is
//! routed to the newest call running on that server (the one a server
//! blocks on while it asks); with none running, an elicitation or a sampling
//! request is declined and the roots are the host's default.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::model::ElicitRequestParams;
use serde_json::Value;
use skald_core_api::BoxFuture;

pub use skald_core_api::current_call_id;

/// An elicitation: what the server wants and the schema of the answer, or
/// (URL mode) the page the person should visit.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    pub server: String,
    /// Shown to the person.
    pub message: String,
    /// The requested JSON schema (an object of primitive properties); for a
    /// URL-mode elicitation, an object with no properties.
    pub schema: Value,
    /// The schema's property names in the order the server sent them
    /// (`schema`, a `Value`, keeps its keys sorted).
    pub property_order: Vec<String>,
    /// URL mode (MCP 2025-11): an `http(s)` page the person opens in their
    /// browser; accepting means "done", with no content.
    pub url: Option<String>,
    /// URL mode: the server's id for it, which its
    /// `notifications/elicitation/complete` names when the page is done.
    pub elicitation_id: Option<String>,
}

/// The method of the notification that says a URL elicitation is done.
pub(crate) const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// What Skald shows of a server's elicitation; `None` declines it: a schema
/// that cannot be read, or a URL that is not a plain `http(s)` page (Skald
/// never opens `file:`, `javascript:` or app links on a server's word).
pub(crate) fn elicitation_of(server: &str, request: ElicitRequestParams) -> Option<Elicitation> {
    match request {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            // rmcp keeps the wire order of the properties beside its sorted
            // map; the `Value` below loses it, so it travels as a list.
            let property_order = requested_schema
                .property_order
                .clone()
                .unwrap_or_else(|| requested_schema.properties.keys().cloned().collect());
            let schema = serde_json::to_value(&requested_schema).ok()?;
            Some(Elicitation {
                server: server.to_string(),
                message,
                schema,
                property_order,
                url: None,
                elicitation_id: None,
            })
        }
        ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } => {
            let parsed = url::Url::parse(&url).ok()?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                tracing::warn!(
                    server,
                    url,
                    "URL elicitation with a URL that is not http(s) declined"
                );
                return None;
            }
            Some(Elicitation {
                server: server.to_string(),
                message,
                schema: serde_json::json!({"type": "object", "properties": {}}),
                property_order: Vec::new(),
                url: Some(parsed.to_string()),
                elicitation_id: Some(elicitation_id),
            })
        }
        _ => None,
    }
}

/// MCP's `URLElicitationRequiredError`: a call refused until the person
/// has been to a page (or several).
pub(crate) const URL_ELICITATION_REQUIRED: i32 = -32042;

/// The pages a `-32042` refusal asks the person to visit (its
/// `data.elicitations`, URL mode only); `None` for any other error.
pub(crate) fn url_elicitations_required(
    e: &rmcp::service::ServiceError,
) -> Option<Vec<ElicitRequestParams>> {
    let rmcp::service::ServiceError::McpError(data) = e else {
        return None;
    };
    if data.code.0 != URL_ELICITATION_REQUIRED {
        return None;
    }
    let listed = data.data.as_ref()?.get("elicitations")?.as_array()?;
    let pages: Vec<ElicitRequestParams> = listed
        .iter()
        .filter_map(|v| serde_json::from_value(v.clone()).ok())
        .filter(|p| matches!(p, ElicitRequestParams::UrlElicitationParams { .. }))
        .collect();
    (!pages.is_empty()).then_some(pages)
}

/// Asks the person to visit each page, through the host as any URL
/// elicitation is asked (a card with the link, in the chat and the Inbox).
/// `Err` says which page the call needs when it cannot go on: no host to
/// ask (the CLI), a page that is not `http(s)`, or the person declined.
pub(crate) async fn satisfy_url_elicitations(
    host: Option<Arc<dyn ClientRequests>>,
    server: &str,
    call_id: Option<String>,
    pages: Vec<ElicitRequestParams>,
) -> Result<(), crate::McpError> {
    for page in pages {
        let shown = match &page {
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                format!("{url} ({message})")
            }
            _ => String::new(),
        };
        let needs = |why: &str| {
            crate::McpError::Call(format!(
                "{server} needs you to open {shown} before this call can run; {why}"
            ))
        };
        let Some(elicitation) = elicitation_of(server, page) else {
            return Err(needs("Skald opens only http(s) pages"));
        };
        let Some(host) = host.as_ref() else {
            return Err(needs("open it, then run the call again"));
        };
        match host.elicit(call_id.clone(), elicitation).await {
            ElicitReply::Accept(_) => {}
            ElicitReply::Decline => return Err(needs("you declined")),
            ElicitReply::Cancel => return Err(needs("it was cancelled")),
        }
    }
    Ok(())
}

/// The person's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitReply {
    /// The form's content (an object matching the schema).
    Accept(Value),
    Decline,
    Cancel,
}

/// A sampling request, reduced to what a provider needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    pub server: String,
    pub system: Option<String>,
    /// `(role, text)`: `user` or `assistant`.
    pub messages: Vec<(String, String)>,
    pub max_tokens: u32,
}

/// A completion for a server: the model that answered and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingReply {
    pub model: String,
    pub text: String,
}

/// The host's answers to server requests. `call_id` is the tool call the
/// request is routed to (`None`: no call of that server is running).
pub trait ClientRequests: Send + Sync {
    fn elicit(
        &self,
        call_id: Option<String>,
        request: Elicitation,
    ) -> BoxFuture<'static, ElicitReply>;

    /// Directories the server may work in.
    fn roots(&self, call_id: Option<String>) -> BoxFuture<'static, Vec<PathBuf>>;

    /// The server says the URL elicitation `elicitation_id` is done (the
    /// person finished on the page): a host still asking closes its card as
    /// if they had pressed Done. A host with nothing open ignores it.
    fn elicitation_complete(&self, server: &str, elicitation_id: &str) {
        let _ = (server, elicitation_id);
    }

    /// `Err`: why the request is declined (the server shows it).
    fn sample(
        &self,
        call_id: Option<String>,
        request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingReply, String>>;
}

/// Per server: `(sequence, call id)` of its running calls, newest last.
type Running = HashMap<String, Vec<(u64, Option<String>)>>;

/// The calls running on each server, newest last.
#[derive(Clone, Default)]
pub(crate) struct Callers(Arc<Mutex<Running>>);

/// Takes its call off the list when the call ends or is dropped.
pub(crate) struct CallerGuard {
    callers: Callers,
    server: String,
    seq: u64,
}

impl Drop for CallerGuard {
    fn drop(&mut self) {
        let mut g = self.callers.lock();
        if let Some(v) = g.get_mut(&self.server) {
            v.retain(|(s, _)| *s != self.seq);
        }
    }
}

static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Callers {
    fn lock(&self) -> std::sync::MutexGuard<'_, Running> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn enter(&self, server: &str, call_id: Option<String>) -> CallerGuard {
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lock()
            .entry(server.to_string())
            .or_default()
            .push((seq, call_id));
        CallerGuard {
            callers: self.clone(),
            server: server.to_string(),
            seq,
        }
    }

    /// The newest running call of `server` that has an id.
    pub(crate) fn latest(&self, server: &str) -> Option<String> {
        self.lock()
            .get(server)
            .and_then(|v| v.iter().rev().find_map(|(_, id)| id.clone()))
    }
}

/// What a server's handler needs to answer its requests.
#[derive(Clone)]
pub(crate) struct RequestRoute {
    pub callers: Callers,
    pub host: Arc<RwLock<Option<Arc<dyn ClientRequests>>>>,
}

impl RequestRoute {
    pub(crate) fn host(&self) -> Option<Arc<dyn ClientRequests>> {
        self.host
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_goes_to_the_newest_running_call_of_its_server() {
        let c = Callers::default();
        let a = c.enter("s", Some("a".into()));
        let b = c.enter("s", Some("b".into()));
        let _other = c.enter("t", Some("x".into()));
        assert_eq!(c.latest("s").as_deref(), Some("b"));
        drop(b);
        assert_eq!(c.latest("s").as_deref(), Some("a"));
        drop(a);
        assert_eq!(c.latest("s"), None);
        assert_eq!(c.latest("t").as_deref(), Some("x"));
    }

    #[test]
    fn a_form_keeps_the_servers_property_order() {
        // As a server sends it, not alphabetical; parsed from text, as rmcp
        // does (a `json!` value would already be sorted).
        let wire = r#"{"mode": "form", "message": "Who are you?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer"},
                "bio": {"type": "string"}
            }, "required": ["name"]}}"#;
        let req: ElicitRequestParams = serde_json::from_str(wire).unwrap();
        let e = elicitation_of("s", req).unwrap();
        assert_eq!(e.property_order, ["name", "email", "age", "bio"]);
        assert_eq!(e.schema["properties"].as_object().unwrap().len(), 4);
        assert_eq!(e.url, None);
    }

    #[test]
    fn a_url_elicitation_is_shown_only_for_http_pages() {
        let url = |u: &str| {
            let wire = serde_json::json!({
                "mode": "url", "message": "Link your account",
                "url": u, "elicitationId": "e1"
            });
            elicitation_of("s", serde_json::from_value(wire).unwrap())
        };
        let e = url("https://example.com/connect?x=1").unwrap();
        assert_eq!(e.url.as_deref(), Some("https://example.com/connect?x=1"));
        assert_eq!(e.message, "Link your account");
        assert_eq!(e.elicitation_id.as_deref(), Some("e1"));
        assert!(e.property_order.is_empty());
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "not a url",
            "skald://x",
        ] {
            assert_eq!(url(bad), None, "{bad}");
        }
    }
}
