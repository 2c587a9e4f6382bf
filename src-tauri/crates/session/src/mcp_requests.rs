//! The session's answers to what MCP servers ask during a tool call:
//! an **elicitation** becomes a question of that call (the same row, chat
//! card, Inbox entry and `skald answer` as `ask_user_clarification`) with
//! the requested JSON schema, so the UI builds a form; the **roots** are the
//! session's working directory; **sampling** is declined unless the
//! `mcp.allow_sampling` setting is `true`, then the session's default model
//! answers.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};
use skald_core_api::BoxFuture;
use skald_llm::{ChatRequest, Message, StreamEvent};
use skald_mcp::{
    ClientRequests, ElicitReply, Elicitation, SAMPLING_DECLINED, SamplingReply, SamplingRequest,
};
use skald_protocol::ElicitationAction;
use skald_store::{ElicitationRequest, NewClarification, Store};

use crate::handler::Inner;
use crate::{ChatSessionHandler, SessionError};

/// The setting that lets MCP servers sample the session's model.
pub const ALLOW_SAMPLING_SETTING: &str = "mcp.allow_sampling";
/// How often a waiting elicitation looks for an answer from another process.
const POLL: Duration = Duration::from_millis(250);

struct McpRequests {
    inner: Weak<Inner>,
    /// Roots when no call of a session is running (the app's default folder).
    fallback_root: PathBuf,
    /// The URL elicitations being asked, by (server, elicitation id): the
    /// call whose question each is, for the server's "done" notification.
    open_pages: OpenPages,
}

type OpenPages = Arc<Mutex<HashMap<(String, String), String>>>;

/// What a URL elicitation's "done" stores: what the card's Done button does.
const PAGE_DONE: &str = r#"{"action":"accept","content":{}}"#;

/// Keeps a URL elicitation in [`McpRequests::open_pages`] while it is asked.
struct OpenPage {
    pages: OpenPages,
    key: (String, String),
}

impl OpenPage {
    fn new(pages: OpenPages, key: (String, String), call_id: String) -> Self {
        pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.clone(), call_id);
        OpenPage { pages, key }
    }
}

impl Drop for OpenPage {
    fn drop(&mut self) {
        self.pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key);
    }
}

impl ChatSessionHandler {
    /// What answers MCP servers' requests for this handler's sessions
    /// (give it to `McpManager::set_requests`). Holds the handler weakly.
    pub fn mcp_requests(&self, fallback_root: PathBuf) -> Arc<dyn ClientRequests> {
        Arc::new(McpRequests {
            inner: Arc::downgrade(&self.inner),
            fallback_root,
            open_pages: OpenPages::default(),
        })
    }

    /// The MCP servers whose tools `session_id` is offered without
    /// `activate_tools` (with `None`: those of every session).
    pub async fn mcp_always_on(
        &self,
        session_id: Option<&str>,
    ) -> Result<Vec<String>, SessionError> {
        Ok(crate::activate::always_on(&self.inner.store, session_id)
            .await?
            .into_iter()
            .collect())
    }

    /// Marks `servers` always-on for one session (`Some`) or for every
    /// session (`None`), replacing that list.
    pub async fn set_mcp_always_on(
        &self,
        session_id: Option<&str>,
        servers: &[String],
    ) -> Result<(), SessionError> {
        Ok(crate::activate::set_always_on(&self.inner.store, session_id, servers).await?)
    }

    /// Whether MCP servers may sample the session's model.
    pub async fn mcp_allow_sampling(&self) -> Result<bool, SessionError> {
        Ok(allow_sampling(&self.inner.store).await?)
    }

    /// Allows (or stops allowing) MCP servers to sample the session's model.
    pub async fn set_mcp_allow_sampling(&self, on: bool) -> Result<(), SessionError> {
        Ok(set_allow_sampling(&self.inner.store, on).await?)
    }

    /// Answers an elicitation: `Accept` with the form's `content` (an
    /// object), `Decline` or `Cancel`.
    pub async fn answer_elicitation(
        &self,
        tool_call_id: &str,
        action: ElicitationAction,
        content: Option<Value>,
    ) -> Result<(), SessionError> {
        let answer = match action {
            ElicitationAction::Accept => {
                json!({"action": "accept", "content": content.unwrap_or_else(|| json!({}))})
            }
            ElicitationAction::Decline => json!({"action": "decline"}),
            ElicitationAction::Cancel => json!({"action": "cancel"}),
        };
        self.answer_question(tool_call_id, &answer.to_string())
            .await
    }
}

