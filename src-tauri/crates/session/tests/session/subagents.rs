//! Sync sub-agents (`execute_task` mode `sync`): each agent has its own
//! scripted provider (routed by the first line of the system prompt), so the
//! request every agent receives — its prompt, its tools, its conversation —
//! is asserted, and concurrent sub-agents never race for one script.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skald_core_api::{Tool, ToolCategory, ToolResult};
use skald_llm::{ScriptedTurn, StopReason};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{
    ChatSessionHandler, FixedProvider, FrameContext, HandlerConfig, RecordingSink, notes,
};
use skald_store::FrameStatus;
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::tool_content;
use crate::multi_agent::*;

/// A tool only the root agent sees, and one only sub-agents see.
struct Flagged {
    name: &'static str,
    root_only: bool,
}
impl Tool for Flagged {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "test"
    }
    fn parameters_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn execute(&self, _args: Value) -> ToolResult {
        Ok("ok".into())
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
    fn root_agent_only(&self) -> bool {
        self.root_only
    }
    fn sub_agents_only(&self) -> bool {
        !self.root_only
    }
}

#[tokio::test]
async fn a_sync_task_runs_the_sub_agent_with_its_own_prompt_and_tools_and_returns_its_answer() {
    let e = env_with(
        &[("worker", "task"), ("boss", "chat")],
        vec![
            (
                "main",
                vec![
                    delegate(&[task("c1", "worker", "Count the files.")]),
                    answer("The worker says 3."),
                ],
            ),
            (
                "worker",
                vec![
                    ScriptedTurn::new()
                        .tool_call(0, "w1", "list_files", "{}")
                        .done(StopReason::ToolUse),
                    answer("There are 3 files."),
                ],
            ),
        ],
        HandlerConfig::default(),
        |h| {
            h.with_interface_tools(Arc::new(|_f: &FrameContext| {
                vec![
                    Arc::new(Flagged {
                        name: "root_only_tool",
                        root_only: true,
                    }) as Arc<dyn Tool>,
                    Arc::new(Flagged {
                        name: "sub_only_tool",
                        root_only: false,
                    }),
                ]
            }))
        },
    )
    .await;
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = e
        .handler
        .send_message(&sid, "How many files?", &sink)
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    // The root agent: its prompt lists the task agents (not itself, not the
    // chat agent), and it is offered execute_task and the root-only tool.
    let main = e.requests("main");
    assert_eq!(main.len(), 2);
    let system = main[0].system.as_deref().unwrap();
    assert!(
        system.starts_with("Agent main.\nTask agents:\n"),
        "{system}"
    );
    assert!(
        system.contains("- `worker` (The worker): worker work"),
        "{system}"
    );
    assert!(
        !system.contains("`boss`") && !system.contains("`main`"),
        "{system}"
    );
    let root_tools = tool_names(&main[0]);
    assert!(root_tools.contains(&"execute_task".to_string()));
    assert!(root_tools.contains(&"root_only_tool".to_string()));
    assert!(!root_tools.contains(&"sub_only_tool".to_string()));

    // The sub-agent: its own prompt, the task as its only message, the
    // parent's tools minus root-only plus sub-only, each once.
    let worker = e.requests("worker");
    assert_eq!(worker.len(), 2);
    assert!(
        worker[0]
            .system
            .as_deref()
            .unwrap()
            .starts_with("Agent worker.\n")
    );
    assert_eq!(worker[0].messages.len(), 1);
    assert_eq!(user_text(&worker[0].messages[0]), "Count the files.");
    let sub_tools = tool_names(&worker[0]);
    let mut expected: Vec<String> = root_tools
        .iter()
        // read_notification is root-only too (the companion tools).
        .filter(|n| *n != "root_only_tool" && *n != "read_notification")
        .cloned()
        .chain(["sub_only_tool".to_string()])
        .collect();
    expected.sort();
    let mut got = sub_tools.clone();
    got.sort();
    assert_eq!(got, expected);
    let mut dedup = got.clone();
    dedup.dedup();
    assert_eq!(dedup, got, "each tool once");
    // It saw its own tool's result, not the parent's conversation.
    assert_eq!(worker[1].messages.len(), 3);

    // Its final answer is the tool result the parent reads.
    assert_eq!(results(&main[1]), ["There are 3 files."]);

    // A child frame under the root, linked to the call, done.
    let frames = e.store.stack().list_for_session(&sid).await.unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[1].depth, 1);
    assert_eq!(frames[1].parent_id, Some(frames[0].id));
    assert_eq!(frames[1].parent_call_id.as_deref(), Some("c1"));
    assert_eq!(frames[1].agent_id, "worker");
    assert_eq!(frames[1].task.as_deref(), Some("Task c1"));
    assert_eq!(frames[1].status, FrameStatus::Done);

    // The sub-agent's events are nested under the call that started it.
    let events = sink.events();
    let nested: Vec<&SessionEvent> = events
        .iter()
        .filter_map(|ev| match ev {
            SessionEvent::SubAgent {
                parent_call_id,
                agent_id,
                depth,
                event,
                ..
            } => {
                assert_eq!(
                    (parent_call_id.as_str(), agent_id.as_str(), *depth),
                    ("c1", "worker", 1)
                );
                Some(event.as_ref())
            }
            _ => None,
        })
        .collect();
    assert!(matches!(
        nested.first(),
        Some(SessionEvent::TurnStarted { .. })
    ));
    assert!(matches!(
        nested.last(),
        Some(SessionEvent::TurnEnded {
            outcome: TurnOutcome::Completed,
            ..
        })
    ));
    assert!(
        nested
            .iter()
            .any(|ev| matches!(ev, SessionEvent::ToolStart { call, .. } if call.id == "w1"))
    );
    // The parent's card carries the spec's label.
    let card = events
        .iter()
        .find_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } if call.id == "c1" => Some(call.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(card.label_short, "execute_task ⚡ → worker: Task c1");

    // The root conversation (history) holds only the root agent's messages.
    let history = e.handler.history(&sid).await.unwrap();
    let texts: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        [
            "How many files?",
            "",
            "There are 3 files.",
            "The worker says 3."
        ]
    );
}

