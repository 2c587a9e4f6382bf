//! Crash resume from a simulated crash: the rows a killed process leaves
//! behind are written directly, then the handler resumes per restart hint.

use serde_json::json;
use skald_llm::{Message, ScriptedTurn};
use skald_protocol::TurnOutcome;
use skald_session::{RecordingSink, notes};
use skald_store::{FrameStatus, NewMessage, NewToolCall, Role, ToolCallStatus};

use crate::common::*;

/// A session as a crash mid-response leaves it: the user message, the
/// assistant message with three calls — `a` (get_ast_outline, Rerun) running,
/// `b` (execute_cmd, Reask) waiting for approval, `c` never started — and
/// the root frame still active when `active`.
async fn crashed(e: &Env, active: bool) -> String {
    std::fs::write(e.path("lib.rs"), "pub fn alpha() {}\n").unwrap();
    let sid = e.session().await;
    let frame = e.store.stack().top(&sid).await.unwrap().unwrap();
    if active {
        e.store
            .stack()
            .set_status(frame.id, FrameStatus::Active)
            .await
            .unwrap();
    }
    let msg = |role, content: &str, calls| NewMessage {
        session_id: sid.clone(),
        stack_id: Some(frame.id),
        role,
        content: content.into(),
        tool_calls: calls,
        tool_call_id: None,
    };
    e.store
        .history()
        .append(&msg(Role::User, "check things", None))
        .await
        .unwrap();
    let lib = e.path("lib.rs").to_string_lossy().into_owned();
    let w = e.workdir.to_string_lossy().into_owned();
    let a_args = json!({"path": lib}).to_string();
    let b_args = json!({"command": "echo b >> runs.txt", "workdir": w}).to_string();
    let calls = json!([
        {"id": "a", "name": "get_ast_outline", "arguments": a_args},
        {"id": "b", "name": "execute_cmd", "arguments": b_args},
        {"id": "c", "name": "read_file", "arguments": json!({"path": lib}).to_string()},
    ]);
    let assistant = e
        .store
        .history()
        .append(&msg(Role::Assistant, "", Some(calls)))
        .await
        .unwrap();
    for (id, name, args, status) in [
        ("a", "get_ast_outline", &a_args, ToolCallStatus::Running),
        ("b", "execute_cmd", &b_args, ToolCallStatus::Pending),
    ] {
        e.store
            .tool_calls()
            .insert(&NewToolCall {
                id: id.into(),
                session_id: sid.clone(),
                message_id: Some(assistant.id),
                name: name.into(),
                arguments: args.clone(),
                status,
            })
            .await
            .unwrap();
    }
    sid
}

fn assert_resumed_rows(rows: &[skald_store::ToolCallRow]) {
    assert_eq!(rows.len(), 3);
    assert_eq!(
        (rows[0].id.as_str(), rows[0].status.as_str()),
        ("a", "done")
    );
    assert!(rows[0].result.as_deref().unwrap().contains("alpha"));
    assert_eq!(
        (
            rows[1].id.as_str(),
            rows[1].status.as_str(),
            rows[1].result.as_deref()
        ),
        ("b", "cancelled", Some(notes::INTERRUPTED))
    );
    assert_eq!(
        (
            rows[2].id.as_str(),
            rows[2].status.as_str(),
            rows[2].result.as_deref()
        ),
        ("c", "cancelled", Some(notes::NOT_STARTED))
    );
    assert!(rows.iter().all(|r| r.finished_at.is_some()));
}

#[tokio::test]
async fn resume_all_reruns_rerun_tools_reports_reask_ones_and_answers_the_turn() {
    let e = env([ScriptedTurn::text_reply("All checked.")]).await;
    let sid = crashed(&e, true).await;
    let sink = RecordingSink::new();
    let resumed = e.handler.resume_all(None, &sink).await.unwrap();
    assert_eq!(resumed.len(), 1);
    let r = &resumed[0];
    assert_eq!(r.outcome, Some(TurnOutcome::Completed));
    assert_eq!(r.report.rerun, ["a"]);
    assert_eq!(r.report.interrupted, ["b"]);
    assert_eq!(r.report.not_started, ["c"]);
    assert!(r.report.needs_answer);

    assert_resumed_rows(&e.tool_rows(&sid).await);
    // The Reask command was not run.
    assert!(!e.path("runs.txt").exists());
    let hist = shape(&e.history_rows(&sid).await);
    let roles: Vec<&str> = hist.iter().map(|h| h.0.as_str()).collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool", "tool", "tool", "assistant"]
    );
    assert_eq!(hist[3].1, notes::INTERRUPTED);
    assert_eq!(hist[4].1, notes::NOT_STARTED);
    assert_eq!(hist[5].1, "All checked.");
    // The model was asked once, with every call answered in order.
    let req = e.request(0);
    let ids: Vec<&str> = req
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, .. } => Some(tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
    // The frame is idle again; a second resume does nothing.
    let frame = e.store.stack().top(&sid).await.unwrap().unwrap();
    assert_eq!(frame.status, FrameStatus::Waiting);
    assert!(e.handler.resume_all(None, &sink).await.unwrap().is_empty());
    assert_eq!(e.fake.requests().len(), 1);
}

