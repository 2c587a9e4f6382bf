//! An MCP server's progress reaches the session's event stream: the real
//! `@modelcontextprotocol/server-everything` (installed by .ci/setup.sh into
//! `$SKALD_MCP_SERVERS`) runs its long-running operation as a model's call.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use skald_llm::ScriptedTurn;
use skald_mcp::{McpManager, McpSource, ServerConfig, Transport};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::RecordingSink;

use crate::common::*;

fn everything() -> ServerConfig {
    let root = std::env::var_os("SKALD_MCP_SERVERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/skald-mcp-servers")
        });
    let js = root.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        js.is_file(),
        "{} is missing: run .ci/setup.sh",
        js.display()
    );
    node_server("everything", &js, "stdio")
}

/// A server run by `node SCRIPT ARG`, with the tests' 30 s timeout.
fn node_server(name: &str, js: &std::path::Path, arg: &str) -> ServerConfig {
    ServerConfig::new(
        name,
        Transport::Stdio {
            command: "node".into(),
            args: vec![js.display().to_string(), arg.into()],
            env: Default::default(),
            cwd: None,
        },
    )
    .with_timeout(Duration::from_secs(30))
}

#[tokio::test]
async fn mcp_progress_notifications_reach_the_event_stream_before_the_result() {
    let name = "mcp__everything__trigger-long-running-operation";
    let e = env([
        ScriptedTurn::tool_reply("m1", name, json!({"duration": 1.2, "steps": 4}).to_string()),
        ScriptedTurn::text_reply("Done."),
    ])
    .await;
    let m = McpManager::new(None, None);
    m.put(everything());
    m.wait_ready("everything").await.unwrap();
    let handler = e
        .handler
        .clone()
        .with_tool_source(Arc::new(McpSource::new(m.clone())));
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = handler.send_message(&sid, "go", &sink).await.unwrap();
    m.shutdown();
    assert_eq!(outcome, TurnOutcome::Completed);
    let events = sink.events();
    let done = events
        .iter()
        .position(
            |ev| matches!(ev, SessionEvent::ToolDone { tool_call_id, .. } if tool_call_id == "m1"),
        )
        .unwrap_or_else(|| panic!("{events:?}"));
    let progress: Vec<(Option<f64>, Option<f64>)> = events[..done]
        .iter()
        .filter_map(|ev| match ev {
            SessionEvent::ToolProgress {
                tool_call_id,
                progress,
                total,
                ..
            } if tool_call_id == "m1" => Some((*progress, *total)),
            _ => None,
        })
        .collect();
    assert!(progress.len() >= 2, "{progress:?}");
    assert!(
        progress.iter().all(|(_, t)| *t == Some(4.0)),
        "{progress:?}"
    );
}

/// A session whose MCP servers' requests go to the handler.
async fn with_everything(
    turns: impl IntoIterator<Item = ScriptedTurn>,
) -> (Env, McpManager, skald_session::ChatSessionHandler) {
    let e = env(turns).await;
    let m = McpManager::new(None, None);
    m.set_requests(e.handler.mcp_requests(e.workdir.clone()));
    m.put(everything());
    m.wait_ready("everything").await.unwrap();
    let handler = e
        .handler
        .clone()
        .with_tool_source(Arc::new(McpSource::new(m.clone())));
    (e, m, handler)
}

