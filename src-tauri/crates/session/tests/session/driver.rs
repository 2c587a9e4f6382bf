//! The turn loop with the scripted provider and real tools: what is stored,
//! what the model is told, what is emitted.

use serde_json::json;
use skald_llm::{Message, ScriptedTurn, StopReason};
use skald_protocol::{ChatRole, SessionEvent, ToolCallStatus, TurnOutcome};
use skald_session::{HandlerConfig, RecordingSink, SessionError};
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::*;

#[tokio::test]
async fn text_only_turn() {
    let e = env([ScriptedTurn::new()
        .text("Hel")
        .text("lo!")
        .usage(12, 3)
        .done(StopReason::EndTurn)])
    .await;
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = e
        .handler
        .send_message(&sid, "Hi there", &sink)
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    let rows = e.history_rows(&sid).await;
    assert_eq!(
        shape(&rows),
        vec![
            ("user".into(), "Hi there".into(), None),
            ("assistant".into(), "Hello!".into(), None)
        ]
    );
    assert!(
        rows.iter().all(|r| r.stack_id.is_some()),
        "messages belong to the root frame"
    );
    assert!(e.tool_rows(&sid).await.is_empty());

    let events = sink.events();
    assert!(matches!(
        events.first(),
        Some(SessionEvent::TurnStarted { .. })
    ));
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|ev| match ev {
            SessionEvent::TokenDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["Hel", "lo!"]);
    assert!(matches!(
        events.last(),
        Some(SessionEvent::TurnEnded {
            outcome: TurnOutcome::Completed,
            ..
        })
    ));

    // The request: system prompt with its include expanded, then where the
    // agent runs (directory, OS, today), tools, the message.
    let req = e.request(0);
    assert_eq!(req.model, "test-model");
    let system = req.system.as_deref().unwrap();
    let (prompt, environment) = system.split_once("\n\n<environment>\n").unwrap();
    assert_eq!(prompt, "You are a test agent.\nAnswer briefly.");
    assert!(
        environment.contains(&format!("Working directory: {}\n", e.workdir.display())),
        "{system}"
    );
    assert!(
        environment.contains(&format!("Operating system: {}", std::env::consts::OS)),
        "{system}"
    );
    let today = chrono::Local::now()
        .date_naive()
        .format("%Y-%m-%d")
        .to_string();
    assert!(
        environment.contains(&format!("Today's date: {today} (")),
        "{system}"
    );
    assert!(environment.ends_with("</environment>"), "{system}");
    assert_eq!(req.messages, vec![Message::user("Hi there")]);
    assert!(req.tools.iter().any(|t| t.name == "execute_cmd"));

    // The session got a title and shows in the list; history reads back.
    let list = e.handler.list_sessions().await.unwrap();
    assert_eq!(list[0].title, "Hi there");
    let h = e.handler.history(&sid).await.unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h[1].role, ChatRole::Assistant);
    assert_eq!(h[1].content, "Hello!");
}