/// Reads a stored answer: what `answer_elicitation` writes, a JSON object
/// (the content, from `skald answer ID '{…}'`), `decline`/`cancel`, or the
/// text for a form of one property.
pub fn parse_reply(answer: &str, schema: &Value) -> ElicitReply {
    let text = answer.trim();
    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(text) {
        return match o.get("action").and_then(Value::as_str) {
            Some("accept") => ElicitReply::Accept(o.get("content").cloned().unwrap_or(json!({}))),
            Some("decline") => ElicitReply::Decline,
            Some("cancel") => ElicitReply::Cancel,
            _ => ElicitReply::Accept(Value::Object(o)),
        };
    }
    match text.to_ascii_lowercase().as_str() {
        "decline" => return ElicitReply::Decline,
        "cancel" => return ElicitReply::Cancel,
        _ => {}
    }
    let props = schema["properties"].as_object();
    // A URL-mode elicitation has no fields: "done" says the person did it.
    if props.is_none_or(|p| p.is_empty())
        && matches!(text.to_ascii_lowercase().as_str(), "done" | "accept" | "ok")
    {
        return ElicitReply::Accept(json!({}));
    }
    match props.filter(|p| p.len() == 1).and_then(|p| p.iter().next()) {
        Some((name, def)) => ElicitReply::Accept(json!({ name.clone(): typed(text, def) })),
        // Free text cannot fill a form of several fields.
        None => ElicitReply::Decline,
    }
}

fn typed(text: &str, def: &Value) -> Value {
    match def["type"].as_str() {
        Some("number") => text.parse::<f64>().map(Value::from).unwrap_or(json!(text)),
        Some("integer") => text.parse::<i64>().map(Value::from).unwrap_or(json!(text)),
        Some("boolean") => match text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" => json!(true),
            "false" | "no" | "n" | "0" => json!(false),
            _ => json!(text),
        },
        _ => json!(text),
    }
}

/// Withdraws the question when the call stops waiting (Stop).
struct WithdrawOnDrop {
    store: Store,
    id: String,
    armed: bool,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (store, id) = (self.store.clone(), self.id.clone());
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = store.clarifications().withdraw(&id).await;
            });
        }
    }
}

async fn elicit(inner: Arc<Inner>, call_id: String, e: Elicitation) -> ElicitReply {
    let store = inner.store.clone();
    let session_id = match store.tool_calls().get(&call_id).await {
        Ok(Some(row)) => row.session_id,
        _ => {
            tracing::warn!(call = %call_id, "elicitation for an unknown call declined");
            return ElicitReply::Decline;
        }
    };
    let title = e.schema["title"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("{} asks", e.server));
    let new = NewClarification {
        tool_call_id: call_id.clone(),
        session_id,
        frame_id: None,
        agent_id: format!("mcp:{}", e.server),
        title,
        question: e.message.clone(),
        suggestions: Vec::new(),
    };
    let form = ElicitationRequest {
        server: e.server.clone(),
        schema: e.schema.clone(),
        property_order: e.property_order.clone(),
        url: e.url.clone(),
    };
    if let Err(err) = store.clarifications().ask_form(&new, &form).await {
        tracing::warn!(call = %call_id, error = %err, "elicitation not stored; declined");
        return ElicitReply::Decline;
    }
    inner.gate.waiting_changed();
    let mut guard = WithdrawOnDrop {
        store: store.clone(),
        id: call_id.clone(),
        armed: true,
    };
    loop {
        let woken = inner.questions.notified();
        match store.clarifications().get(&call_id).await {
            Ok(Some(r)) if r.status == "answered" => {
                guard.armed = false;
                return parse_reply(r.answer.as_deref().unwrap_or_default(), &e.schema);
            }
            Ok(Some(r)) if r.status == "withdrawn" => {
                guard.armed = false;
                return ElicitReply::Cancel;
            }
            Ok(None) => {
                guard.armed = false;
                return ElicitReply::Cancel;
            }
            _ => {}
        }
        tokio::select! {
            () = woken => {}
            () = tokio::time::sleep(POLL) => {}
        }
    }
}

/// Whether MCP servers may sample the session's model (`mcp.allow_sampling`;
/// off unless the person turned it on).
pub async fn allow_sampling(store: &Store) -> Result<bool, skald_store::StoreError> {
    Ok(store
        .settings()
        .get(ALLOW_SAMPLING_SETTING)
        .await?
        .is_some_and(|v| v == json!(true) || v == json!("true")))
}

/// Turns sampling by MCP servers on or off.
pub async fn set_allow_sampling(store: &Store, on: bool) -> Result<(), skald_store::StoreError> {
    store
        .settings()
        .set(ALLOW_SAMPLING_SETTING, &json!(on))
        .await
}

async fn working_dir(inner: &Inner, call_id: &str) -> Option<PathBuf> {
    let row = inner.store.tool_calls().get(call_id).await.ok()??;
    let session = inner.store.sessions().get(&row.session_id).await.ok()??;
    session.working_dir.map(PathBuf::from)
}

