//! The crash test on the real binary: `skald chat` is SIGKILLed while
//! `execute_cmd` runs `sleep 30`; `skald resume` on the same DB must not run
//! the command again (its restart hint is Reask): the call is recorded as
//! interrupted, the model is told so, and the turn is answered — with no lost
//! or duplicated rows. While the first process is still alive, a second
//! one's resume leaves its session alone.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use skald_session::notes;
use skald_session::testing::{MockOpenAi, sse_text, sse_tool_call};
use skald_store::Store;
use skald_tools::exec::live_group_members;

use crate::{command, stderr};

fn with_mock(data: &Path, mock: &MockOpenAi) -> std::process::Command {
    let mut c = command(data);
    c.env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::null());
    c
}

/// Kills the command's process group (a no-op once the watchdog did).
fn kill_group(pgid: i32) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status();
}

#[tokio::test]
async fn sigkill_during_execute_cmd_then_resume_never_reruns_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let command_line = "echo ran >> runs.txt; echo $$ > pgid.txt; sleep 30";
    let mock = MockOpenAi::start([
        sse_tool_call(
            "call_cmd",
            "execute_cmd",
            &json!({"command": command_line}).to_string(),
        ),
        sse_text("The command was interrupted; shall I run it again?"),
    ])
    .unwrap();

    let mut child = with_mock(&data, &mock)
        .args([
            "chat",
            "--model",
            "test-model",
            "--workdir",
            work.to_str().unwrap(),
            "--approve",
            "yes",
            "Run the slow thing",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pgid_file = work.join("pgid.txt");
    let start = Instant::now();
    let pgid = loop {
        if let Some(g) = std::fs::read_to_string(&pgid_file)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            && !live_group_members(g).is_empty()
        {
            break g;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the command never started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // While that turn runs, a second process's resume must leave the session
    // alone: its running call is not a crash (the lease says so).
    let out = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("busy in another Skald process"),
        "{}",
        stderr(&out)
    );
    let sid = {
        let store = Store::open(&data).await.unwrap();
        let row = store.tool_calls().get("call_cmd").await.unwrap().unwrap();
        assert_eq!(
            row.status.as_str(),
            "running",
            "a live turn was treated as crashed"
        );
        let sid = store.sessions().list().await.unwrap()[0].id.clone();
        store.close().await;
        sid
    };
    // Nor can it start a second turn there.
    let out = with_mock(&data, &mock)
        .args([
            "chat",
            "--session",
            &sid,
            "--model",
            "test-model",
            "Are you there?",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("busy in another Skald process"),
        "{}",
        stderr(&out)
    );
    assert!(
        !live_group_members(pgid).is_empty(),
        "the command was disturbed"
    );

    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    // The command's watchdog sees its host gone and kills the whole group.
    let killed = Instant::now();
    while !live_group_members(pgid).is_empty() && killed.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let orphans = live_group_members(pgid);
    kill_group(pgid); // never leave a `sleep 30` behind, even when failing
    assert!(
        orphans.is_empty(),
        "the command outlived its SIGKILLed host: {orphans:?}"
    );

    let store = Store::open(&data).await.unwrap();
    let row = store.tool_calls().get("call_cmd").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "running");
    assert_eq!(
        store.history().list_for_session(&sid).await.unwrap().len(),
        2
    );
    store.close().await;

    let out = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted 1"), "{}", stderr(&out));

    let store = Store::open(&data).await.unwrap();
    let rows = store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, "call_cmd");
    assert_eq!(rows[0].status.as_str(), "cancelled");
    assert_eq!(rows[0].result.as_deref(), Some(notes::INTERRUPTED));
    let args: serde_json::Value = serde_json::from_str(&rows[0].arguments).unwrap();
    assert_eq!(
        args["workdir"],
        json!(work.to_string_lossy()),
        "effective arguments persisted"
    );
    let hist: Vec<(String, String, Option<String>)> = store
        .history()
        .list_for_session(&sid)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.role.as_str().to_string(), m.content, m.tool_call_id))
        .collect();
    assert_eq!(
        hist,
        vec![
            ("user".into(), "Run the slow thing".into(), None),
            ("assistant".into(), String::new(), None),
            (
                "tool".into(),
                notes::INTERRUPTED.into(),
                Some("call_cmd".into())
            ),
            (
                "assistant".into(),
                "The command was interrupted; shall I run it again?".into(),
                None
            ),
        ]
    );
    // Ran exactly once: before the kill.
    assert_eq!(
        std::fs::read_to_string(work.join("runs.txt")).unwrap(),
        "ran\n"
    );
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], notes::INTERRUPTED);

    // A second restart finds nothing to do.
    let out = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("nothing to resume"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        store.history().list_for_session(&sid).await.unwrap().len(),
        4
    );
    store.close().await;
}

/// `skald resume` re-runs a re-runnable call that the rules make a person
/// approve again; with no terminal to ask on it must reject it, not wait
/// forever for an answer no other process can give.
#[tokio::test]
async fn resume_never_waits_forever_on_an_approval() {
    use skald_store::{FrameStatus, NewMessage, NewToolCall, Role, ToolCallStatus};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let outside = root.join("outside.txt");
    std::fs::write(&outside, "far away\n").unwrap();
    let mock = MockOpenAi::start([sse_text("Hello."), sse_text("I could not read it.")]).unwrap();
    // A session, then the state a crash mid-call leaves: a read of a file
    // outside the working directory (asked about by the catch-all rule).
    let out = with_mock(&data, &mock)
        .args([
            "chat",
            "--model",
            "test-model",
            "--workdir",
            work.to_str().unwrap(),
            "hi",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let store = Store::open(&data).await.unwrap();
    let sid = store.sessions().list().await.unwrap()[0].id.clone();
    let frame = store.stack().top(&sid).await.unwrap().unwrap().id;
    store
        .stack()
        .set_status(frame, FrameStatus::Active)
        .await
        .unwrap();
    let message = |role, content: &str, calls| NewMessage {
        session_id: sid.clone(),
        stack_id: Some(frame),
        role,
        content: content.into(),
        tool_calls: calls,
        tool_call_id: None,
    };
    store
        .history()
        .append(&message(Role::User, "read it", None))
        .await
        .unwrap();
    let args = json!({"path": outside}).to_string();
    let calls = json!([{"id": "r1", "name": "read_file", "arguments": args}]);
    let assistant = store
        .history()
        .append(&message(Role::Assistant, "", Some(calls)))
        .await
        .unwrap();
    store
        .tool_calls()
        .insert(&NewToolCall {
            id: "r1".into(),
            session_id: sid.clone(),
            message_id: Some(assistant.id),
            name: "read_file".into(),
            arguments: args,
            status: ToolCallStatus::Running,
        })
        .await
        .unwrap();
    store.close().await;

    let mut child = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("skald resume waited for an approval nobody can give");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(err.contains("stdin is not a terminal: rejecting"), "{err}");
    let store = Store::open(&data).await.unwrap();
    let row = store.tool_calls().get("r1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "rejected");
    store.close().await;
}