#[tokio::test]
async fn resume_before_the_next_turn_repairs_history_first() {
    let e = env([ScriptedTurn::text_reply("Next answered.")]).await;
    let sid = crashed(&e, false).await;
    let outcome = e
        .handler
        .send_message(&sid, "next", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_resumed_rows(&e.tool_rows(&sid).await);
    let roles: Vec<String> = shape(&e.history_rows(&sid).await)
        .into_iter()
        .map(|h| h.0)
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "tool",
            "tool",
            "user",
            "assistant"
        ]
    );
    assert!(!e.path("runs.txt").exists());
}

#[tokio::test]
async fn resume_pending_tools_alone_runs_no_llm_round() {
    let e = env([]).await;
    let sid = crashed(&e, false).await;
    let report = e
        .handler
        .resume_pending_tools(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(report.rerun, ["a"]);
    assert!(report.needs_answer);
    assert!(e.fake.requests().is_empty());
    assert_resumed_rows(&e.tool_rows(&sid).await);
    // Idempotent.
    let again = e
        .handler
        .resume_pending_tools(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert!(again.is_empty(), "{again:?}");
    assert_eq!(e.history_rows(&sid).await.len(), 5);
}

#[tokio::test]
async fn a_finished_call_missing_its_message_is_repaired_from_the_row() {
    let e = env([]).await;
    let sid = e.session().await;
    let frame = e.store.stack().top(&sid).await.unwrap().unwrap();
    let m = e
        .store
        .history()
        .append(&NewMessage {
            session_id: sid.clone(),
            stack_id: Some(frame.id),
            role: Role::Assistant,
            content: String::new(),
            tool_calls: Some(json!([
                {"id": "d", "name": "read_file", "arguments": "{}"},
                {"id": "f", "name": "read_file", "arguments": "{}"}
            ])),
            tool_call_id: None,
        })
        .await
        .unwrap();
    for (id, status, result) in [
        ("d", ToolCallStatus::Done, "the output"),
        ("f", ToolCallStatus::Failed, "Error: it broke"),
    ] {
        e.store
            .tool_calls()
            .insert(&NewToolCall {
                id: id.into(),
                session_id: sid.clone(),
                message_id: Some(m.id),
                name: "read_file".into(),
                arguments: "{}".into(),
                status: ToolCallStatus::Running,
            })
            .await
            .unwrap();
        e.store
            .tool_calls()
            .finish(id, status, Some(result), None)
            .await
            .unwrap();
    }
    let report = e
        .handler
        .resume_pending_tools(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(report.repaired, ["d", "f"]);
    let hist = shape(&e.history_rows(&sid).await);
    assert_eq!(
        hist[1],
        ("tool".into(), "the output".into(), Some("d".into()))
    );
    assert_eq!(
        hist[2],
        ("tool".into(), "Error: it broke".into(), Some("f".into()))
    );
}

#[tokio::test]
async fn an_unanswered_trailing_user_message_is_answered_on_resume() {
    let e = env([ScriptedTurn::text_reply("Sorry for the wait.")]).await;
    let sid = e.session().await;
    let frame = e.store.stack().top(&sid).await.unwrap().unwrap();
    e.store
        .stack()
        .set_status(frame.id, FrameStatus::Active)
        .await
        .unwrap();
    e.store
        .history()
        .append(&NewMessage {
            session_id: sid.clone(),
            stack_id: Some(frame.id),
            role: Role::User,
            content: "hello?".into(),
            tool_calls: None,
            tool_call_id: None,
        })
        .await
        .unwrap();
    let resumed = e
        .handler
        .resume_all(None, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(resumed[0].outcome, Some(TurnOutcome::Completed));
    let contents: Vec<String> = shape(&e.history_rows(&sid).await)
        .into_iter()
        .map(|h| h.1)
        .collect();
    assert_eq!(contents, ["hello?", "Sorry for the wait."]);
}

struct NoProvider;

impl skald_session::ProviderResolver for NoProvider {
    fn resolve<'a>(
        &'a self,
        _model: Option<&'a str>,
    ) -> skald_core_api::BoxFuture<
        'a,
        Result<skald_session::ResolvedModel, skald_session::SessionError>,
    > {
        Box::pin(async {
            Err(skald_session::SessionError::NoProvider(
                "none in this test".into(),
            ))
        })
    }
}

#[tokio::test]
async fn without_a_provider_resume_settles_the_calls_and_answers_later() {
    let e = env([ScriptedTurn::text_reply("Now answered.")]).await;
    let sid = crashed(&e, true).await;
    let agents = e.dir.path().canonicalize().unwrap().join("agents");
    let registry = std::sync::Arc::new(skald_tools::builtin_registry(&Default::default()));
    let offline = skald_session::ChatSessionHandler::new(
        e.store.clone(),
        registry,
        std::sync::Arc::new(NoProvider),
        agents,
    );
    let resumed = offline
        .resume_all(None, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(resumed.len(), 1);
    assert_eq!(resumed[0].outcome, None);
    assert_eq!(resumed[0].report.rerun, ["a"]);
    assert_resumed_rows(&e.tool_rows(&sid).await);
    // The frame is still active: the next start (with a provider) answers.
    let resumed = e
        .handler
        .resume_all(None, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(resumed[0].outcome, Some(TurnOutcome::Completed));
    assert!(resumed[0].report.is_empty());
    let last = e.history_rows(&sid).await.pop().unwrap();
    assert_eq!(last.content, "Now answered.");
    // Calls were settled once: a still ran a single time.
    assert_eq!(e.tool_rows(&sid).await.len(), 3);
}
