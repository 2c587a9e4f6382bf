//! A real process SIGKILLed while a re-runnable tool runs; a fresh process on
//! the same DB resumes: the call is re-run from intent once, the turn is
//! answered, and the rows are exactly what they should be.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};
use skald_session::proc_harness::{Scratch, colour_question, file_contains, kill_when, sigkill};
use skald_store::Store;

use crate::common::{shape, tool_shape};

fn harness(data: &Path, work: &Path, mock: &MockServer) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_session-harness"));
    c.arg("--data-dir")
        .arg(data)
        .arg("--workdir")
        .arg(work)
        .args(["--model", "test-model"])
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OLLAMA_HOST")
        .current_dir(work)
        .stdin(Stdio::null());
    c
}

#[tokio::test]
async fn sigkill_during_a_rerun_tool_then_restart_reruns_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let Scratch { data, work, .. } = Scratch::in_dir(dir.path()).unwrap();
    let probe = work.join("probe.txt");
    std::fs::write(&probe, "probe content").unwrap();
    let mock = MockServer::start([
        sse_tool_call(
            "call_probe",
            "slow_probe",
            &json!({"path": probe}).to_string(),
        ),
        sse_text("The probe says: probe content"),
    ])
    .unwrap();

    let mut child = harness(&data, &work, &mock)
        .args(["chat", "Read the probe"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let runs = work.join("probe.runs");
    kill_when(&mut child, "the tool's start", || {
        file_contains(&runs, "start")
    });

    // What the killed process left on disk.
    let store = Store::open(&data).await.unwrap();
    let sessions = store.sessions().list().await.unwrap();
    assert_eq!(sessions.len(), 1);
    let sid = sessions[0].id.clone();
    let rows = store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(
        tool_shape(&rows),
        vec![(
            "call_probe".into(),
            "slow_probe".into(),
            "running".into(),
            None
        )]
    );
    let hist = shape(&store.history().list_for_session(&sid).await.unwrap());
    assert_eq!(hist.len(), 2, "{hist:?}");
    store.close().await;

    // Restart on the same DB; this time the probe may finish.
    std::fs::write(work.join("probe.go"), "").unwrap();
    let out = harness(&data, &work, &mock).arg("resume").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let store = Store::open(&data).await.unwrap();
    let rows = store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(
        tool_shape(&rows),
        vec![(
            "call_probe".into(),
            "slow_probe".into(),
            "done".into(),
            Some("probe content".into())
        )]
    );
    let hist = shape(&store.history().list_for_session(&sid).await.unwrap());
    assert_eq!(
        hist,
        vec![
            ("user".into(), "Read the probe".into(), None),
            ("assistant".into(), String::new(), None),
            (
                "tool".into(),
                "probe content".into(),
                Some("call_probe".into())
            ),
            (
                "assistant".into(),
                "The probe says: probe content".into(),
                None
            ),
        ]
    );
    // Started once before the kill, re-run once from intent after it.
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "start\nstart\n");
    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["content"], "probe content");
    assert_eq!(last["tool_call_id"], "call_probe");

    // Nothing left to resume.
    let out = harness(&data, &work, &mock).arg("resume").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        store.history().list_for_session(&sid).await.unwrap().len(),
        4
    );
    assert_eq!(mock.bodies().len(), 2);
    store.close().await;
}