#[tokio::test]
async fn tool_round_runs_the_tool_and_feeds_the_result_back() {
    let e = env([
        ScriptedTurn::new()
            .text("Let me look.")
            .tool_call(0, "call_read", "read_file", r#"{"path": "notes.txt"}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::text_reply("It says hello."),
    ])
    .await;
    std::fs::write(e.path("notes.txt"), "hello\n").unwrap();
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = e
        .handler
        .send_message(&sid, "Read notes.txt", &sink)
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    let tools = e.tool_rows(&sid).await;
    assert_eq!(tools.len(), 1);
    let row = &tools[0];
    assert_eq!(
        (row.id.as_str(), row.name.as_str()),
        ("call_read", "read_file")
    );
    assert_eq!(row.status.as_str(), "done");
    assert!(row.finished_at.is_some());
    // Effective arguments are persisted: the path made absolute.
    let args: serde_json::Value = serde_json::from_str(&row.arguments).unwrap();
    assert_eq!(args["path"], json!(e.path("notes.txt").to_string_lossy()));
    let result = row.result.clone().unwrap();
    assert!(result.contains("hello"), "{result}");

    let rows = e.history_rows(&sid).await;
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[2].role.as_str(), "tool");
    assert_eq!(rows[2].tool_call_id.as_deref(), Some("call_read"));
    assert_eq!(rows[2].content, result);
    assert_eq!(rows[1].content, "Let me look.");
    assert_eq!(row.message_id, Some(rows[1].id));

    // The second request carries the call and its result.
    let req = e.request(1);
    assert_eq!(req.messages.len(), 3);
    assert_eq!(tool_content(last_message(&req)), result);

    // ToolStart has labels and the clickable path.
    let start = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } => Some(call),
            _ => None,
        })
        .unwrap();
    assert_eq!(start.id, "call_read");
    // Relative to the session's working directory (a temp dir, not the
    // process's), though the stored arguments are absolute.
    assert_eq!(start.label_short, "read_file notes.txt");
    assert_eq!(start.label_full, "read_file notes.txt");
    assert!(start.path.as_deref().unwrap().ends_with("notes.txt"));
    assert_eq!(start.status, ToolCallStatus::Running);
    assert!(has_event(
        &sink,
        |ev| matches!(ev, SessionEvent::ToolDone { tool_call_id, .. } if tool_call_id == "call_read")
    ));

    // History cards come back from the DB.
    let h = e.handler.history(&sid).await.unwrap();
    assert_eq!(h[1].tool_calls.len(), 1);
    assert_eq!(h[1].tool_calls[0].status, ToolCallStatus::Done);
    assert_eq!(h[1].tool_calls[0].result.as_deref(), Some(result.as_str()));
    assert_eq!(h[1].tool_calls[0].label_short, "read_file notes.txt");
}

