//! Background tasks on the real binary: `skald chat` waits for the async
//! task its turn started and shows the resumed turn; `skald tasks` /
//! `skald cron` list and show them; a SIGKILL during an async task, then
//! `skald resume`: the run is reported interrupted (never re-run), its
//! ending reaches the parent once, and its side effect happened once.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skald_llm_mock::{Match, MockServer, sse_text, sse_tool_call};
use skald_store::{Role, Store, ToolCallStatus};
use skald_tools::exec::processes_running;

use crate::{command, stderr, stdout};

fn with_mock(data: &Path, mock: &MockServer) -> std::process::Command {
    let mut c = command(data);
    c.env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::null());
    c
}

fn start_task(prompt: &str) -> String {
    sse_tool_call(
        "t1",
        "execute_task",
        &json!({"mode": "async", "title": "Background job", "prompt": prompt, "agent_id": "software-engineer"})
            .to_string(),
    )
}

/// The worker's requests carry its prompt as a user message (the parent's
/// carry it only inside the call's arguments).
fn worker(prompt: &str) -> Match {
    Match::user_contains(prompt)
}

#[test]
fn skald_chat_waits_for_its_async_task_and_shows_the_resumed_turn() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let work = dir.path().canonicalize().unwrap();
    let mock = MockServer::start([
        start_task("Count the files in src."),
        sse_text("Started it."),
        sse_text("The task found 42 files."),
    ])
    .unwrap();
    mock.push_for(worker("Count the files in src."), sse_text("42 files."));
    let out = with_mock(&data, &mock)
        .args([
            "chat",
            "count in the background",
            "--approve",
            "yes",
            "--model",
            "mock-small",
            "--workdir",
        ])
        .arg(&work)
        .output()
        .unwrap();
    let (so, se) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{se}");
    assert!(se.contains("waiting for 1 background task"), "{se}");
    assert!(so.contains("Started it."), "{so}");
    assert!(so.contains("The task found 42 files."), "{so}");
    assert!(
        se.contains("task_completed 🚀 → software-engineer: Background job"),
        "{se}"
    );

    let list = with_mock(&data, &mock).args(["tasks"]).output().unwrap();
    assert!(list.status.success(), "{}", stderr(&list));
    let line = stdout(&list);
    assert!(line.contains("done"), "{line}");
    assert!(
        line.contains("Background job → software-engineer"),
        "{line}"
    );
    let show = with_mock(&data, &mock)
        .args(["tasks", "show", "1", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&stdout(&show)).unwrap();
    assert_eq!(v["task"]["state"], "done");
    assert_eq!(v["runs"][0]["output"], "42 files.");
    assert!(v["runs"][0]["sessionId"].is_string());
    let stop = with_mock(&data, &mock)
        .args(["tasks", "stop", "1"])
        .output()
        .unwrap();
    assert_eq!(stop.status.code(), Some(1));
    assert!(stderr(&stop).contains("task 1 is not running"));
    let missing = with_mock(&data, &mock)
        .args(["tasks", "show", "9"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let cron = with_mock(&data, &mock)
        .args(["cron", "run", "1"])
        .output()
        .unwrap();
    assert_eq!(cron.status.code(), Some(2));
    assert!(
        stderr(&cron).contains("only cron jobs run again"),
        "{}",
        stderr(&cron)
    );
}

fn sleeping(n: &str) -> Vec<i32> {
    processes_running(&["sleep", n])
}

#[tokio::test]
async fn sigkill_during_an_async_task_then_resume_reports_it_interrupted_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let data = root.join("data");
    let work = root.join("w");
    std::fs::create_dir_all(&work).unwrap();
    let n = format!("{}.{}", 3300, std::process::id());
    let mock = MockServer::start([start_task("Run the backup."), sse_text("Started.")]).unwrap();
    mock.push_for(
        worker("Run the backup."),
        sse_tool_call(
            "w1",
            "execute_cmd",
            &json!({"command": format!("echo started >> side.txt; sleep {n}; echo finished >> side.txt")})
                .to_string(),
        ),
    );
    let mut child = with_mock(&data, &mock)
        .args([
            "chat",
            "back it up",
            "--approve",
            "yes",
            "--model",
            "mock-small",
            "--workdir",
        ])
        .arg(&work)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let side = work.join("side.txt");
    let start = Instant::now();
    while sleeping(&n).is_empty() || !std::fs::read_to_string(&side).is_ok_and(|s| s == "started\n")
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the task's command never ran"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The parent's own turn is over; only the task is running.
    let store = Store::open(&data).await.unwrap();
    let sessions = store.sessions().list().await.unwrap();
    let parent = sessions
        .iter()
        .find(|s| {
            s.run_context
                .as_ref()
                .is_none_or(|rc| rc.get("background").is_none())
        })
        .unwrap()
        .id
        .clone();
    let start = Instant::now();
    while !store
        .history()
        .list_for_session(&parent)
        .await
        .unwrap()
        .iter()
        .any(|m| m.role == Role::Assistant && m.content == "Started.")
    {
        assert!(start.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let start = Instant::now();
    while !sleeping(&n).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the task's shell outlived skald"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let jobs = store.jobs();
    assert_eq!(
        jobs.running_runs().await.unwrap().len(),
        1,
        "left running by the crash"
    );

    // Restart: the run is reported, not re-run; the parent hears it once.
    mock.push(sse_text(
        "The backup was interrupted; shall I run it again?",
    ));
    let out = with_mock(&data, &mock)
        .args(["resume", "--approve", "yes", "--model", "mock-small"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 background task run(s) interrupted"),
        "{}",
        stderr(&out)
    );
    let again = with_mock(&data, &mock)
        .args(["resume", "--approve", "yes", "--model", "mock-small"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        std::fs::read_to_string(&side).unwrap(),
        "started\n",
        "never re-run"
    );

    let run = &jobs.list_runs(1, 10).await.unwrap();
    assert_eq!(run.len(), 1);
    assert_eq!(run[0].status.as_str(), "interrupted");
    assert!(run[0].delivered_at.is_some());
    let bg = run[0].session_id.clone().unwrap();
    let bg_calls = store.tool_calls().list_for_session(&bg).await.unwrap();
    assert_eq!(bg_calls.len(), 1);
    assert_eq!(bg_calls[0].status, ToolCallStatus::Cancelled);
    let delivered: Vec<_> = store
        .tool_calls()
        .list_for_session(&parent)
        .await
        .unwrap()
        .into_iter()
        .filter(|c| c.name == "task_completed")
        .collect();
    assert_eq!(delivered.len(), 1, "delivered exactly once");
    let result: Value = serde_json::from_str(delivered[0].result.as_deref().unwrap()).unwrap();
    assert_eq!(result["status"], "interrupted");
    let history = store.history().list_for_session(&parent).await.unwrap();
    assert_eq!(
        history.last().unwrap().content,
        "The backup was interrupted; shall I run it again?"
    );
    // The worker's model was asked once, before the crash.
    let worker_requests = mock
        .bodies()
        .iter()
        .filter(|b| worker("Run the backup.").matches(b))
        .count();
    assert_eq!(worker_requests, 1);
    store.close().await;
}