/// After the turn, the history holds each sub-agent's own messages and
/// cards under the call that started it, at every depth, as they showed
/// live (the chat rebuilds its nested cards from it after a reload).
#[tokio::test]
async fn the_history_nests_each_sub_agents_calls_under_the_call_that_started_it() {
    let e = env(
        &[("worker", "task"), ("helper", "task")],
        vec![
            (
                "main",
                vec![
                    delegate(&[task("c1", "worker", "Count the files.")]),
                    answer("The worker says 3."),
                ],
            ),
            (
                "worker",
                vec![
                    ScriptedTurn::new()
                        .text("Listing.")
                        .tool_call(0, "w1", "list_files", "{}")
                        .done(StopReason::ToolUse),
                    delegate(&[task("w2", "helper", "Check the count.")]),
                    answer("There are 3 files."),
                ],
            ),
            ("helper", vec![answer("Checked: 3.")]),
        ],
    )
    .await;
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "How many files?", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    let history = e.handler.history(&sid).await.unwrap();
    let c1 = history
        .iter()
        .flat_map(|m| &m.tool_calls)
        .find(|c| c.id == "c1")
        .expect("the delegation's card");
    let worker = c1.sub_agent.as_deref().expect("the worker under c1");
    assert_eq!((worker.agent_id.as_str(), worker.depth), ("worker", 1));
    assert_eq!(worker.outcome, Some(TurnOutcome::Completed));
    // Its messages after the prompt (which is c1's argument), with its cards.
    let texts: Vec<&str> = worker.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(!texts.contains(&"Count the files."), "{texts:?}");
    assert_eq!(texts.first(), Some(&"Listing."));
    assert_eq!(texts.last(), Some(&"There are 3 files."));
    let cards: Vec<(&str, &str)> = worker
        .messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .map(|c| (c.id.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(cards, [("w1", "list_files"), ("w2", "execute_task")]);
    let w1 = worker.messages[0].tool_calls.first().unwrap();
    assert_eq!(w1.status, skald_store::ToolCallStatus::Done);
    assert!(w1.sub_agent.is_none());
    // The worker's own delegation holds the helper, one level deeper.
    let w2 = worker
        .messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .find(|c| c.id == "w2")
        .unwrap();
    let helper = w2.sub_agent.as_deref().expect("the helper under w2");
    assert_eq!((helper.agent_id.as_str(), helper.depth), ("helper", 2));
    let helper_texts: Vec<&str> = helper.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(helper_texts, ["Checked: 3."]);
    // The root conversation itself is unchanged: no sub-agent message in it.
    let root: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        root,
        [
            "How many files?",
            "",
            "There are 3 files.",
            "The worker says 3."
        ]
    );
}

#[tokio::test]
async fn four_parallel_sync_tasks_run_at_once_and_keep_call_order() {
    let ids = ["w1", "w2", "w3", "w4", "w5"];
    let agents: Vec<(&str, &str)> = ids.iter().map(|id| (*id, "task")).collect();
    let tasks: Vec<(String, String)> = ids
        .iter()
        .map(|id| task(&format!("c-{id}"), id, &format!("do {id}")))
        .collect();
    let mut scripts = vec![("main", vec![delegate(&tasks), answer("all done")])];
    for (i, id) in ids.iter().enumerate() {
        // The first call is the slowest: completion order is the reverse
        // of call order.
        let wait = Duration::from_millis(400 - 80 * i as u64);
        scripts.push((
            id,
            vec![
                ScriptedTurn::new()
                    .delay(wait)
                    .text(format!("{id} done"))
                    .done(StopReason::EndTurn),
            ],
        ));
    }
    let e = env(&agents, scripts).await;
    let sid = e.session().await;
    let t0 = Instant::now();
    let outcome = e
        .handler
        .send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    let took = t0.elapsed();
    assert_eq!(outcome, TurnOutcome::Completed);
    // At most four at once — and four did run at once.
    assert_eq!(e.peak.load(Ordering::SeqCst), 4);
    assert!(
        took < Duration::from_millis(1200),
        "not concurrent: {took:?}"
    );
    let main = e.requests("main");
    assert_eq!(
        results(&main[1]),
        ["w1 done", "w2 done", "w3 done", "w4 done", "w5 done"]
    );
    // Stored in call order too.
    let rows = e.store.tool_calls().list_for_session(&sid).await.unwrap();
    assert!(rows.iter().all(|r| r.status.as_str() == "done"));
    let tool_msgs: Vec<String> = e
        .store
        .history()
        .list_for_session(&sid)
        .await
        .unwrap()
        .into_iter()
        .filter(|m| m.role.as_str() == "tool")
        .filter_map(|m| m.tool_call_id)
        .filter(|id| id.starts_with("c-"))
        .collect();
    assert_eq!(tool_msgs, ["c-w1", "c-w2", "c-w3", "c-w4", "c-w5"]);
}

#[tokio::test]
async fn nesting_stops_at_depth_five_with_a_clear_error() {
    // main → a1 → a2 → a3 → a4 → a5, and a5 may not go on to a6.
    let chain = ["a1", "a2", "a3", "a4", "a5", "a6"];
    let agents: Vec<(&str, &str)> = chain.iter().map(|id| (*id, "task")).collect();
    let mut scripts = vec![(
        "main",
        vec![
            delegate(&[task("m", "a1", "go deep")]),
            answer("bottom reached"),
        ],
    )];
    for (i, id) in chain.iter().enumerate().take(5) {
        let next = chain[i + 1];
        scripts.push((
            id,
            vec![
                delegate(&[task(&format!("c-{id}"), next, "deeper")]),
                answer(&format!("{id} back")),
            ],
        ));
    }
    scripts.push(("a6", vec![answer("never")]));
    let e = env(&agents, scripts).await;
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert!(e.requests("a6").is_empty());
    let a5 = e.requests("a5");
    let err = &results(&a5[1])[0];
    assert!(
        err.starts_with("Error: sub-agents nest at most 5 deep and this agent is at depth 5"),
        "{err}"
    );
    assert_eq!(results(&e.requests("a1")[1]), ["a2 back"]);
    let depths: Vec<i64> = e
        .store
        .stack()
        .list_for_session(&sid)
        .await
        .unwrap()
        .iter()
        .map(|f| f.depth)
        .collect();
    assert_eq!(depths, [0, 1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn unknown_self_and_non_task_targets_are_clear_errors() {
    let e = env(
        &[("boss", "chat"), ("worker", "task")],
        vec![(
            "main",
            vec![
                delegate(&[
                    task("u", "ghost", "x"),
                    task("s", "main", "x"),
                    task("n", "boss", "x"),
                ]),
                answer("ok"),
            ],
        )],
    )
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    let r = results(&e.requests("main")[1]);
    // The built-in task agents are there too (a directory adds to them).
    let agents = "the task agents are `code-explorer`, `researcher`, `software-engineer`, \
                  `spec-writer`, `worker`";
    assert_eq!(
        r,
        [
            format!("Error: there is no agent `ghost`; {agents}"),
            format!(
                "Error: an agent cannot delegate to itself (`main`); do the work yourself or \
                 pick another agent ({agents})"
            ),
            format!("Error: `boss` is a chat agent, not a task agent; {agents}"),
        ]
    );
    // No sub-agent ran: no frame but the root.
    assert_eq!(
        e.store.stack().list_for_session(&sid).await.unwrap().len(),
        1
    );
}

#[tokio::test]
async fn one_stop_ends_a_sub_agent_and_its_60s_shell() {
    let e = env(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![delegate(&[task("c1", "worker", "sleep")]), answer("never")],
            ),
            ("worker", vec![sixty_second_shell("w1"), answer("never")]),
        ],
    )
    .await;
    let sid = e.session().await;
    let sink = Arc::new(RecordingSink::new());
    let (h, s, id) = (e.handler.clone(), sink.clone(), sid.clone());
    let turn = tokio::spawn(async move { h.send_message(&id, "go", s).await });
    let pgid = shell_started(&e.workdir).await;

    let t0 = Instant::now();
    assert!(e.handler.stop(&sid));
    let outcome = tokio::time::timeout(Duration::from_secs(5), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Cancelled);
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    shell_gone(pgid, Duration::from_secs(2)).await;
    // Every row ended cancelled: the shell, the delegation, the frame.
    let rows = e.store.tool_calls().list_for_session(&sid).await.unwrap();
    let statuses: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r.id.as_str(), r.status.as_str()))
        .collect();
    assert_eq!(statuses, [("c1", "cancelled"), ("w1", "cancelled")]);
    assert_eq!(rows[0].result.as_deref(), Some(notes::CANCELLED));
    let frames = e.store.stack().list_for_session(&sid).await.unwrap();
    assert_eq!(frames[1].status, FrameStatus::Cancelled);
    // The parent never asked its model again, nor did the sub-agent.
    assert_eq!(e.requests("main").len(), 1);
    assert_eq!(e.requests("worker").len(), 1);
    // The session works afterwards.
    e.fakes["main"].push_turn(answer("fine"));
    let again = e
        .handler
        .send_message(&sid, "still there?", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(again, TurnOutcome::Completed);
}

/// Records whether the gate was asked: bad targets fail before approval.
#[tokio::test]
async fn a_bad_target_fails_before_anyone_is_asked() {
    use skald_core_api::BoxFuture;
    use skald_session::{ApprovalGate, GateCall, GateDecision};
    #[derive(Default)]
    struct Seeing(Mutex<Vec<String>>);
    impl ApprovalGate for Seeing {
        fn check<'a>(&'a self, call: &'a GateCall) -> BoxFuture<'a, GateDecision> {
            self.0
                .lock()
                .unwrap()
                .push(format!("{}:{}", call.agent_id, call.name));
            Box::pin(std::future::ready(GateDecision::Allow { reason: None }))
        }
    }
    let gate = Arc::new(Seeing::default());
    let g = gate.clone();
    let e = env_with(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![
                    delegate(&[task("bad", "ghost", "x")]),
                    delegate(&[task("good", "worker", "read")]),
                    answer("ok"),
                ],
            ),
            (
                "worker",
                vec![
                    ScriptedTurn::new()
                        .tool_call(0, "r", "list_files", "{}")
                        .done(StopReason::ToolUse),
                    answer("read"),
                ],
            ),
        ],
        HandlerConfig::default(),
        move |h| h.with_gate(g),
    )
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    // The gate saw the good delegation and the sub-agent's own call, under
    // the sub-agent's name.
    assert_eq!(
        *gate.0.lock().unwrap(),
        ["main:execute_task", "worker:list_files"]
    );
}