#[tokio::test]
async fn several_rounds() {
    let e = env([
        ScriptedTurn::tool_reply("r1", "execute_cmd", r#"{"command": "echo one"}"#),
        ScriptedTurn::tool_reply("r2", "execute_cmd", r#"{"command": "echo two"}"#),
        ScriptedTurn::tool_reply("r3", "execute_cmd", r#"{"command": "echo three"}"#),
        ScriptedTurn::text_reply("one two three"),
    ])
    .await;
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "count", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_eq!(e.fake.requests().len(), 4);
    let roles: Vec<String> = shape(&e.history_rows(&sid).await)
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    let req = e.request(3);
    assert_eq!(req.messages.len(), 7);
    assert!(tool_content(last_message(&req)).contains("three"));
    // Each round's request is assembled from the DB and grows by two.
    for (i, n) in [1, 3, 5, 7].into_iter().enumerate() {
        assert_eq!(e.request(i).messages.len(), n);
    }
}

#[tokio::test]
async fn several_calls_in_one_response_run_in_order() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(
                0,
                "c_a",
                "execute_cmd",
                r#"{"command": "echo a >> order.txt"}"#,
            )
            .tool_call(1, "c_b", "read_file", r#"{"path": "order.txt"}"#)
            .tool_call(2, "c_c", "get_ast_outline", r#"{"path": "lib.rs"}"#)
            .tool_call(
                3,
                "c_d",
                "execute_cmd",
                r#"{"command": "echo d >> order.txt"}"#,
            )
            .done(StopReason::ToolUse),
        ScriptedTurn::text_reply("done"),
    ])
    .await;
    std::fs::write(e.path("lib.rs"), "pub fn alpha() {}\npub struct Beta;\n").unwrap();
    let sid = e.session().await;
    let sink = RecordingSink::new();
    e.handler.send_message(&sid, "go", &sink).await.unwrap();

    let ids: Vec<String> = e.tool_rows(&sid).await.into_iter().map(|r| r.id).collect();
    assert_eq!(ids, ["c_a", "c_b", "c_c", "c_d"]);
    assert_eq!(
        std::fs::read_to_string(e.path("order.txt")).unwrap(),
        "a\nd\n"
    );
    let answered: Vec<Option<String>> = e
        .history_rows(&sid)
        .await
        .into_iter()
        .filter(|r| r.role.as_str() == "tool")
        .map(|r| r.tool_call_id)
        .collect();
    assert_eq!(
        answered,
        [
            Some("c_a".into()),
            Some("c_b".into()),
            Some("c_c".into()),
            Some("c_d".into())
        ]
    );
    // b read what a wrote (a had finished before b started).
    let req = e.request(1);
    let tool_msgs: Vec<&str> = req
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert!(tool_msgs[1].contains('a'), "{}", tool_msgs[1]);
    assert!(tool_msgs[2].contains("alpha"), "{}", tool_msgs[2]);
    // Events alternate start/done per call, in order.
    let seq: Vec<String> = sink
        .events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } => Some(format!("start {}", call.id)),
            SessionEvent::ToolDone { tool_call_id, .. } => Some(format!("done {tool_call_id}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        seq,
        [
            "start c_a",
            "done c_a",
            "start c_b",
            "done c_b",
            "start c_c",
            "done c_c",
            "start c_d",
            "done c_d"
        ]
    );
}

#[tokio::test]
async fn round_limit_is_reached() {
    let e = env_with(
        builtin_registry(&BuiltinDeps::default()),
        (0..5).map(|i| {
            ScriptedTurn::tool_reply(format!("l{i}"), "execute_cmd", r#"{"command": "true"}"#)
        }),
        HandlerConfig {
            max_rounds: 3,
            ..HandlerConfig::default()
        },
    )
    .await;
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = e.handler.send_message(&sid, "loop", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::RoundLimit { rounds: 3 });
    assert_eq!(e.fake.requests().len(), 3);
    assert_eq!(e.tool_rows(&sid).await.len(), 3);
    assert!(matches!(
        sink.events().last(),
        Some(SessionEvent::TurnEnded {
            outcome: TurnOutcome::RoundLimit { rounds: 3 },
            ..
        })
    ));
    // The next message continues normally.
    e.fake.push_turn(ScriptedTurn::text_reply("ok"));
    let outcome = e
        .handler
        .send_message(&sid, "stop looping", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
}

#[tokio::test]
async fn unknown_tool_is_answered_with_an_error_the_model_can_read() {
    let e = env([
        ScriptedTurn::tool_reply("u1", "no_such_tool", r#"{"x": 1}"#),
        ScriptedTurn::text_reply("sorry"),
    ])
    .await;
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = e.handler.send_message(&sid, "do it", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    let told = tool_content(last_message(&e.request(1))).to_string();
    assert!(
        told.starts_with("Error: unknown tool `no_such_tool`. Available tools: "),
        "{told}"
    );
    assert!(
        told.contains("execute_cmd") && told.contains("read_file"),
        "{told}"
    );
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows[0].status.as_str(), "failed");
    assert_eq!(rows[0].result.as_deref(), Some(told.as_str()));
    assert!(has_event(&sink, |ev| matches!(ev,
        SessionEvent::ToolError { error, .. } if error.starts_with("unknown tool `no_such_tool`"))));
}

#[tokio::test]
async fn malformed_arguments_are_answered_with_the_parse_error() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "m1", "read_file", r#"{"path": "a.txt""#)
            .tool_fragment(0, ", oops")
            .done(StopReason::ToolUse),
        ScriptedTurn::text_reply("retrying"),
    ])
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "read", &RecordingSink::new())
        .await
        .unwrap();

    let told = tool_content(last_message(&e.request(1))).to_string();
    assert!(
        told.starts_with("Error: the arguments for `read_file` were not valid JSON ("),
        "{told}"
    );
    assert!(
        told.contains("expected `:`") || told.contains("line 1 column"),
        "parse error quoted: {told}"
    );
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows[0].status.as_str(), "failed");
    // The raw arguments are kept as the model sent them.
    assert_eq!(rows[0].arguments, r#"{"path": "a.txt", oops"#);
}

#[tokio::test]
async fn tool_failure_is_reported_as_error_text() {
    let e = env([
        ScriptedTurn::tool_reply("f1", "read_file", r#"{"path": "missing.txt"}"#),
        ScriptedTurn::text_reply("not there"),
    ])
    .await;
    let sid = e.session().await;
    let sink = RecordingSink::new();
    e.handler.send_message(&sid, "read", &sink).await.unwrap();
    let told = tool_content(last_message(&e.request(1))).to_string();
    assert!(told.starts_with("Error: "), "{told}");
    assert_eq!(e.tool_rows(&sid).await[0].status.as_str(), "failed");
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::ToolError { .. }
    )));
}

