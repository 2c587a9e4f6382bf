//! Server-initiated requests against the real `@modelcontextprotocol/server-everything`
//! (its `trigger-elicitation-request`, `get-roots-list` and
//! `trigger-sampling-request` tools): routed to the host with the call
//! that caused them, and the host's answer reaching the server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{node, npm_server};
use serde_json::json;
use skald_core_api::{BoxFuture, scope_call};
use skald_mcp::{
    ClientRequests, ElicitReply, Elicitation, McpManager, SAMPLING_DECLINED, SamplingReply,
    SamplingRequest, ServerConfig,
};

/// Answers as scripted and records what it was asked, with the call id.
#[derive(Default)]
struct Host {
    reply: Mutex<Option<ElicitReply>>,
    sample: Mutex<Option<Result<SamplingReply, String>>>,
    root: PathBuf,
    elicited: Mutex<Vec<(Option<String>, Elicitation)>>,
    sampled: Mutex<Vec<(Option<String>, SamplingRequest)>>,
    roots_asked: Mutex<Vec<Option<String>>>,
}

impl ClientRequests for Host {
    fn elicit(
        &self,
        call_id: Option<String>,
        request: Elicitation,
    ) -> BoxFuture<'static, ElicitReply> {
        self.elicited.lock().unwrap().push((call_id, request));
        let r = self
            .reply
            .lock()
            .unwrap()
            .clone()
            .unwrap_or(ElicitReply::Cancel);
        Box::pin(async move { r })
    }
    fn roots(&self, call_id: Option<String>) -> BoxFuture<'static, Vec<PathBuf>> {
        self.roots_asked.lock().unwrap().push(call_id);
        let r = self.root.clone();
        Box::pin(async move { vec![r] })
    }
    fn sample(
        &self,
        call_id: Option<String>,
        request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingReply, String>> {
        self.sampled.lock().unwrap().push((call_id, request));
        let r = self
            .sample
            .lock()
            .unwrap()
            .clone()
            .unwrap_or(Err(SAMPLING_DECLINED.into()));
        Box::pin(async move { r })
    }
}

async fn everything(host: Arc<Host>) -> McpManager {
    let js = npm_server("server-everything").display().to_string();
    let m = McpManager::new(None, None);
    m.set_requests(host);
    m.put(
        ServerConfig::new("everything", node(vec![js, "stdio".into()]))
            .with_timeout(Duration::from_secs(30)),
    );
    m.wait_ready("everything").await.unwrap();
    m
}

#[tokio::test]
async fn an_elicitation_reaches_the_host_with_its_call_and_schema_and_the_answer_the_server() {
    let host = Arc::new(Host::default());
    *host.reply.lock().unwrap() = Some(ElicitReply::Accept(json!({
        "name": "Ada Lovelace", "check": true, "integer": 7
    })));
    let m = everything(host.clone()).await;
    let names: Vec<String> = m.tools("everything").into_iter().map(|t| t.0).collect();
    assert!(
        names.iter().any(|n| n == "trigger-elicitation-request"),
        "the server did not see the elicitation capability: {names:?}"
    );
    let out = scope_call(
        "call-7".into(),
        m.call("everything", "trigger-elicitation-request", json!({})),
    )
    .await
    .unwrap();
    let text = out.text_for_model(false);
    assert!(text.contains("Ada Lovelace"), "{text}");
    let asked = host.elicited.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].0.as_deref(), Some("call-7"));
    assert_eq!(asked[0].1.server, "everything");
    assert_eq!(asked[0].1.schema["type"], "object");
    assert_eq!(asked[0].1.schema["properties"]["name"]["type"], "string");
    // The fields in the server's order, not the alphabetical one of a Value.
    assert_eq!(
        asked[0].1.property_order[..6],
        [
            "name",
            "check",
            "firstLine",
            "email",
            "homepage",
            "birthdate"
        ]
    );
    assert_eq!(
        asked[0].1.property_order.len(),
        asked[0].1.schema["properties"].as_object().unwrap().len()
    );
    assert_eq!(asked[0].1.url, None);

    // Decline reaches the server as a decline.
    *host.reply.lock().unwrap() = Some(ElicitReply::Decline);
    let out = scope_call(
        "call-8".into(),
        m.call("everything", "trigger-elicitation-request", json!({})),
    )
    .await
    .unwrap();
    let text = out.text_for_model(false).to_lowercase();
    assert!(text.contains("decline"), "{text}");
    assert!(!text.contains("ada lovelace"), "{text}");
    m.shutdown();
}