/// A sub-agent's call waiting for a person when the app goes away: on
/// restart it is in the Inbox, its parent's call waits with it (nothing is
/// re-run or answered early), and approving it continues the sub-agent in
/// its own frame, then the parent.
#[tokio::test]
async fn a_sub_agents_approval_survives_a_restart_and_approving_continues_both() {
    use skald_session::ApprovalManager;
    let gated = |h: ChatSessionHandler| {
        let mgr = ApprovalManager::new(h.store().clone());
        h.with_gate(Arc::new(mgr))
    };
    let e = env_with(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![
                    delegate(&[task("c1", "worker", "write it")]),
                    answer("main done"),
                ],
            ),
            (
                "worker",
                vec![
                    ScriptedTurn::new()
                        .tool_call(
                            0,
                            "w1",
                            "write_file",
                            r#"{"path": "r.txt", "content": "after\n"}"#,
                        )
                        .done(StopReason::ToolUse),
                    answer("written"),
                ],
            ),
        ],
        HandlerConfig::default(),
        gated,
    )
    .await;
    let sid = e.session().await;
    let (h, id) = (e.handler.clone(), sid.clone());
    let turn = tokio::spawn(async move { h.send_message(&id, "go", RecordingSink::new()).await });
    // No rules: everything is asked about. The delegation is approved live…
    let pending = |id: &'static str| {
        let store = e.store.clone();
        async move {
            store
                .tool_calls()
                .get(id)
                .await
                .unwrap()
                .is_some_and(|r| r.status.as_str() == "pending")
        }
    };
    let start = Instant::now();
    while !pending("c1").await {
        assert!(start.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    e.handler.approve("c1", RecordingSink::new()).await.unwrap();
    // …then the app goes away while the sub-agent's write waits.
    while !pending("w1").await {
        assert!(start.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    turn.abort();
    let _ = turn.await;

    let h2 = gated(ChatSessionHandler::new(
        e.store.clone(),
        Arc::new(builtin_registry(&BuiltinDeps::default())),
        Arc::new(FixedProvider::new(e.provider.clone(), "test-model")),
        e.agents_dir.clone(),
    ));
    h2.resume_all(None, RecordingSink::new()).await.unwrap();
    // Nothing ran or was answered early.
    assert_eq!(e.requests("worker").len(), 1);
    assert_eq!(e.requests("main").len(), 1);
    assert!(!e.workdir.join("r.txt").exists());
    let c1 = e.store.tool_calls().get("c1").await.unwrap().unwrap();
    assert_eq!(c1.status.as_str(), "running");
    let inbox = h2.list_pending().await.unwrap();
    assert_eq!(inbox.len(), 1, "{inbox:?}");
    assert_eq!(inbox[0].request.tool_call_id, "w1");

    let sink = RecordingSink::new();
    h2.approve("w1", &sink).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(e.workdir.join("r.txt")).unwrap(),
        "after\n"
    );
    // The sub-agent saw its result in its own conversation and answered…
    let worker = e.requests("worker");
    assert_eq!(worker.len(), 2);
    assert_eq!(worker[1].messages.len(), 3);
    assert!(tool_content(&worker[1].messages[2]).contains("r.txt"));
    // …and that answer is the parent's result; the parent answered too.
    let c1 = e.store.tool_calls().get("c1").await.unwrap().unwrap();
    assert_eq!(
        (c1.status.as_str(), c1.result.as_deref()),
        ("done", Some("written"))
    );
    assert_eq!(results(&e.requests("main")[1]), ["written"]);
    let frames = e.store.stack().list_for_session(&sid).await.unwrap();
    assert_eq!(frames[1].status, FrameStatus::Done);
    let root = e
        .store
        .history()
        .list_for_frame(frames[0].id)
        .await
        .unwrap();
    assert_eq!(root.last().unwrap().content, "main done");
    // The settled call's events came nested under the delegation.
    assert!(sink.events().iter().any(|ev| matches!(
        ev,
        SessionEvent::SubAgent { parent_call_id, event, .. }
            if parent_call_id == "c1" && matches!(**event, SessionEvent::ToolDone { .. })
    )));
}
