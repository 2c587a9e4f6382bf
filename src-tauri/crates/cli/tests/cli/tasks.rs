//! Background tasks on the real binary: `skald chat` waits for the async
//! task its turn started and shows the resumed turn; `skald tasks` /
//! `skald cron` list and show them; `skald sessions` lists the chat, not
//! the task's session; `skald cron tz` shows and sets the time zone.
//! Crashes (SIGKILL) are in `tasks_crash.rs`.

use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};
use skald_llm_mock::{Match, MockServer, sse_text, sse_tool_call};

use crate::{command, stderr, stdout};

pub(crate) fn with_mock(data: &Path, mock: &MockServer) -> std::process::Command {
    let mut c = command(data);
    c.env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::null());
    c
}

pub(crate) fn start_task(prompt: &str) -> String {
    sse_tool_call(
        "t1",
        "execute_task",
        &json!({"mode": "async", "title": "Background job", "prompt": prompt, "agent_id": "software-engineer"})
            .to_string(),
    )
}

/// The worker's requests carry its prompt as a user message (the parent's
/// carry it only inside the call's arguments).
pub(crate) fn worker(prompt: &str) -> Match {
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
    // The chat list has the conversation only: the task's session is
    // reached through its run (`sessionId` above), not as a chat.
    let sessions = with_mock(&data, &mock)
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_str(&stdout(&sessions)).unwrap();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "{listed}");
    assert_ne!(Some(ids[0]), v["runs"][0]["sessionId"].as_str());
}

#[test]
fn skald_cron_tz_shows_sets_and_resets_the_time_zone_new_cron_jobs_use() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let tz = |args: &[&str]| {
        let out = command(&data)
            .args(["cron", "tz"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            stdout(&out).trim().to_string(),
            stderr(&out),
        )
    };
    let (code, system, err) = tz(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("the system's"), "{err}");
    let (code, zone, err) = tz(&["America/New_York"]);
    assert_eq!(
        (code, zone.as_str()),
        (Some(0), "America/New_York"),
        "{err}"
    );
    assert!(err.contains("set by you"), "{err}");
    // Stored: the next process reads it.
    assert_eq!(tz(&[]).1, "America/New_York");
    let (code, _, err) = tz(&["Mars/Olympus"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown time zone"), "{err}");
    assert_eq!(tz(&[]).1, "America/New_York", "unchanged by a bad name");
    // `skald chat` schedules in it.
    let mock = MockServer::start([
        sse_tool_call(
            "c1",
            "execute_task",
            &json!({"mode": "cron", "title": "Standup notes", "prompt": "Summarise.",
                    "agent_id": "software-engineer", "cron": "0 9 * * 1-5"})
            .to_string(),
        ),
        sse_text("Scheduled."),
    ])
    .unwrap();
    let out = with_mock(&data, &mock)
        .args(["chat", "every weekday at nine", "--approve", "yes"])
        .args(["--model", "mock-small"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let list = with_mock(&data, &mock)
        .args(["cron", "list", "--json"])
        .output()
        .unwrap();
    let jobs: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert_eq!(jobs[0]["timeZone"], "America/New_York", "{jobs}");
    let (code, zone, err) = tz(&["--system"]);
    assert_eq!((code, zone), (Some(0), system.clone()), "{err}");
    assert_eq!(tz(&[]).1, system);
}
