//! The rule-driven gate (`ApprovalManager`) wired into the driver: seeded
//! rules, `require` → pending row + `ApprovalRequired` (a real diff for
//! writes, the full command for the shell), approve / reject (live and
//! after a restart), deny hides the tool, stop while pending.

use std::sync::Arc;
use std::time::Duration;

use skald_approval::{Bypass, BypassScope};
use skald_llm::{FakeProvider, LlmProvider, ScriptedTurn};
use skald_protocol::{
    ApprovalKind, ApprovalRequest, ApprovalResolution, SessionEvent, TurnOutcome, WritePreview,
};
use skald_session::{ApprovalManager, ChatSessionHandler, FixedProvider, RecordingSink, bootstrap};
use skald_store::{DEFAULT_GROUP, NewApprovalRule, RuleAction, Store};
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::*;

/// The env's handler behind a seeded `ApprovalManager`.
pub async fn gated(e: &Env) -> (ChatSessionHandler, ApprovalManager) {
    bootstrap(&e.store).await.unwrap();
    let mgr = ApprovalManager::new(e.store.clone());
    (e.handler.clone().with_gate(Arc::new(mgr.clone())), mgr)
}

/// A `default`-group rule for `write_file`.
pub fn write_rule(path: Option<String>, action: RuleAction, priority: i64) -> NewApprovalRule {
    NewApprovalRule {
        group_name: DEFAULT_GROUP.into(),
        agent_id: None,
        source: None,
        tool_pattern: "write_file".into(),
        path_pattern: path,
        action,
        note: None,
        priority,
    }
}

pub fn requests_of(sink: &RecordingSink) -> Vec<ApprovalRequest> {
    sink.events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::ApprovalRequired { request, .. } => Some(request),
            _ => None,
        })
        .collect()
}

/// Starts a turn in the background and waits for its approval request.
async fn turn_until_asked(
    h: &ChatSessionHandler,
    sid: &str,
) -> (
    tokio::task::JoinHandle<TurnOutcome>,
    Arc<RecordingSink>,
    ApprovalRequest,
) {
    let sink = Arc::new(RecordingSink::new());
    let (h2, id, s2) = (h.clone(), sid.to_string(), sink.clone());
    let turn = tokio::spawn(async move { h2.send_message(&id, "go", s2).await.unwrap() });
    wait_until("ApprovalRequired", || !requests_of(&sink).is_empty()).await;
    let req = requests_of(&sink).remove(0);
    (turn, sink, req)
}

