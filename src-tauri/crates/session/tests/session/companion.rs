//! The companion tools through the real driver, the scripted provider and a
//! real SQLite file: the scratchpad block in the next request after the
//! model's update and after the person's edit, todos checked and kept per
//! frame, show_file_to_user raising OpenFile and refusing secrets/, and a
//! question answered, or withdrawn by Stop.

use std::time::Duration;

use serde_json::json;
use skald_llm::{ChatRequest, Message, ScriptedTurn, StopReason};
use skald_protocol::{SessionEvent, TodoStatusView, TurnOutcome};
use skald_session::RecordingSink;
use skald_store::{NewMessage, NewStackFrame, Role};

use crate::common::*;

fn scratchpad_of(req: &ChatRequest) -> Option<String> {
    match req.messages.first() {
        Some(Message::System { content }) if content.starts_with("<scratchpad>") => {
            Some(content.clone())
        }
        _ => None,
    }
}

fn tool_call(id: &str, name: &str, args: serde_json::Value) -> ScriptedTurn {
    ScriptedTurn::new()
        .tool_call(0, id, name, args.to_string())
        .done(StopReason::ToolUse)
}

fn answer(text: &str) -> ScriptedTurn {
    ScriptedTurn::new().text(text).done(StopReason::EndTurn)
}

#[tokio::test]
async fn the_scratchpad_reaches_the_next_request_after_the_model_and_the_person() {
    let e = env([
        tool_call(
            "c1",
            "update_scratchpad",
            json!({"key": "plan", "value": "1. read\n2. write"}),
        ),
        answer("Noted."),
        answer("Seen."),
        tool_call(
            "c2",
            "update_scratchpad",
            json!({"key": "plan", "value": ""}),
        ),
        answer("Gone."),
    ])
    .await;
    let sid = e.session().await;
    let out = e
        .handler
        .send_message(&sid, "plan it", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(out, TurnOutcome::Completed);
    // Nothing before the first write; the static prompt stays as it was.
    assert_eq!(scratchpad_of(&e.request(0)), None);
    let block = scratchpad_of(&e.request(1)).expect("the block after the update");
    assert!(block.contains("## plan\n1. read\n2. write"), "{block}");
    assert_eq!(e.request(1).system, e.request(0).system);
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows[0].status.as_str(), "done");
    assert!(rows[0].result.as_deref().unwrap_or("").contains("saved"));

    // The person edits the entry and adds one: the next request has both.
    e.handler
        .set_scratchpad_entry(&sid, "plan", "1. read only")
        .await
        .unwrap();
    e.handler
        .set_scratchpad_entry(&sid, "constraint", "no network")
        .await
        .unwrap();
    e.handler
        .send_message(&sid, "go on", RecordingSink::new())
        .await
        .unwrap();
    let block = scratchpad_of(&e.request(2)).unwrap();
    assert!(block.contains("## plan\n1. read only\n"), "{block}");
    assert!(block.contains("## constraint\nno network\n"), "{block}");
    assert!(!block.contains("2. write"), "{block}");
    let listed = e.handler.scratchpad(&sid).await.unwrap();
    assert_eq!(
        listed.iter().map(|x| x.key.as_str()).collect::<Vec<_>>(),
        ["constraint", "plan"]
    );

    // An empty value deletes; the person deletes the other.
    e.handler
        .send_message(&sid, "drop the plan", RecordingSink::new())
        .await
        .unwrap();
    let block = scratchpad_of(&e.request(4)).unwrap();
    assert!(!block.contains("## plan"), "{block}");
    assert!(
        e.handler
            .remove_scratchpad_entry(&sid, "constraint")
            .await
            .unwrap()
    );
    assert!(e.handler.scratchpad(&sid).await.unwrap().is_empty());
    // Survives reopening the store (persisted).
    e.handler
        .set_scratchpad_entry(&sid, "k", "v")
        .await
        .unwrap();
    let reopened = skald_store::Store::open(&e.dir.path().canonicalize().unwrap().join("data"))
        .await
        .unwrap();
    assert_eq!(
        reopened.scratchpad().entries(&sid).await.unwrap()[0].value,
        "v"
    );
}

