//! A real process SIGKILLed while a re-runnable tool runs; a fresh process on
//! the same DB resumes: the call is re-run from intent once, the turn is
//! answered, and the rows are exactly what they should be.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use skald_session::testing::{MockOpenAi, sse_text, sse_tool_call};
use skald_store::Store;

use crate::common::{shape, tool_shape};

fn harness(data: &Path, work: &Path, mock: &MockOpenAi) -> Command {
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
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let probe = work.join("probe.txt");
    std::fs::write(&probe, "probe content").unwrap();
    let mock = MockOpenAi::start([
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
    let start = Instant::now();
    while !std::fs::read_to_string(&runs).is_ok_and(|s| s.contains("start")) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the tool never started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

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
    let reqs = mock.requests();
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
    assert_eq!(mock.requests().len(), 2);
    store.close().await;
}

/// A question survives a SIGKILL of the process that asked: the restarted
/// process re-asks it (the same pending row), an answer given from another
/// process (the Inbox) reaches it, and the turn goes on with it.
#[tokio::test]
async fn a_question_survives_sigkill_and_its_answer_after_restart_continues_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let mock = MockOpenAi::start([
        sse_tool_call(
            "call_q",
            "ask_user_clarification",
            &json!({"title": "Colour", "question": "Which colour?",
                    "suggested_answers": ["red", "blue"]})
            .to_string(),
        ),
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
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
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
    assert_eq!(mock.requests().len(), 1);
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
    let reqs = mock.requests();
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