async fn sample(inner: Arc<Inner>, r: SamplingRequest) -> Result<SamplingReply, String> {
    if !allow_sampling(&inner.store).await.unwrap_or(false) {
        tracing::info!(server = %r.server, "MCP sampling request declined (not allowed)");
        return Err(SAMPLING_DECLINED.to_string());
    }
    let model = inner
        .providers
        .resolve(None)
        .await
        .map_err(|e| format!("no model to sample: {e}"))?;
    let req = ChatRequest {
        model: model.model.clone(),
        system: r.system,
        messages: r
            .messages
            .into_iter()
            .map(|(role, text)| match role.as_str() {
                "assistant" => Message::assistant(text),
                _ => Message::user(text),
            })
            .collect(),
        max_tokens: Some(r.max_tokens),
        ..ChatRequest::default()
    };
    let mut text = String::new();
    let mut stream = model.provider.stream(&req);
    while let Some(ev) = stream.next().await {
        match ev {
            Ok(StreamEvent::TextDelta(t)) => text.push_str(&t),
            Ok(_) => {}
            Err(e) => return Err(format!("sampling failed: {e}")),
        }
    }
    tracing::info!(server = %r.server, model = %model.model, "MCP sampling request answered");
    Ok(SamplingReply {
        model: model.model,
        text,
    })
}

impl ClientRequests for McpRequests {
    fn elicit(
        &self,
        call_id: Option<String>,
        request: Elicitation,
    ) -> BoxFuture<'static, ElicitReply> {
        let inner = self.inner.upgrade();
        let page = match (&request.url, &request.elicitation_id) {
            (Some(_), Some(eid)) => Some((request.server.clone(), eid.clone())),
            _ => None,
        };
        let pages = self.open_pages.clone();
        Box::pin(async move {
            match (inner, call_id) {
                (Some(inner), Some(id)) => {
                    let _open = page.map(|key| OpenPage::new(pages, key, id.clone()));
                    elicit(inner, id, request).await
                }
                _ => ElicitReply::Decline,
            }
        })
    }

    fn elicitation_complete(&self, server: &str, elicitation_id: &str) {
        let call = self
            .open_pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(server.to_string(), elicitation_id.to_string()))
            .cloned();
        let (Some(call), Some(inner)) = (call, self.inner.upgrade()) else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        rt.spawn(async move {
            match inner.questions.answer(&inner.store, &call, PAGE_DONE).await {
                Ok(true) => inner.gate.waiting_changed(),
                Ok(false) => {}
                Err(e) => tracing::warn!(call = %call, error = %e, "a finished page not recorded"),
            }
        });
    }

    fn roots(&self, call_id: Option<String>) -> BoxFuture<'static, Vec<PathBuf>> {
        let inner = self.inner.upgrade();
        let fallback = self.fallback_root.clone();
        Box::pin(async move {
            let dir = match (inner, call_id) {
                (Some(inner), Some(id)) => working_dir(&inner, &id).await,
                _ => None,
            };
            vec![dir.unwrap_or(fallback)]
        })
    }

    fn sample(
        &self,
        _call_id: Option<String>,
        request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingReply, String>> {
        let inner = self.inner.upgrade();
        Box::pin(async move {
            match inner {
                Some(inner) => sample(inner, request).await,
                None => Err(SAMPLING_DECLINED.to_string()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_from_the_ui_and_the_cli_are_read() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        assert_eq!(
            parse_reply(r#"{"action":"accept","content":{"name":"Ada"}}"#, &schema),
            ElicitReply::Accept(json!({"name": "Ada"}))
        );
        assert_eq!(
            parse_reply(r#"{"action":"decline"}"#, &schema),
            ElicitReply::Decline
        );
        assert_eq!(parse_reply("cancel", &schema), ElicitReply::Cancel);
        assert_eq!(
            parse_reply(r#"{"name":"Bo"}"#, &schema),
            ElicitReply::Accept(json!({"name": "Bo"}))
        );
        assert_eq!(
            parse_reply("Cy", &schema),
            ElicitReply::Accept(json!({"name": "Cy"}))
        );
        let two = json!({"properties": {"a": {"type": "integer"}, "b": {}}});
        assert_eq!(parse_reply("free text", &two), ElicitReply::Decline);
        let url_mode = json!({"type": "object", "properties": {}});
        assert_eq!(
            parse_reply("done", &url_mode),
            ElicitReply::Accept(json!({}))
        );
        assert_eq!(parse_reply("decline", &url_mode), ElicitReply::Decline);
        assert_eq!(parse_reply("done", &two), ElicitReply::Decline);
        let num = json!({"properties": {"n": {"type": "integer"}}});
        assert_eq!(
            parse_reply("42", &num),
            ElicitReply::Accept(json!({"n": 42}))
        );
    }
}