/// SIGKILL while a sync sub-agent's re-runnable tool runs, after the
/// sub-agent already ran a side-effecting command: on restart its frame
/// continues from its persisted history (the command is not run again, the
/// re-runnable call is re-run from intent once), its answer becomes the
/// parent's `execute_task` result, and the parent's turn is answered.
#[tokio::test]
async fn sigkill_during_a_sync_sub_agent_then_restart_continues_its_frame() {
    let dir = tempfile::tempdir().unwrap();
    let Scratch { data, work, .. } = Scratch::in_dir(dir.path()).unwrap();
    let probe = work.join("probe.txt");
    std::fs::write(&probe, "probe content").unwrap();
    let task = json!({
        "mode": "sync",
        "title": "Probe",
        "prompt": "Run the side effect, then read the probe.",
        "agent_id": "software-engineer",
    });
    let mock = MockServer::start([
        // main delegates
        sse_tool_call("call_task", "execute_task", &task.to_string()),
        // the sub-agent: a side effect, then the slow probe
        sse_tool_call(
            "call_cmd",
            "execute_cmd",
            &json!({"command": "echo ran >> side.txt"}).to_string(),
        ),
        sse_tool_call(
            "call_probe",
            "slow_probe",
            &json!({"path": probe}).to_string(),
        ),
        // after the restart: the sub-agent answers, then main
        sse_text("The probe says: probe content"),
        sse_text("Done: the probe says probe content."),
    ])
    .unwrap();

    let mut child = harness(&data, &work, &mock)
        .args(["chat", "Delegate the probe"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let runs = work.join("probe.runs");
    kill_when(&mut child, "the sub-agent's tool's start", || {
        file_contains(&runs, "start")
    });

    let store = Store::open(&data).await.unwrap();
    let sid = store.sessions().list().await.unwrap()[0].id.clone();
    let status = |rows: &[skald_store::ToolCallRow]| -> Vec<(String, String)> {
        rows.iter()
            .map(|r| (r.id.clone(), r.status.as_str().to_string()))
            .collect()
    };
    let rows = store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(
        status(&rows),
        [
            ("call_task".to_string(), "running".to_string()),
            ("call_cmd".to_string(), "done".to_string()),
            ("call_probe".to_string(), "running".to_string()),
        ]
    );
    let frames = store.stack().list_for_session(&sid).await.unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[1].parent_call_id.as_deref(), Some("call_task"));
    assert_eq!(frames[1].status.as_str(), "active");
    store.close().await;

    std::fs::write(work.join("probe.go"), "").unwrap();
    let out = harness(&data, &work, &mock).arg("resume").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let store = Store::open(&data).await.unwrap();
    let rows = store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(
        status(&rows),
        [
            ("call_task".to_string(), "done".to_string()),
            ("call_cmd".to_string(), "done".to_string()),
            ("call_probe".to_string(), "done".to_string()),
        ]
    );
    assert_eq!(
        rows[0].result.as_deref(),
        Some("The probe says: probe content")
    );
    let frames = store.stack().list_for_session(&sid).await.unwrap();
    assert_eq!(frames.len(), 2, "no second sub-agent was started");
    assert_eq!(frames[1].status.as_str(), "done");
    // The side effect happened once; the re-runnable probe re-ran once.
    assert_eq!(
        std::fs::read_to_string(work.join("side.txt")).unwrap(),
        "ran\n"
    );
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "start\nstart\n");
    // The sub-agent's request after the restart: its own prompt and its own
    // history, with the re-run probe's result last.
    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 5);
    let sub = &reqs[3];
    let system = sub["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You are a software engineer"),
        "{system}"
    );
    let msgs = sub["messages"].as_array().unwrap();
    assert_eq!(
        msgs[1]["content"],
        "Run the side effect, then read the probe."
    );
    assert_eq!(msgs.last().unwrap()["content"], "probe content");
    assert_eq!(msgs.len(), 6, "{msgs:?}");
    // main reads the sub-agent's answer as its tool result.
    let last = reqs[4]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["tool_call_id"], "call_task");
    assert_eq!(last["content"], "The probe says: probe content");
    let root_hist = shape(&store.history().list_for_frame(frames[0].id).await.unwrap());
    assert_eq!(root_hist.len(), 4, "{root_hist:?}");
    assert_eq!(root_hist[3].1, "Done: the probe says probe content.");

    // Nothing left to resume.
    let out = harness(&data, &work, &mock).arg("resume").output().unwrap();
    assert!(out.status.success());
    assert_eq!(mock.bodies().len(), 5);
    store.close().await;
}

/// A question survives a SIGKILL of the process that asked: the restarted
/// process re-asks it (the same pending row), an answer given from another
/// process (the Inbox) reaches it, and the turn goes on with it.
#[tokio::test]
async fn a_question_survives_sigkill_and_its_answer_after_restart_continues_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let Scratch { data, work, .. } = Scratch::in_dir(dir.path()).unwrap();
    let mock = MockServer::start([
        sse_tool_call("call_q", "ask_user_clarification", &colour_question()),
        sse_text("Blue it is."),
    ])
    .unwrap();
    let mut child = harness(&data, &work, &mock)
        .args(["chat", "Paint it"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let store = Store::open(&data).await.unwrap();
    let asked = async |store: &Store| {
        let start = Instant::now();
        loop {
            let pending = store.clarifications().list_pending().await.unwrap();
            if let Some(q) = pending.into_iter().next() {
                return q;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "never asked");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let q = asked(&store).await;
    assert_eq!(
        (q.tool_call_id.as_str(), q.title.as_str()),
        ("call_q", "Colour")
    );
    sigkill(&mut child);
    // Still pending on disk; the call is left running (re-run on start).
    let q = store.clarifications().get("call_q").await.unwrap().unwrap();
    assert_eq!(q.status, "pending");

    // Restart: the call is re-run and asks again, waiting.
    let mut restarted = harness(&data, &work, &mock)
        .arg("resume")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        restarted.try_wait().unwrap().is_none(),
        "resume must wait for the answer"
    );
    assert_eq!(mock.bodies().len(), 1);
    // Answered from another process, as the app's Inbox does.
    assert!(
        store
            .clarifications()
            .answer("call_q", "blue")
            .await
            .unwrap()
    );
    let start = Instant::now();
    let status = loop {
        if let Some(s) = restarted.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "resume never finished"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success());
    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["content"], "blue");
    let sid = store.sessions().list().await.unwrap()[0].id.clone();
    let rows = store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(rows[0].status.as_str(), "done");
    assert_eq!(
        store
            .clarifications()
            .get("call_q")
            .await
            .unwrap()
            .unwrap()
            .status,
        "answered"
    );
    store.close().await;
}
