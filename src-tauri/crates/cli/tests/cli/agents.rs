//! `skald agents` and the person's agents folder: the bundled agents are
//! listed with their types, `<data dir>/agents` (or `SKALD_AGENTS_DIR`)
//! adds and overrides agents, and a malformed `meta.json` is named with its
//! reason while the others stay usable. `skald chat` nests a sub-agent's
//! activity under its call.

use serde_json::{Value, json};
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};

use crate::{command, skald, stderr, stdout};

#[test]
fn the_bundled_agents_are_listed_with_their_types() {
    let dir = tempfile::tempdir().unwrap();
    let out = skald(&["agents"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let ids: Vec<(&str, &str)> = text
        .lines()
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("code-explorer", "task"),
            ("main", "chat"),
            ("project-coordinator", "chat"),
            ("researcher", "task"),
            ("software-engineer", "task"),
            ("spec-writer", "task"),
        ]
    );
}

#[test]
fn the_users_folder_adds_and_overrides_and_a_broken_agent_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mine = data.join("agents");
    for (id, meta) in [
        (
            "researcher",
            r#"{"name": "My researcher", "description": "mine", "type": "task"}"#,
        ),
        (
            "helper",
            r#"{"name": "Helper", "description": "helps", "type": "task", "model": "small"}"#,
        ),
        (
            "broken",
            r#"{"name": "Broken", "description": "x", "type": "robot"}"#,
        ),
    ] {
        std::fs::create_dir_all(mine.join(id)).unwrap();
        std::fs::write(mine.join(id).join("meta.json"), meta).unwrap();
        std::fs::write(mine.join(id).join("AGENT.md"), "Prompt.\n").unwrap();
    }
    let out = skald(&["agents", "--json"], &data);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let agents = v["agents"].as_array().unwrap();
    let by_id = |id: &str| agents.iter().find(|a| a["id"] == id).cloned();
    assert_eq!(by_id("researcher").unwrap()["name"], "My researcher");
    assert_eq!(by_id("helper").unwrap()["model"], "small");
    assert_eq!(by_id("main").unwrap()["type"], "chat");
    assert!(by_id("broken").is_none());
    assert_eq!(v["problems"][0]["id"], "broken");
    assert!(
        v["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("robot"),
        "{v}"
    );
    // The plain listing names it on stderr, with the file.
    let out = skald(&["agents"], &data);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("agent `broken` skipped"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("broken/meta.json"),
        "{}",
        stderr(&out)
    );
    // SKALD_AGENTS_DIR is the person's folder instead.
    let other = dir.path().join("other");
    std::fs::create_dir_all(other.join("solo")).unwrap();
    std::fs::write(other.join("solo/AGENT.md"), "Solo.\n").unwrap();
    let out = command(&data)
        .env("SKALD_AGENTS_DIR", &other)
        .args(["agents"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("solo "), "{}", stdout(&out));
    assert!(!stdout(&out).contains("helper"), "{}", stdout(&out));
}

#[test]
fn chat_prints_a_sub_agents_activity_indented() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let task = json!({
        "mode": "sync",
        "title": "Look around",
        "prompt": "List the files.",
        "agent_id": "code-explorer",
    });
    let mock = MockServer::start([
        sse_tool_call("call_task", "execute_task", &task.to_string()),
        sse_tool_call("call_ls", "list_files", "{}"),
        sse_text("Nothing here."),
        sse_text("The explorer found nothing."),
    ])
    .unwrap();
    let out = command(&dir.path().join("data"))
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .args([
            "chat",
            "--model",
            "test-model",
            "--workdir",
            work.to_str().unwrap(),
            "--approve",
            "yes",
            "Look around",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "The explorer found nothing.");
    let err = stderr(&out);
    // In order, whatever approval lines come between: the call, the
    // sub-agent's start, its call and answer indented, its end, the result.
    let expected = [
        "▶ execute_task ⚡ → code-explorer: Look around",
        "  ↳ code-explorer started",
        "  ▶ list_files",
        "  ✓ list_files",
        "  │ Nothing here.",
        "  ↳ code-explorer finished",
        "✓ execute_task ⚡ → code-explorer: Look around",
    ];
    let mut lines = err.lines();
    for want in expected {
        assert!(
            lines.any(|l| l.starts_with(want)),
            "missing (in order) {want:?} in:\n{err}"
        );
    }
}