#[tokio::test]
async fn an_entry_the_person_set_before_any_turn_is_in_the_first_request() {
    // (A sub-agent frame's request: `turn::tests`, with a depth-1 frame.)
    let e = env([answer("ok")]).await;
    let sid = e.session().await;
    e.handler
        .set_scratchpad_entry(&sid, "shared", "yes")
        .await
        .unwrap();
    e.handler
        .send_message(&sid, "hi", RecordingSink::new())
        .await
        .unwrap();
    assert!(
        scratchpad_of(&e.request(0))
            .unwrap()
            .contains("## shared\nyes")
    );
}

#[tokio::test]
async fn malformed_todo_lists_get_clear_errors_and_good_ones_a_checklist() {
    let e = env([
        tool_call(
            "t1",
            "write_todos",
            json!({"todos": [
                {"content": "a", "status": "in_progress"},
                {"content": "b", "status": "in_progress"}
            ]}),
        ),
        tool_call(
            "t2",
            "write_todos",
            json!({"todos": [{"content": "a", "status": "doing"}]}),
        ),
        tool_call(
            "t3",
            "write_todos",
            json!({"todos": [
                {"content": "read the code", "status": "completed"},
                {"content": "fix it", "status": "in_progress"},
                {"content": "test", "status": "pending"}
            ]}),
        ),
        answer("Working."),
    ])
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "work", RecordingSink::new())
        .await
        .unwrap();
    let rows = e.tool_rows(&sid).await;
    let two = rows[0].result.clone().unwrap();
    assert_eq!(rows[0].status.as_str(), "failed");
    assert!(
        two.contains("at most one todo may be in_progress; todos 1, 2"),
        "{two}"
    );
    let unknown = rows[1].result.clone().unwrap();
    assert_eq!(rows[1].status.as_str(), "failed");
    assert!(
        unknown.contains("doing") && unknown.contains("in_progress"),
        "{unknown}"
    );
    assert_eq!(
        rows[2].result.as_deref(),
        Some("Todos (1/3 completed):\n[x] read the code\n[~] fix it (in progress)\n[ ] test")
    );
    // The checklist is in the agent's own next request.
    let req = e.request(3);
    assert!(tool_content(last_message(&req)).starts_with("Todos (1/3"));
    // The panel: the root's latest good list.
    let lists = e.handler.todos(&sid).await.unwrap();
    assert_eq!(lists.len(), 1);
    assert_eq!(
        (lists[0].depth, lists[0].completed, lists[0].total),
        (0, 1, 3)
    );
    assert_eq!(lists[0].todos[1].status, TodoStatusView::InProgress);
}