#[tokio::test]
async fn outside_a_call_an_elicitation_is_declined_without_asking() {
    let host = Arc::new(Host::default());
    *host.reply.lock().unwrap() = Some(ElicitReply::Accept(json!({"name": "x"})));
    let m = everything(host.clone()).await;
    // `skald tool run` has no session call: nobody to ask.
    let out = m
        .call("everything", "trigger-elicitation-request", json!({}))
        .await
        .unwrap();
    assert!(out.text_for_model(false).to_lowercase().contains("decline"));
    assert!(host.elicited.lock().unwrap().is_empty());
    m.shutdown();
}

#[tokio::test]
async fn the_roots_are_what_the_host_gives_for_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let host = Arc::new(Host {
        root: dir.path().to_path_buf(),
        ..Host::default()
    });
    let m = everything(host.clone()).await;
    let out = scope_call(
        "call-r".into(),
        m.call("everything", "get-roots-list", json!({})),
    )
    .await
    .unwrap();
    let text = out.text_for_model(false);
    let uri = format!("file://{}", dir.path().display());
    assert!(text.contains(&uri), "{uri} not in {text}");
    assert!(!host.roots_asked.lock().unwrap().is_empty());
    m.shutdown();
}

#[tokio::test]
async fn sampling_is_declined_with_the_reason_or_answered_by_the_host() {
    let host = Arc::new(Host::default());
    let m = everything(host.clone()).await;
    let args = json!({"prompt": "say hi", "maxTokens": 20});
    let declined = scope_call(
        "call-s".into(),
        m.call("everything", "trigger-sampling-request", args.clone()),
    )
    .await;
    let msg = match declined {
        Ok(out) => out.text_for_model(false),
        Err(e) => e.to_string(),
    };
    assert!(msg.contains("declines sampling"), "{msg}");

    *host.sample.lock().unwrap() = Some(Ok(SamplingReply {
        model: "test-model".into(),
        text: "hello from the model".into(),
    }));
    let out = scope_call(
        "call-t".into(),
        m.call("everything", "trigger-sampling-request", args),
    )
    .await
    .unwrap();
    let text = out.text_for_model(false);
    assert!(text.contains("hello from the model"), "{text}");
    assert!(text.contains("test-model"), "{text}");
    let sampled = host.sampled.lock().unwrap().clone();
    assert_eq!(sampled.len(), 2);
    assert_eq!(sampled[1].0.as_deref(), Some("call-t"));
    assert_eq!(
        sampled[1].1.system.as_deref(),
        Some("You are a helpful test server.")
    );
    let (role, text): &(String, String) = &sampled[1].1.messages[0];
    assert_eq!(role, "user");
    assert!(text.contains("say hi"), "{text}");
    m.shutdown();
}