/// Waits for the pending question of call `id`.
async fn question_of(
    h: &skald_session::ChatSessionHandler,
    id: &str,
) -> skald_protocol::PendingQuestionView {
    for _ in 0..300 {
        if let Some(q) = h
            .pending_questions()
            .await
            .unwrap()
            .into_iter()
            .find(|q| q.tool_call_id == id)
        {
            return q;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no question for {id}");
}

#[tokio::test]
async fn an_mcp_elicitation_is_a_question_of_the_call_with_its_schema_and_the_form_answers_it() {
    let name = "mcp__everything__trigger-elicitation-request";
    let (e, m, handler) = with_everything([
        ScriptedTurn::tool_reply("e1", name, "{}"),
        ScriptedTurn::text_reply("Thanks."),
    ])
    .await;
    let sid = e.session().await;
    let h = handler.clone();
    let (s2, sink) = (sid.clone(), RecordingSink::new());
    let turn = tokio::spawn(async move { h.send_message(&s2, "go", &sink).await });
    let q = question_of(&handler, "e1").await;
    assert_eq!(q.session_id, sid);
    assert_eq!(q.server.as_deref(), Some("everything"));
    let schema = q.schema.clone().expect("an elicitation carries its schema");
    assert_eq!(schema["properties"]["name"]["type"], "string");
    // The fields in the server's order, through the store to the view.
    let order = q.property_order.clone().expect("the server's field order");
    assert_eq!(
        order[..4],
        ["name", "check", "firstLine", "email"],
        "{order:?}"
    );
    assert_eq!(q.url, None);
    assert!(q.question.contains("Please provide inputs"), "{q:?}");
    handler
        .answer_elicitation(
            "e1",
            skald_protocol::ElicitationAction::Accept,
            Some(json!({"name": "Grace Hopper", "check": true})),
        )
        .await
        .unwrap();
    assert_eq!(turn.await.unwrap().unwrap(), TurnOutcome::Completed);
    m.shutdown();
    let rows = e.tool_rows(&sid).await;
    let row = rows.iter().find(|r| r.id == "e1").unwrap();
    let result = row.result.clone().unwrap_or_default();
    assert!(result.contains("Grace Hopper"), "{result}");
    assert!(handler.pending_questions().await.unwrap().is_empty());
}

#[tokio::test]
async fn an_elicitation_answered_decline_from_the_cli_text_reaches_the_server() {
    let name = "mcp__everything__trigger-elicitation-request";
    let (e, m, handler) = with_everything([
        ScriptedTurn::tool_reply("e2", name, "{}"),
        ScriptedTurn::text_reply("ok"),
    ])
    .await;
    let sid = e.session().await;
    let h = handler.clone();
    let s2 = sid.clone();
    let turn = tokio::spawn(async move { h.send_message(&s2, "go", &RecordingSink::new()).await });
    question_of(&handler, "e2").await;
    // What `skald answer e2 decline` stores.
    handler.answer_question("e2", "decline").await.unwrap();
    assert_eq!(turn.await.unwrap().unwrap(), TurnOutcome::Completed);
    m.shutdown();
    let rows = e.tool_rows(&sid).await;
    let result = rows
        .iter()
        .find(|r| r.id == "e2")
        .and_then(|r| r.result.clone())
        .unwrap_or_default()
        .to_lowercase();
    assert!(result.contains("decline"), "{result}");
}

#[tokio::test]
async fn the_roots_of_an_mcp_call_are_its_sessions_working_directory() {
    let name = "mcp__everything__get-roots-list";
    let (e, m, handler) = with_everything([
        ScriptedTurn::tool_reply("r1", name, "{}"),
        ScriptedTurn::text_reply("ok"),
    ])
    .await;
    let sid = e.session().await;
    handler
        .send_message(&sid, "go", &RecordingSink::new())
        .await
        .unwrap();
    m.shutdown();
    let result = e
        .tool_rows(&sid)
        .await
        .iter()
        .find(|r| r.id == "r1")
        .and_then(|r| r.result.clone())
        .unwrap_or_default();
    let uri = format!("file://{}", e.workdir.display());
    assert!(result.contains(&uri), "{uri} not in {result}");
}

#[tokio::test]
async fn mcp_sampling_is_declined_unless_the_setting_allows_it_then_the_sessions_model_answers() {
    let name = "mcp__everything__trigger-sampling-request";
    let args = json!({"prompt": "hi", "maxTokens": 10}).to_string();
    let (e, m, handler) = with_everything([
        ScriptedTurn::tool_reply("s1", name, args.clone()),
        ScriptedTurn::text_reply("ok"),
        ScriptedTurn::tool_reply("s2", name, args),
        // The server's sampling request, answered by the session's model.
        ScriptedTurn::text_reply("sampled words"),
        ScriptedTurn::text_reply("ok"),
    ])
    .await;
    let sid = e.session().await;
    handler
        .send_message(&sid, "first", &RecordingSink::new())
        .await
        .unwrap();
    e.store
        .settings()
        .set(skald_session::ALLOW_SAMPLING_SETTING, &json!(true))
        .await
        .unwrap();
    handler
        .send_message(&sid, "second", &RecordingSink::new())
        .await
        .unwrap();
    m.shutdown();
    let rows = e.tool_rows(&sid).await;
    let text = |id: &str| {
        rows.iter()
            .find(|r| r.id == id)
            .and_then(|r| r.result.clone())
            .unwrap_or_default()
    };
    assert!(text("s1").contains("declines sampling"), "{}", text("s1"));
    assert!(text("s2").contains("sampled words"), "{}", text("s2"));
}

/// The test server of skald-mcp that misbehaves on purpose; its `link` tool
/// asks for a page (URL mode) and says it is done on its own.
fn misbehave() -> ServerConfig {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/misbehave.mjs");
    node_server("mis", &js, "ok")
}

#[tokio::test]
async fn a_page_the_server_says_is_done_closes_its_question_without_the_person() {
    let e = env([
        ScriptedTurn::tool_reply("l1", "mcp__mis__link", json!({"ms": 800}).to_string()),
        ScriptedTurn::text_reply("Linked."),
    ])
    .await;
    let m = McpManager::new(None, None);
    m.set_requests(e.handler.mcp_requests(e.workdir.clone()));
    m.put(misbehave());
    m.wait_ready("mis").await.unwrap();
    let handler = e
        .handler
        .clone()
        .with_tool_source(Arc::new(McpSource::new(m.clone())));
    let sid = e.session().await;
    let h = handler.clone();
    let s2 = sid.clone();
    let turn = tokio::spawn(async move { h.send_message(&s2, "go", &RecordingSink::new()).await });
    // Asked as any page is: a card with the link, waiting for Done.
    let q = question_of(&handler, "l1").await;
    assert_eq!(q.url.as_deref(), Some("https://example.com/link"));
    // Nobody answers: the server's notifications/elicitation/complete does.
    let outcome = tokio::time::timeout(Duration::from_secs(20), turn)
        .await
        .expect("the turn ends once the server says the page is done")
        .unwrap()
        .unwrap();
    m.shutdown();
    assert_eq!(outcome, TurnOutcome::Completed);
    let rows = e.tool_rows(&sid).await;
    let result = rows
        .iter()
        .find(|r| r.id == "l1")
        .and_then(|r| r.result.clone())
        .unwrap_or_default();
    assert!(result.contains("linked: accept"), "{result}");
    assert!(handler.pending_questions().await.unwrap().is_empty());
}
