//! A chat's model from a terminal, against the scripted OpenAI-compatible
//! mock: `skald chat` names the model that answered (as the app shows it
//! on each answer), `skald sessions model` gives a chat its own model (the
//! chat header's switcher), and `--model` on `retry` / `regenerate` /
//! `edit` asks another model for that redo only.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use skald_llm_mock::{MockServer, Reply, sse_text};

use crate::{command, run_with_mock as run, stderr, stdout};

fn ok(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
}

/// The `model` field of the mock's `n`-th chat request.
fn asked(mock: &MockServer, n: usize) -> String {
    mock.bodies()[n]["model"].as_str().unwrap().to_string()
}

/// The printed `model: NAME` lines of a run.
fn printed_models(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter_map(|l| l.strip_prefix("model: "))
        .map(str::to_string)
        .collect()
}

/// `mock-small` is the default (environment endpoint); a first turn; the
/// session's id.
fn first_turn(data: &Path, mock: &MockServer) -> String {
    let work = data.parent().unwrap().join("work");
    std::fs::create_dir_all(&work).unwrap();
    ok(&run(data, mock, &["models", "use", "mock-small"]));
    let out = run(
        data,
        mock,
        &["chat", "--workdir", work.to_str().unwrap(), "Hello"],
    );
    ok(&out);
    assert_eq!(printed_models(&out), ["mock-small"]);
    let list = command(data).args(["sessions", "--json"]).output().unwrap();
    let sessions: Value = serde_json::from_str(&stdout(&list)).unwrap();
    sessions[0]["id"].as_str().unwrap().to_string()
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().canonicalize().unwrap().join("data");
    (dir, data)
}

#[test]
fn chat_prints_the_model_that_answered_and_a_failed_turn_names_none() {
    let (_dir, data) = setup();
    let mock = MockServer::start([sse_text("Hi."), sse_text("Again.")]).unwrap();
    let sid = first_turn(&data, &mock);
    assert_eq!(asked(&mock, 0), "mock-small");
    // `--model` for one message: asked, and named with the answer.
    let out = run(
        &data,
        &mock,
        &["chat", "--model", "mock-other", "--session", &sid, "More"],
    );
    ok(&out);
    assert_eq!(stdout(&out), "Again.\n");
    assert_eq!(asked(&mock, 1), "mock-other");
    assert_eq!(printed_models(&out), ["mock-other"]);
    // A turn that failed before any answer names no model.
    mock.push(Reply::error(
        400,
        json!({"error": {"message": "no such model", "type": "invalid_request_error"}}),
    ));
    let out = run(&data, &mock, &["chat", "--session", &sid, "Fail"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(printed_models(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn sessions_model_sets_shows_and_resets_a_chats_own_model() {
    let (_dir, data) = setup();
    let mock = MockServer::start([sse_text("Hi.")]).unwrap();
    let sid = first_turn(&data, &mock);

    let out = run(
        &data,
        &mock,
        &["sessions", "model", &sid, "env:openai/mock-large"],
    );
    ok(&out);
    assert!(
        stderr(&out).contains("now asks env:openai/mock-large"),
        "{}",
        stderr(&out)
    );
    let out = run(&data, &mock, &["sessions", "model", &sid]);
    ok(&out);
    assert!(
        stderr(&out).contains("this chat asks env:openai/mock-large"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("the default is env:openai/mock-small"),
        "{}",
        stderr(&out)
    );

    // The chat's next turns ask it, with no `--model`, and say so.
    mock.push(sse_text("Large answer."));
    let out = run(&data, &mock, &["chat", "--session", &sid, "And now?"]);
    ok(&out);
    assert_eq!(asked(&mock, 1), "mock-large");
    assert_eq!(printed_models(&out), ["mock-large"]);
    // Another chat keeps the default.
    mock.push(sse_text("Small answer."));
    let out = run(&data, &mock, &["chat", "Elsewhere"]);
    ok(&out);
    assert_eq!(asked(&mock, 2), "mock-small");

    // `default` gives the chat back to the default model.
    ok(&run(&data, &mock, &["sessions", "model", &sid, "default"]));
    mock.push(sse_text("Back."));
    let out = run(&data, &mock, &["chat", "--session", &sid, "Back?"]);
    ok(&out);
    assert_eq!(asked(&mock, 3), "mock-small");
    assert_eq!(printed_models(&out), ["mock-small"]);

    // Bad picks are refused with exit 2, and nothing is asked.
    for bad in ["mock-large", "nowhere/mock-large"] {
        let out = run(&data, &mock, &["sessions", "model", &sid, bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
    }
    let out = run(
        &data,
        &mock,
        &["sessions", "model", "no-such-chat", "default"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(mock.bodies().len(), 4);
}

#[test]
fn redo_commands_take_a_model_for_that_redo_only() {
    let (_dir, data) = setup();
    let mock = MockServer::start([sse_text("Hi.")]).unwrap();
    let sid = first_turn(&data, &mock);

    mock.push(sse_text("Regenerated by large."));
    let out = run(&data, &mock, &["regenerate", &sid, "--model", "mock-large"]);
    ok(&out);
    assert_eq!(stdout(&out), "Regenerated by large.\n");
    assert_eq!(asked(&mock, 1), "mock-large");
    assert_eq!(printed_models(&out), ["mock-large"]);

    mock.push(sse_text("Edited, by other."));
    let out = run(
        &data,
        &mock,
        &["edit", &sid, "Hello there", "--model", "mock-other"],
    );
    ok(&out);
    assert_eq!(asked(&mock, 2), "mock-other");
    assert_eq!(printed_models(&out), ["mock-other"]);

    // A failed turn retried with another model.
    mock.push(Reply::error(
        400,
        json!({"error": {"message": "overloaded", "type": "invalid_request_error"}}),
    ));
    let out = run(&data, &mock, &["chat", "--session", &sid, "Third"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    mock.push(sse_text("Retried by large."));
    let out = run(&data, &mock, &["retry", &sid, "--model", "mock-large"]);
    ok(&out);
    assert_eq!(asked(&mock, 4), "mock-large");
    assert_eq!(printed_models(&out), ["mock-large"]);

    // The chat's own model did not move: a plain regenerate asks the
    // default again.
    mock.push(sse_text("Default again."));
    let out = run(&data, &mock, &["regenerate", &sid]);
    ok(&out);
    assert_eq!(asked(&mock, 5), "mock-small");
    assert_eq!(printed_models(&out), ["mock-small"]);
}