#[tokio::test]
async fn missing_or_repeated_call_ids_get_unique_ones() {
    let e = env([
        ScriptedTurn::new()
            .tool_call(0, "", "execute_cmd", r#"{"command": "true"}"#)
            .tool_call(1, "dup", "execute_cmd", r#"{"command": "true"}"#)
            .tool_call(2, "dup", "execute_cmd", r#"{"command": "true"}"#)
            .done(StopReason::ToolUse),
        ScriptedTurn::tool_reply("dup", "execute_cmd", r#"{"command": "true"}"#),
        ScriptedTurn::text_reply("ok"),
    ])
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "go", &RecordingSink::new())
        .await
        .unwrap();
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows.len(), 4);
    let ids: std::collections::HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert_eq!(rows[1].id, "dup");
    // History and rows agree on every id.
    let req = e.request(2);
    for r in &rows {
        assert!(
            req.messages
                .iter()
                .any(|m| matches!(m, Message::Tool { tool_call_id, .. } if *tool_call_id == r.id))
        );
    }
}

#[tokio::test]
async fn provider_failure_ends_the_turn_failed_and_the_next_works() {
    let e = env([ScriptedTurn::new()
        .text("partial")
        .error(skald_llm::LlmError::StreamBroken {
            provider: "fake".into(),
            message: "cut".into(),
        })])
    .await;
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "hi", &RecordingSink::new())
        .await
        .unwrap();
    assert!(
        matches!(&outcome, TurnOutcome::Failed { message } if message.contains("stream broken")),
        "{outcome:?}"
    );
    e.fake.push_turn(ScriptedTurn::text_reply("better"));
    let outcome = e
        .handler
        .send_message(&sid, "again", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let contents: Vec<String> = shape(&e.history_rows(&sid).await)
        .into_iter()
        .map(|r| r.1)
        .collect();
    assert_eq!(contents, ["hi", "partial", "again", "better"]);
}

#[tokio::test]
async fn a_second_send_on_a_busy_session_is_refused() {
    let e = env([ScriptedTurn::new().text("thinking").hang()]).await;
    let sid = e.session().await;
    let sink = std::sync::Arc::new(RecordingSink::new());
    let h = e.handler.clone();
    let (s2, sid2) = (sink.clone(), sid.clone());
    let first = tokio::spawn(async move { h.send_message(&sid2, "one", s2).await });
    wait_until("the first turn to stream", || {
        has_event(&sink, |ev| matches!(ev, SessionEvent::TokenDelta { .. }))
    })
    .await;
    assert!(e.handler.is_running(&sid));
    let err = e
        .handler
        .send_message(&sid, "two", &RecordingSink::new())
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::Busy(_)), "{err}");
    assert!(err.to_string().contains("busy"), "{err}");
    // Other sessions are not blocked.
    let other = e.session().await;
    e.fake.push_turn(ScriptedTurn::text_reply("hi"));
    // (the fake's next turn is consumed by whichever request comes first; only `other` asks now)
    assert_eq!(
        e.handler
            .send_message(&other, "hello", &RecordingSink::new())
            .await
            .unwrap(),
        TurnOutcome::Completed
    );
    assert!(e.handler.stop(&sid));
    assert_eq!(first.await.unwrap().unwrap(), TurnOutcome::Cancelled);
    assert!(!e.handler.is_running(&sid));
    assert!(!e.handler.stop(&sid));
}

#[tokio::test]
async fn broken_agent_or_unknown_session_refuse_to_start_and_write_nothing() {
    let e = env([ScriptedTurn::text_reply("never")]).await;
    let sid = e.session().await;
    let agent_dir = e.dir.path().canonicalize().unwrap().join("agents/main");
    std::fs::write(
        agent_dir.join("AGENT.md"),
        "Hi\n<!-- INCLUDE: gone.md -->\n",
    )
    .unwrap();
    let err = e
        .handler
        .send_message(&sid, "x", &RecordingSink::new())
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::MissingInclude { .. }), "{err}");
    assert!(err.to_string().contains("gone.md"), "{err}");
    assert!(e.history_rows(&sid).await.is_empty());
    assert!(e.fake.requests().is_empty());
    assert!(!e.handler.is_running(&sid));

    let err = e
        .handler
        .send_message("nope", "x", &RecordingSink::new())
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::SessionNotFound(_)), "{err}");
    assert_eq!(err.to_ipc().code, skald_protocol::ErrorCode::NotFound);
}