#[tokio::test]
async fn todos_are_kept_per_frame_and_a_sub_agents_list_never_reaches_the_root() {
    let e = env([
        tool_call(
            "r1",
            "write_todos",
            json!({"todos": [{"content": "delegate", "status": "in_progress"}]}),
        ),
        answer("ok"),
    ])
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    // A sub-agent's frame with its own write_todos call, as issue 13's
    // frames will store them.
    let root = e.store.stack().list_for_session(&sid).await.unwrap()[0].clone();
    let sub = e
        .store
        .stack()
        .push(&NewStackFrame {
            session_id: sid.clone(),
            parent_id: Some(root.id),
            agent_id: "helper".into(),
            task: Some("sub work".into()),
            status: skald_store::FrameStatus::Waiting,
        })
        .await
        .unwrap();
    let msg = e
        .store
        .history()
        .append(&NewMessage {
            session_id: sid.clone(),
            stack_id: Some(sub.id),
            role: Role::Assistant,
            content: String::new(),
            tool_calls: Some(json!([{"id": "s1", "name": "write_todos", "arguments":
                json!({"todos": [{"content": "secret sub step", "status": "completed"}]}).to_string()}])),
            tool_call_id: None,
        })
        .await
        .unwrap();
    e.store
        .tool_calls()
        .insert(&skald_store::NewToolCall {
            id: "s1".into(),
            session_id: sid.clone(),
            message_id: Some(msg.id),
            name: "write_todos".into(),
            arguments: "{}".into(),
            status: skald_store::ToolCallStatus::Done,
        })
        .await
        .unwrap();
    let lists = e.handler.todos(&sid).await.unwrap();
    assert_eq!(lists.len(), 2);
    assert_eq!((lists[0].depth, lists[0].agent_id.as_str()), (0, "main"));
    assert_eq!(lists[0].todos[0].content, "delegate");
    assert_eq!((lists[1].depth, lists[1].agent_id.as_str()), (1, "helper"));
    assert_eq!(lists[1].todos[0].content, "secret sub step");

    // The root's next request carries its own list, never the sub-agent's.
    e.fake.push_turn(answer("still ok"));
    e.handler
        .send_message(&sid, "next", RecordingSink::new())
        .await
        .unwrap();
    let text = serde_json::to_string(&e.request(2).messages).unwrap();
    assert!(text.contains("delegate"), "{text}");
    assert!(!text.contains("secret sub step"), "{text}");
}

#[tokio::test]
async fn show_file_opens_the_viewer_and_refuses_secrets() {
    let e = env([
        tool_call("f1", "show_file_to_user", json!({"path": "docs/report.md"})),
        tool_call(
            "f2",
            "show_file_to_user",
            json!({"path": "secrets/key.txt"}),
        ),
        answer("Shown."),
    ])
    .await;
    std::fs::create_dir_all(e.path("docs")).unwrap();
    std::fs::write(e.path("docs/report.md"), "# Report\n").unwrap();
    std::fs::create_dir_all(e.path("secrets")).unwrap();
    std::fs::write(e.path("secrets/key.txt"), "hunter2").unwrap();
    let sid = e.session().await;
    let sink = RecordingSink::new();
    e.handler
        .send_message(&sid, "show me", &sink)
        .await
        .unwrap();
    let opened: Vec<String> = sink
        .events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::OpenFile { path, .. } => Some(path),
            _ => None,
        })
        .collect();
    assert_eq!(opened, ["docs/report.md"]);
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows[0].status.as_str(), "done");
    assert_eq!(
        rows[1].result.as_deref(),
        Some("Error: access denied: tools may not read or write paths under secrets/")
    );
    assert!(!format!("{:?}", sink.events()).contains("hunter2"));
    // The label names the path; the card's path is clickable.
    let card = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } => Some(call),
            _ => None,
        })
        .unwrap();
    assert_eq!(card.label_short, "show_file_to_user `docs/report.md`");
    assert!(card.path.as_deref().unwrap().ends_with("docs/report.md"));
}