pub async fn finish(turn: tokio::task::JoinHandle<TurnOutcome>) -> TurnOutcome {
    tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn write_file_asks_with_a_real_diff_and_runs_once_approved() {
    let e = env([
        ScriptedTurn::tool_reply(
            "w1",
            "write_file",
            r#"{"path": "a.txt", "content": "new\n"}"#,
        ),
        ScriptedTurn::text_reply("written"),
    ])
    .await;
    let (h, _) = gated(&e).await;
    std::fs::write(e.path("a.txt"), "old\n").unwrap();
    let sid = e.session().await;
    let (turn, sink, req) = turn_until_asked(&h, &sid).await;

    assert_eq!(req.tool_call_id, "w1");
    assert!(req.reason.starts_with("asked by rule "), "{}", req.reason);
    let path = e.path("a.txt").to_string_lossy().into_owned();
    assert_eq!(
        req.kind,
        ApprovalKind::Write {
            path: path.clone(),
            old_content: Some("old\n".into()),
            new_content: Some("new\n".into()),
        }
    );
    let row = e.store.tool_calls().get("w1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "pending");
    assert_eq!(row.decision.as_deref(), Some("require"));
    assert_eq!(row.decision_reason.as_deref(), Some(req.reason.as_str()));
    assert_eq!(row.old_preview.as_deref(), Some("old\n"));
    assert_eq!(row.new_preview.as_deref(), Some("new\n"));
    // The Inbox shows it, live.
    let inbox = h.list_pending().await.unwrap();
    assert_eq!(inbox.len(), 1);
    assert!(inbox[0].live);
    assert_eq!(inbox[0].request, req);
    // Nothing written yet.
    assert_eq!(std::fs::read_to_string(e.path("a.txt")).unwrap(), "old\n");

    let r = h.approve("w1", RecordingSink::new()).await.unwrap();
    assert_eq!(r, ApprovalResolution::Live);
    assert_eq!(finish(turn).await, TurnOutcome::Completed);
    assert_eq!(std::fs::read_to_string(e.path("a.txt")).unwrap(), "new\n");
    let row = e.store.tool_calls().get("w1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "done");
    assert_eq!(row.decision.as_deref(), Some("approved"));
    assert!(has_event(
        &sink,
        |ev| matches!(ev, SessionEvent::ToolDone { tool_call_id, .. } if tool_call_id == "w1")
    ));
    assert!(h.list_pending().await.unwrap().is_empty());
    // The card says why it ran.
    let history = h.history(&sid).await.unwrap();
    let card = history
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .find(|c| c.id == "w1")
        .unwrap();
    assert_eq!(
        card.decision_reason.as_deref(),
        Some("approved by the user")
    );
    // It keeps the diff its approval showed.
    assert_eq!(
        card.write_preview,
        Some(WritePreview {
            old_content: Some("old\n".into()),
            new_content: Some("new\n".into()),
            note: None,
        })
    );
    // Live, the card heard it too.
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::ToolAllowed { tool_call_id, reason, .. }
            if tool_call_id == "w1" && reason == "approved by the user"
    )));
}