#[tokio::test]
async fn a_url_elicitation_reaches_the_host_with_its_page_and_done_reaches_the_server() {
    let host = Arc::new(Host::default());
    *host.reply.lock().unwrap() = Some(ElicitReply::Accept(json!({})));
    let m = everything(host.clone()).await;
    // The server offers the tool only to a client that declares URL mode.
    let names: Vec<String> = m.tools("everything").into_iter().map(|t| t.0).collect();
    assert!(
        names.iter().any(|n| n == "trigger-url-elicitation"),
        "URL mode not declared: {names:?}"
    );
    let args = json!({"url": "https://example.com/connect", "message": "Link your account"});
    let out = scope_call(
        "call-u".into(),
        m.call("everything", "trigger-url-elicitation", args.clone()),
    )
    .await
    .unwrap();
    let text = out.text_for_model(false);
    assert!(text.contains("completed the URL elicitation"), "{text}");
    let asked = host.elicited.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].0.as_deref(), Some("call-u"));
    assert_eq!(
        asked[0].1.url.as_deref(),
        Some("https://example.com/connect")
    );
    assert_eq!(asked[0].1.message, "Link your account");

    *host.reply.lock().unwrap() = Some(ElicitReply::Decline);
    let out = scope_call(
        "call-v".into(),
        m.call("everything", "trigger-url-elicitation", args),
    )
    .await
    .unwrap();
    let text = out.text_for_model(false);
    assert!(text.contains("declined to open the URL"), "{text}");
    m.shutdown();
}

#[tokio::test]
async fn a_call_refused_with_32042_asks_for_its_page_then_runs_again_once() {
    let host = Arc::new(Host::default());
    *host.reply.lock().unwrap() = Some(ElicitReply::Accept(json!({})));
    let m = everything(host.clone()).await;
    // The error path: the first call is refused with -32042 naming a
    // prerequisite page; the retry goes on to the tool's own URL request.
    let args = json!({"url": "https://example.com/connect", "message": "Link your account", "errorPath": true});
    let out = scope_call(
        "call-e".into(),
        m.call("everything", "trigger-url-elicitation", args),
    )
    .await
    .unwrap();
    let text = out.text_for_model(false);
    assert!(text.contains("completed the URL elicitation"), "{text}");
    let asked = host.elicited.lock().unwrap().clone();
    let urls: Vec<_> = asked.iter().map(|a| a.1.url.clone().unwrap()).collect();
    assert_eq!(
        urls,
        [
            "https://modelcontextprotocol.io/",
            "https://example.com/connect"
        ],
        "the prerequisite page first, then the tool's own"
    );
    assert!(
        asked.iter().all(|a| a.0.as_deref() == Some("call-e")),
        "routed to the call that was refused"
    );
    assert!(
        asked[0].1.message.contains("prerequisite"),
        "{}",
        asked[0].1.message
    );
    m.shutdown();
}

#[tokio::test]
async fn a_declined_32042_page_fails_the_call_naming_the_page() {
    let host = Arc::new(Host::default());
    *host.reply.lock().unwrap() = Some(ElicitReply::Decline);
    let m = everything(host.clone()).await;
    let args = json!({"url": "https://example.com/other", "errorPath": true, "elicitationId": "declined-1"});
    let err = scope_call(
        "call-d".into(),
        m.call("everything", "trigger-url-elicitation", args),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(err.contains("https://modelcontextprotocol.io"), "{err}");
    assert!(err.contains("you declined"), "{err}");
    assert_eq!(
        host.elicited.lock().unwrap().len(),
        1,
        "asked once, not retried"
    );
    m.shutdown();
}

#[tokio::test]
async fn without_a_host_a_32042_refusal_says_which_page_to_open() {
    let js = npm_server("server-everything").display().to_string();
    let m = McpManager::new(None, None);
    m.put(
        ServerConfig::new("everything", node(vec![js, "stdio".into()]))
            .with_timeout(Duration::from_secs(30)),
    );
    m.wait_ready("everything").await.unwrap();
    let args =
        json!({"url": "https://example.com/x", "errorPath": true, "elicitationId": "nohost"});
    let err = m
        .call("everything", "trigger-url-elicitation", args)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("needs you to open https://modelcontextprotocol.io"),
        "{err}"
    );
    assert!(err.contains("run the call again"), "{err}");
    m.shutdown();
}