async fn pending_question(e: &Env) -> skald_protocol::PendingQuestionView {
    for _ in 0..400 {
        if let Some(q) = e
            .handler
            .pending_questions()
            .await
            .unwrap()
            .into_iter()
            .next()
        {
            return q;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no question was asked");
}

#[tokio::test]
async fn a_question_waits_for_the_answer_which_is_its_result() {
    let e = env([
        tool_call(
            "q1",
            "ask_user_clarification",
            json!({"title": "Which DB?", "question": "Use **SQLite** or Postgres?",
                   "suggested_answers": ["SQLite", "Postgres"]}),
        ),
        answer("SQLite it is."),
    ])
    .await;
    let sid = e.session().await;
    let (h, id) = (e.handler.clone(), sid.clone());
    let turn =
        tokio::spawn(async move { h.send_message(&id, "set it up", RecordingSink::new()).await });
    let q = pending_question(&e).await;
    assert_eq!(q.tool_call_id, "q1");
    assert_eq!(q.title, "Which DB?");
    assert_eq!(q.suggested_answers, ["SQLite", "Postgres"]);
    assert!(!turn.is_finished());
    e.handler.answer_question("q1", "SQLite").await.unwrap();
    let out = tokio::time::timeout(Duration::from_secs(5), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(out, TurnOutcome::Completed);
    assert_eq!(tool_content(last_message(&e.request(1))), "SQLite");
    assert!(e.handler.pending_questions().await.unwrap().is_empty());
    // Answering twice is refused clearly.
    let again = e
        .handler
        .answer_question("q1", "Postgres")
        .await
        .unwrap_err();
    assert!(
        again.to_string().contains("no pending question q1"),
        "{again}"
    );
}

#[tokio::test]
async fn stop_withdraws_a_question() {
    let e = env([tool_call(
        "q2",
        "ask_user_clarification",
        json!({"title": "Name?", "question": "What name?"}),
    )])
    .await;
    let sid = e.session().await;
    let (h, id) = (e.handler.clone(), sid.clone());
    let turn =
        tokio::spawn(async move { h.send_message(&id, "name it", RecordingSink::new()).await });
    pending_question(&e).await;
    assert!(e.handler.stop(&sid));
    let out = tokio::time::timeout(Duration::from_secs(5), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(out, TurnOutcome::Cancelled);
    let store = e.store.clone();
    let mut status = String::new();
    for _ in 0..200 {
        status = store
            .clarifications()
            .get("q2")
            .await
            .unwrap()
            .unwrap()
            .status;
        if status == "withdrawn" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, "withdrawn");
    assert!(e.handler.pending_questions().await.unwrap().is_empty());
    assert_eq!(e.tool_rows(&sid).await[0].status.as_str(), "cancelled");
    let late = e.handler.answer_question("q2", "Bob").await;
    assert!(late.is_err());
}

fn offered(req: &ChatRequest) -> Vec<String> {
    req.tools.iter().map(|t| t.name.clone()).collect()
}

#[tokio::test]
async fn every_chat_agent_gets_the_companion_tools_but_not_notify() {
    let e = env([answer("hi")]).await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "hi", RecordingSink::new())
        .await
        .unwrap();
    let names = offered(&e.request(0));
    for t in [
        "update_scratchpad",
        "write_todos",
        "show_file_to_user",
        "ask_user_clarification",
        "read_notification",
    ] {
        assert!(names.contains(&t.to_string()), "{t} missing from {names:?}");
    }
    assert!(!names.contains(&"notify".to_string()), "{names:?}");
}

#[tokio::test]
async fn notify_is_built_for_background_and_system_agents_only() {
    use skald_session::{CompanionTools, FrameContext, FrameEvents, InterfaceTools};
    let e = env([]).await;
    let frame = |agent: &str, ctx: Option<serde_json::Value>| FrameContext {
        session_id: "s".into(),
        frame_id: 1,
        agent_id: agent.into(),
        depth: 0,
        working_dir: e.workdir.clone(),
        run_context: ctx,
        store: e.store.clone(),
        events: FrameEvents::default(),
    };
    let names = |f: &FrameContext| -> Vec<String> {
        CompanionTools::default()
            .build(f)
            .iter()
            .map(|t| t.name().to_string())
            .collect()
    };
    let chat = names(&frame("main", None));
    assert!(!chat.contains(&"notify".to_string()));
    assert!(chat.contains(&"ask_user_clarification".to_string()));
    let system = names(&frame("system", None));
    assert!(system.contains(&"notify".to_string()));
    assert!(!system.contains(&"ask_user_clarification".to_string()));
    let background = names(&frame("worker", Some(json!({"background": true}))));
    assert!(background.contains(&"notify".to_string()));
    assert!(background.contains(&"ask_user_clarification".to_string()));
}

#[tokio::test]
async fn notifies_within_200ms_are_one_read_notification_and_the_root_turn_resumes() {
    use skald_session::companion::Notification;
    let e = env([
        answer("Backup done, and two mails came in."),
        answer("One more thing finished."),
    ])
    .await;
    let sink = std::sync::Arc::new(RecordingSink::new());
    let mut attention = e.handler.subscribe_attention();
    let (h, s) = (e.handler.clone(), sink.clone());
    let runner = tokio::spawn(async move { h.run_notifications(s).await });
    let note = |source: &str, summary: &str| Notification {
        source: source.into(),
        summary: summary.into(),
        event_type: Some("event".into()),
        event_time: None,
        refs: vec![],
    };
    for (src, text) in [
        ("backup", "Backup done"),
        ("mail", "Mail 1"),
        ("mail", "Mail 2"),
    ] {
        e.handler.notifications().push(note(src, text));
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    let home = e.handler.home_session().await.unwrap();
    wait_until("the resumed root turn", || e.fake.requests().len() == 1).await;
    let mut rows = Vec::new();
    for _ in 0..500 {
        rows = e.history_rows(&home).await;
        if rows
            .last()
            .is_some_and(|r| r.role == Role::Assistant && !r.content.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let calls = e.tool_rows(&home).await;
    assert_eq!(calls.len(), 1, "one batch");
    assert_eq!(calls[0].name, "read_notification");
    assert_eq!(calls[0].status.as_str(), "done");
    assert_eq!(calls[0].result_type.as_deref(), Some("json"));
    let batch: serde_json::Value =
        serde_json::from_str(calls[0].result.as_deref().unwrap()).unwrap();
    assert_eq!(batch.as_array().unwrap().len(), 3);
    assert_eq!(batch[0]["source"], "backup");
    // The root agent was asked with the batch as the last tool result, and answered.
    let req = e.request(0);
    assert_eq!(
        tool_content(last_message(&req)),
        calls[0].result.as_deref().unwrap()
    );
    assert_eq!(
        rows.last().unwrap().content,
        "Backup done, and two mails came in."
    );
    // The answer is stored just before the turn's end is announced.
    for _ in 0..500 {
        if has_event(
            &sink,
            |ev| matches!(ev, SessionEvent::TurnEnded { session_id, .. } if *session_id == home),
        ) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(has_event(
        &sink,
        |ev| matches!(ev, SessionEvent::TurnEnded { session_id, .. } if *session_id == home)
    ));

    // The person is told once per batch (the app shows it while hidden),
    // not again when the Home turn that retells it ends.
    let raised: Vec<_> = std::iter::from_fn(|| attention.try_recv().ok()).collect();
    assert_eq!(raised.len(), 1, "{raised:?}");
    assert_eq!(raised[0].kind, skald_session::AttentionKind::Notification);
    assert_eq!(raised[0].session_id, home);
    assert_eq!(raised[0].title, "3 notifications");
    assert_eq!(
        raised[0].body,
        "backup: Backup done · mail: Mail 1 · mail: Mail 2"
    );

    // One arriving later is a batch of its own.
    tokio::time::sleep(Duration::from_millis(250)).await;
    e.handler.notifications().push(note("job", "Job finished"));
    wait_until("the second batch", || e.fake.requests().len() == 2).await;
    let calls = e.tool_rows(&home).await;
    assert_eq!(calls.len(), 2);
    let second: serde_json::Value =
        serde_json::from_str(calls[1].result.as_deref().unwrap()).unwrap();
    assert_eq!(second.as_array().unwrap().len(), 1);
    runner.abort();
}

/// Allows everything and remembers each call's name and category.
#[derive(Default)]
struct CategoryGate(std::sync::Mutex<Vec<(String, Option<skald_core_api::ToolCategory>)>>);

impl skald_session::ApprovalGate for CategoryGate {
    fn check<'a>(
        &'a self,
        call: &'a skald_session::GateCall,
    ) -> skald_core_api::BoxFuture<'a, skald_session::GateDecision> {
        self.0
            .lock()
            .unwrap()
            .push((call.name.clone(), call.category));
        Box::pin(std::future::ready(skald_session::GateDecision::Allow {
            reason: None,
        }))
    }
}

/// Each companion tool's category is the one the catalogue lists (and the
/// permission matrix shows), and it reaches the gate with every call, so a
/// "Don't ask" bypass by category covers it.
#[tokio::test]
async fn companion_tools_reach_the_gate_with_the_catalogues_category() {
    use skald_core_api::ToolCategory::{Filesystem, Introspection};
    use skald_session::{CompanionTools, FrameContext, FrameEvents, InterfaceTools};
    let e = env([
        ScriptedTurn::new()
            .tool_call(
                0,
                "c1",
                "update_scratchpad",
                r#"{"key": "k", "value": "v"}"#,
            )
            .tool_call(
                1,
                "c2",
                "write_todos",
                r#"{"todos": [{"content": "a", "status": "pending"}]}"#,
            )
            .tool_call(2, "c3", "show_file_to_user", r#"{"path": "notes.md"}"#)
            .done(StopReason::ToolUse),
        answer("done"),
    ])
    .await;
    std::fs::write(e.path("notes.md"), "hi\n").unwrap();
    let gate = std::sync::Arc::new(CategoryGate::default());
    let h = e.handler.clone().with_gate(gate.clone());
    let sid = e.session().await;
    h.send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    let mut seen = gate.0.lock().unwrap().clone();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        seen,
        vec![
            ("show_file_to_user".to_string(), Some(Filesystem)),
            ("update_scratchpad".to_string(), Some(Introspection)),
            ("write_todos".to_string(), Some(Introspection)),
        ]
    );

    // The catalogue is derived from the tools: every companion tool, the
    // ones an interactive root frame is not offered (`notify`) included, is
    // listed as it declares itself; records of delivered endings are not.
    let catalogue = h.synthetic_tools();
    let frame = FrameContext {
        session_id: sid.clone(),
        frame_id: 1,
        agent_id: "main".into(),
        depth: 0,
        working_dir: e.workdir.clone(),
        run_context: None,
        store: e.store.clone(),
        events: FrameEvents::default(),
    };
    let companions = CompanionTools::default();
    let offered = companions.build(&frame);
    let not_offered = companions.not_offered(&frame);
    let names = |tools: &[std::sync::Arc<dyn skald_core_api::Tool>]| -> Vec<String> {
        tools.iter().map(|t| t.name().to_string()).collect()
    };
    assert_eq!(names(&not_offered), ["notify"]);
    assert_eq!(offered.len(), 5, "{:?}", names(&offered));
    for tool in offered.iter().chain(&not_offered) {
        let listed = catalogue
            .iter()
            .find(|t| t.name == tool.name())
            .unwrap_or_else(|| panic!("{} is not in the catalogue", tool.name()));
        assert_eq!(listed.category, Some(tool.category()), "{}", tool.name());
        assert_eq!(listed.description, tool.description(), "{}", tool.name());
        // Who sees it, too: the catalogue says what the tool declares.
        assert_eq!(
            (listed.root_agent_only, listed.sub_agents_only),
            (tool.root_agent_only(), tool.sub_agents_only()),
            "{}",
            tool.name()
        );
    }
    let listed: Vec<&str> = catalogue.iter().map(|t| t.name.as_str()).collect();
    for name in [
        "execute_task",
        "execute_subtask",
        "read_agent_result",
        "list_items",
    ] {
        assert!(listed.contains(&name), "{name} missing: {listed:?}");
    }
    for name in ["task_completed", "run_subtask", "read_file"] {
        assert!(!listed.contains(&name), "{name} listed: {listed:?}");
    }
    let root_only: Vec<&str> = catalogue
        .iter()
        .filter(|t| t.root_agent_only)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(root_only, ["read_notification"]);
}