#[tokio::test]
async fn edit_file_rejected_with_a_note_tells_the_model_exactly() {
    let e = env([
        ScriptedTurn::tool_reply(
            "e1",
            "edit_file",
            r#"{"path": "b.txt", "old_string": "two", "new_string": "2"}"#,
        ),
        ScriptedTurn::text_reply("ok, not editing"),
    ])
    .await;
    let (h, _) = gated(&e).await;
    std::fs::write(e.path("b.txt"), "one\ntwo\nthree\n").unwrap();
    let sid = e.session().await;
    let (turn, sink, req) = turn_until_asked(&h, &sid).await;
    match &req.kind {
        ApprovalKind::Write {
            old_content,
            new_content,
            ..
        } => {
            assert_eq!(old_content.as_deref(), Some("one\ntwo\nthree\n"));
            assert_eq!(new_content.as_deref(), Some("one\n2\nthree\n"));
        }
        other => panic!("not a write: {other:?}"),
    }
    h.reject("e1", Some("too risky"), RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(finish(turn).await, TurnOutcome::Completed);
    let exact = "User rejected this tool call. Reason: too risky";
    let row = e.store.tool_calls().get("e1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "rejected");
    assert_eq!(row.result.as_deref(), Some(exact));
    assert_eq!(tool_content(last_message(&e.request(1))), exact);
    assert!(has_event(
        &sink,
        |ev| matches!(ev, SessionEvent::ToolRejected { reason, .. } if reason == exact)
    ));
    assert_eq!(
        std::fs::read_to_string(e.path("b.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    // The rejected edit's card keeps the diff that was turned down.
    let history = h.history(&sid).await.unwrap();
    let card = history
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .find(|c| c.id == "e1")
        .unwrap();
    assert_eq!(
        card.write_preview
            .as_ref()
            .and_then(|w| w.new_content.as_deref()),
        Some("one\n2\nthree\n")
    );
}

#[tokio::test]
async fn reject_without_a_note_is_the_bare_sentence() {
    let e = env([
        ScriptedTurn::tool_reply("x1", "execute_cmd", r#"{"command": "echo hi"}"#),
        ScriptedTurn::text_reply("fine"),
    ])
    .await;
    let (h, _) = gated(&e).await;
    let sid = e.session().await;
    let (turn, _sink, _) = turn_until_asked(&h, &sid).await;
    h.reject("x1", None, RecordingSink::new()).await.unwrap();
    finish(turn).await;
    assert_eq!(
        tool_content(last_message(&e.request(1))),
        "User rejected this tool call."
    );
}

#[tokio::test]
async fn execute_cmd_shows_the_full_command_and_stop_cancels_the_wait() {
    let command = "echo one && echo two > out.txt\necho three";
    let args = serde_json::json!({ "command": command }).to_string();
    let e = env([ScriptedTurn::tool_reply("c1", "execute_cmd", &args)]).await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    mgr.add_bypass(&sid, Bypass::new(BypassScope::Tool("read_file".into())));
    let (turn, _sink, req) = turn_until_asked(&h, &sid).await;
    assert_eq!(
        req.kind,
        ApprovalKind::Command {
            command: command.to_string(),
            working_dir: Some(e.workdir.to_string_lossy().into_owned()),
        }
    );
    assert!(req.reason.contains("execute_cmd"), "{}", req.reason);
    assert!(h.stop(&sid));
    assert_eq!(finish(turn).await, TurnOutcome::Cancelled);
    let row = e.store.tool_calls().get("c1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "cancelled");
    assert!(!e.path("out.txt").exists());
    assert!(mgr.bypasses(&sid).is_empty(), "stop clears the bypasses");
    assert!(h.list_pending().await.unwrap().is_empty());
    assert!(mgr.waiting().is_empty());
}

#[tokio::test]
async fn a_bypass_turns_require_into_allow_but_never_a_deny() {
    let e = env([
        ScriptedTurn::tool_reply("b1", "execute_cmd", r#"{"command": "echo bypassed"}"#),
        ScriptedTurn::text_reply("done"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    mgr.add_bypass(&sid, Bypass::new(BypassScope::Tool("execute_cmd".into())));
    let sink = RecordingSink::new();
    let outcome = h.send_message(&sid, "go", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert!(requests_of(&sink).is_empty());
    let row = e.store.tool_calls().get("b1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "done");
    assert_eq!(row.decision.as_deref(), Some("allow"));
    assert!(
        row.decision_reason.as_deref().unwrap().contains("bypass"),
        "{:?}",
        row.decision_reason
    );
}

fn tool_names(req: &skald_llm::ChatRequest) -> Vec<String> {
    let mut names: Vec<String> = req.tools.iter().map(|d| d.name.clone()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_deny_rule_hides_the_tool_and_rejects_it_if_called_anyway() {
    let e = env([
        ScriptedTurn::tool_reply("d1", "write_file", r#"{"path": "c.txt", "content": "x"}"#),
        ScriptedTurn::text_reply("understood"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    let rule = mgr
        .add_rule(&NewApprovalRule {
            note: Some("no writes".into()),
            ..write_rule(None, RuleAction::Deny, 500)
        })
        .await
        .unwrap();
    let sid = e.session().await;
    let outcome = h
        .send_message(&sid, "write c.txt", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let first = e.request(0);
    assert!(!tool_names(&first).contains(&"write_file".to_string()));
    insta::assert_snapshot!(
        "tools_offered_with_write_file_denied",
        tool_names(&first).join("\n")
    );
    let reason = format!("denied by rule {}: write_file", rule.id);
    let row = e.store.tool_calls().get("d1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "rejected");
    assert_eq!(row.decision_reason.as_deref(), Some(reason.as_str()));
    assert_eq!(
        tool_content(last_message(&e.request(1))),
        format!("Rejected: {reason}. The call was not run.")
    );
    assert!(!e.path("c.txt").exists());
    // Deleting the rule offers the tool again (the cache is invalidated).
    assert!(mgr.delete_rule(rule.id).await.unwrap());
    e.fake.push_turn(ScriptedTurn::text_reply("again"));
    h.send_message(&sid, "and now?", &RecordingSink::new())
        .await
        .unwrap();
    assert!(tool_names(&e.request(2)).contains(&"write_file".to_string()));
}

/// A second handler on the same database file, as after a restart.
pub async fn restarted(
    e: &Env,
    turns: Vec<ScriptedTurn>,
) -> (ChatSessionHandler, Arc<FakeProvider>) {
    let root = e.dir.path().canonicalize().unwrap();
    let store = Store::open(&root.join("data")).await.unwrap();
    bootstrap(&store).await.unwrap();
    let registry = Arc::new(builtin_registry(&BuiltinDeps::default()));
    let fake = Arc::new(FakeProvider::new(turns));
    let provider: Arc<dyn LlmProvider> = fake.clone();
    let mgr = ApprovalManager::new(store.clone());
    let h = ChatSessionHandler::new(
        store,
        registry,
        Arc::new(FixedProvider::new(provider, "test-model")),
        root.join("agents"),
    )
    .with_gate(Arc::new(mgr));
    (h, fake)
}

/// Leaves a write waiting for approval, then drops the turn and the handler.
async fn pending_then_dropped(e: &Env) -> String {
    let (h, _) = gated(e).await;
    std::fs::write(e.path("r.txt"), "before\n").unwrap();
    let sid = e.session().await;
    let (turn, _sink, _) = turn_until_asked(&h, &sid).await;
    turn.abort();
    let _ = turn.await;
    drop(h);
    sid
}

#[tokio::test]
async fn after_a_restart_the_inbox_still_shows_it_and_approving_runs_it() {
    let e = env([ScriptedTurn::tool_reply(
        "r1",
        "write_file",
        r#"{"path": "r.txt", "content": "after\n"}"#,
    )])
    .await;
    let sid = pending_then_dropped(&e).await;
    let (h, fake) = restarted(&e, vec![ScriptedTurn::text_reply("all done")]).await;
    // Resuming on start leaves the approval alone.
    h.resume_all(None, RecordingSink::new()).await.unwrap();
    let inbox = h.list_pending().await.unwrap();
    assert_eq!(inbox.len(), 1, "{inbox:?}");
    assert_eq!(inbox[0].session_id, sid);
    assert!(!inbox[0].live);
    assert_eq!(inbox[0].request.tool_call_id, "r1");
    match &inbox[0].request.kind {
        ApprovalKind::Write {
            old_content,
            new_content,
            ..
        } => {
            assert_eq!(old_content.as_deref(), Some("before\n"));
            assert_eq!(new_content.as_deref(), Some("after\n"));
        }
        other => panic!("not a write: {other:?}"),
    }
    let sink = RecordingSink::new();
    let r = h.approve("r1", &sink).await.unwrap();
    assert_eq!(r, ApprovalResolution::Settled);
    assert_eq!(std::fs::read_to_string(e.path("r.txt")).unwrap(), "after\n");
    let row = h.store().tool_calls().get("r1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "done");
    // The turn continued: the model saw the result and answered.
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 1);
    assert!(tool_content(last_message(&reqs[0])).contains("r.txt"));
    let hist = h.store().history().list_for_session(&sid).await.unwrap();
    assert_eq!(hist.last().unwrap().content, "all done");
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::TurnEnded { .. }
    )));
    assert!(h.list_pending().await.unwrap().is_empty());
    // Answering twice is an error, not a second run.
    assert!(h.approve("r1", RecordingSink::new()).await.is_err());
}

#[tokio::test]
async fn after_a_restart_rejecting_records_the_note() {
    let e = env([ScriptedTurn::tool_reply(
        "r1",
        "write_file",
        r#"{"path": "r.txt", "content": "after\n"}"#,
    )])
    .await;
    let sid = pending_then_dropped(&e).await;
    let (h, fake) = restarted(&e, vec![ScriptedTurn::text_reply("ok")]).await;
    assert_eq!(h.list_pending().await.unwrap().len(), 1);
    h.reject("r1", Some("wrong file"), RecordingSink::new())
        .await
        .unwrap();
    let exact = "User rejected this tool call. Reason: wrong file";
    let row = h.store().tool_calls().get("r1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "rejected");
    assert_eq!(row.result.as_deref(), Some(exact));
    assert_eq!(
        std::fs::read_to_string(e.path("r.txt")).unwrap(),
        "before\n"
    );
    assert_eq!(tool_content(last_message(&fake.requests()[0])), exact);
    let hist = h.store().history().list_for_session(&sid).await.unwrap();
    assert!(hist.iter().any(|m| m.content == exact));
}

#[tokio::test]
async fn without_a_provider_a_restart_approval_is_only_recorded() {
    let e = env([ScriptedTurn::tool_reply(
        "r1",
        "write_file",
        r#"{"path": "r.txt", "content": "after\n"}"#,
    )])
    .await;
    let sid = pending_then_dropped(&e).await;
    let root = e.dir.path().canonicalize().unwrap();
    let store = Store::open(&root.join("data")).await.unwrap();
    let registry = Arc::new(builtin_registry(&BuiltinDeps::default()));
    let mgr = ApprovalManager::new(store.clone());
    let h = ChatSessionHandler::new(
        store.clone(),
        registry,
        Arc::new(skald_session::DefaultProviderResolver::new(store.clone())),
        root.join("agents"),
    )
    .with_gate(Arc::new(mgr));
    assert_eq!(
        h.approve("r1", RecordingSink::new()).await.unwrap(),
        ApprovalResolution::Settled
    );
    assert_eq!(std::fs::read_to_string(e.path("r.txt")).unwrap(), "after\n");
    let hist = store.history().list_for_session(&sid).await.unwrap();
    assert_eq!(hist.last().unwrap().tool_call_id.as_deref(), Some("r1"));
}

#[tokio::test]
async fn invalid_arguments_fail_before_the_gate_and_nobody_is_asked() {
    let e = env([
        ScriptedTurn::tool_reply(
            "v1",
            "execute_cmd",
            r#"{"command": "echo hi", "timeout": 0}"#,
        ),
        ScriptedTurn::text_reply("ok"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    let sink = Arc::new(RecordingSink::new());
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        h.send_message(&sid, "go", sink.clone()),
    )
    .await
    .expect("the turn waited for an approval")
    .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert!(requests_of(&sink).is_empty(), "no ApprovalRequired");
    assert!(mgr.waiting().is_empty());
    let row = e.store.tool_calls().get("v1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "failed");
    assert_eq!(row.decision, None);
    let request = e.request(1);
    let content = tool_content(last_message(&request));
    assert!(
        content.contains("timeout must be between 1 and 600 seconds, got 0"),
        "{content}"
    );
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::ToolError { tool_call_id, .. } if tool_call_id == "v1"
    )));
}

/// Waits for change signals until, at one of them, the Inbox lists `want`
/// calls: a signal sent before the DB changed would leave this waiting for
/// one that never comes.
async fn change_to(
    h: &ChatSessionHandler,
    rx: &mut tokio::sync::watch::Receiver<u64>,
    want: usize,
) {
    loop {
        tokio::time::timeout(Duration::from_secs(10), rx.changed())
            .await
            .unwrap_or_else(|_| panic!("no change signal showing {want} waiting"))
            .unwrap();
        if h.list_pending().await.unwrap().len() == want {
            return;
        }
    }
}

#[tokio::test]
async fn watchers_are_woken_once_the_db_shows_the_change() {
    let e = env([
        ScriptedTurn::tool_reply("w1", "write_file", r#"{"path": "a.txt", "content": "1\n"}"#),
        ScriptedTurn::tool_reply("w2", "write_file", r#"{"path": "b.txt", "content": "2\n"}"#),
        ScriptedTurn::text_reply("done"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    let mut rx = mgr.subscribe_changes();
    let sid = e.session().await;
    let sink = Arc::new(RecordingSink::new());
    let (h2, id, s2) = (h.clone(), sid.clone(), sink.clone());
    let turn = tokio::spawn(async move { h2.send_message(&id, "go", s2).await.unwrap() });

    // Asked: the signal comes when the row is already pending.
    change_to(&h, &mut rx, 1).await;
    h.approve("w1", RecordingSink::new()).await.unwrap();
    // The second write asks again; rejecting it settles it.
    wait_until("the second request", || requests_of(&sink).len() == 2).await;
    change_to(&h, &mut rx, 1).await;
    h.reject("w2", None, RecordingSink::new()).await.unwrap();
    change_to(&h, &mut rx, 0).await;
    assert_eq!(finish(turn).await, TurnOutcome::Completed);
}

#[tokio::test]
async fn the_extra_system_prompt_of_the_run_context_reaches_the_model() {
    let e = env([ScriptedTurn::text_reply("ok")]).await;
    let (h, mgr) = gated(&e).await;
    let sid = e.session().await;
    let mut ctx = mgr.run_context(&sid, None).await.unwrap();
    ctx.extra_system_prompt = Some("Answer in French.".into());
    mgr.set_run_context(&sid, &ctx).await.unwrap();
    h.send_message(&sid, "hi", RecordingSink::new())
        .await
        .unwrap();
    let system = e.request(0).system.unwrap();
    assert!(system.ends_with("\n\nAnswer in French."), "{system}");
    assert!(
        system.len() > "Answer in French.".len() + 2,
        "the agent's prompt is kept"
    );
}

#[tokio::test]
async fn the_working_dir_column_is_the_one_truth() {
    let e = env([]).await;
    let (_h, mgr) = gated(&e).await;
    let sid = e.session().await;
    let other = e.dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    // Saved through the RunContext: the column follows (tools read it).
    let mut ctx = mgr.run_context(&sid, None).await.unwrap();
    ctx.working_dir = Some(other.clone());
    mgr.set_run_context(&sid, &ctx).await.unwrap();
    let row = e.store.sessions().get(&sid).await.unwrap().unwrap();
    assert_eq!(row.working_dir.as_deref(), Some(other.to_str().unwrap()));
    // Changed on the column alone (`skald chat --workdir`): the gate follows.
    e.store
        .sessions()
        .set_working_dir(&sid, Some(e.workdir.to_str().unwrap()))
        .await
        .unwrap();
    let ctx = mgr.run_context(&sid, None).await.unwrap();
    assert_eq!(ctx.working_dir.as_deref(), Some(e.workdir.as_path()));
}

fn message(
    sid: &str,
    frame: i64,
    role: skald_store::Role,
    content: &str,
    calls: Option<serde_json::Value>,
) -> skald_store::NewMessage {
    skald_store::NewMessage {
        session_id: sid.to_string(),
        stack_id: Some(frame),
        role,
        content: content.into(),
        tool_calls: calls,
        tool_call_id: None,
    }
}

/// A session as a crash mid-turn leaves it: root frame active, the person's
/// message stored; returns the session and its frame.
async fn crashed_with(e: &Env, text: &str) -> (String, i64) {
    let sid = e.session().await;
    let frame = e.store.stack().top(&sid).await.unwrap().unwrap().id;
    e.store
        .stack()
        .set_status(frame, skald_store::FrameStatus::Active)
        .await
        .unwrap();
    e.store
        .history()
        .append(&message(&sid, frame, skald_store::Role::User, text, None))
        .await
        .unwrap();
    (sid, frame)
}

#[tokio::test]
async fn on_start_a_resume_waiting_for_a_person_holds_up_no_other_session() {
    use skald_store::{NewToolCall, Role, ToolCallStatus};
    let e = env([
        ScriptedTurn::text_reply("Sorry for the wait."),
        ScriptedTurn::text_reply("Read it."),
    ])
    .await;
    let (h, _mgr) = gated(&e).await;
    // A: crashed while reading a file outside the working directory — a
    // re-runnable call the rules make a person approve again.
    let outside = e.dir.path().canonicalize().unwrap().join("outside.txt");
    std::fs::write(&outside, "far away\n").unwrap();
    let (a, a_frame) = crashed_with(&e, "read it").await;
    let args = serde_json::json!({"path": outside}).to_string();
    let calls = serde_json::json!([{"id": "r1", "name": "read_file", "arguments": args}]);
    let assistant = e
        .store
        .history()
        .append(&message(&a, a_frame, Role::Assistant, "", Some(calls)))
        .await
        .unwrap();
    e.store
        .tool_calls()
        .insert(&NewToolCall {
            id: "r1".into(),
            session_id: a.clone(),
            message_id: Some(assistant.id),
            name: "read_file".into(),
            arguments: args,
            status: ToolCallStatus::Running,
        })
        .await
        .unwrap();
    // B: crashed before answering its person.
    let (b, _) = crashed_with(&e, "hello?").await;

    // A is the most recent, so a one-after-another resume would take it first.
    tokio::time::sleep(Duration::from_millis(5)).await;
    e.store.sessions().touch(&a).await.unwrap();
    assert_eq!(e.store.sessions().list().await.unwrap()[0].id, a);
    let h2 = h.clone();
    let resume =
        tokio::spawn(async move { h2.resume_all(None, RecordingSink::new()).await.unwrap() });
    // B is answered while A still waits for its person.
    let answered =
        |rows: &[skald_store::MessageRow]| rows.iter().any(|m| m.content == "Sorry for the wait.");
    for _ in 0..200 {
        if answered(&e.history_rows(&b).await) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        answered(&e.history_rows(&b).await),
        "B waited behind A's approval"
    );
    assert_eq!(
        e.store
            .tool_calls()
            .get("r1")
            .await
            .unwrap()
            .unwrap()
            .status
            .as_str(),
        "pending"
    );
    h.approve("r1", RecordingSink::new()).await.unwrap();
    let resumed = tokio::time::timeout(Duration::from_secs(10), resume)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resumed.len(), 2);
    assert_eq!(
        e.store
            .tool_calls()
            .get("r1")
            .await
            .unwrap()
            .unwrap()
            .status
            .as_str(),
        "done"
    );
}

#[tokio::test]
async fn a_deny_added_after_an_always_allow_still_takes_effect() {
    let e = env([
        ScriptedTurn::tool_reply("w1", "write_file", r#"{"path": "a.txt", "content": "x"}"#),
        ScriptedTurn::text_reply("understood"),
    ])
    .await;
    let (h, mgr) = gated(&e).await;
    // "Always allow" from an earlier approval: write_file in the workdir.
    mgr.add_rule(&write_rule(
        Some(format!("{}/*", e.workdir.display())),
        RuleAction::Allow,
        skald_approval::ALWAYS_ALLOW_PRIORITY,
    ))
    .await
    .unwrap();
    // Later the person denies write_file outright, at the form's priority.
    let deny = mgr
        .add_rule(&write_rule(None, RuleAction::Deny, 100))
        .await
        .unwrap();
    assert!(
        deny.priority > skald_approval::ALWAYS_ALLOW_PRIORITY,
        "{}",
        deny.priority
    );
    let sid = e.session().await;
    h.send_message(&sid, "write", RecordingSink::new())
        .await
        .unwrap();
    assert!(
        !e.path("a.txt").exists(),
        "the later deny lost to the always-allow"
    );
    let row = e.store.tool_calls().get("w1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "rejected");
}
