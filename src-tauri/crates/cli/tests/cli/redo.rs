//! `skald retry`, `skald regenerate` and `skald edit` against the scripted
//! OpenAI-compatible mock: each prints its turn as `skald chat` does, sends
//! what the model should see, and answers approvals per `--approve`.

use std::path::Path;

use serde_json::{Value, json};
use skald_llm_mock::{MockServer, Reply, sse_text, sse_tool_call};

use crate::{command, run_with_mock as run, stderr, stdout};

/// Picks `m` as the model of turns given no `--model` (retry, regenerate
/// and edit take the default model, as the app's buttons do).
fn use_model(data: &Path, mock: &MockServer) {
    let out = run(data, mock, &["models", "use", "m"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A session with one turn ("Secnod", with a typo), its id.
fn one_turn(data: &Path, mock: &MockServer, work: &Path) -> String {
    use_model(data, mock);
    let out = run(
        data,
        mock,
        &[
            "chat",
            "--model",
            "m",
            "--workdir",
            work.to_str().unwrap(),
            "Secnod",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list = command(data).args(["sessions", "--json"]).output().unwrap();
    let sessions: Value = serde_json::from_str(&stdout(&list)).unwrap();
    sessions[0]["id"].as_str().unwrap().to_string()
}

/// `(role, content)` of a request's messages after the system prompt.
fn said(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn pair(role: &str, content: &str) -> (String, String) {
    (role.to_string(), content.to_string())
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    (dir, data, work)
}

#[test]
fn regenerate_then_edit_print_their_answers_and_send_the_cut_history() {
    let (_dir, data, work) = setup();
    let mock = MockServer::start([
        sse_text("First answer."),
        sse_text("Second answer."),
        sse_text("Answer to the fix."),
    ])
    .unwrap();
    let sid = one_turn(&data, &mock, &work);

    let out = run(&data, &mock, &["regenerate", &sid]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Second answer.\n");
    assert!(stderr(&out).contains(&format!("session {sid}")));
    let bodies = mock.bodies();
    assert_eq!(said(&bodies[1]), said(&bodies[0]), "asked the same again");
    assert_eq!(said(&bodies[1]), [pair("user", "Secnod")]);

    let out = run(&data, &mock, &["edit", &sid, "Second"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Answer to the fix.\n");
    assert_eq!(said(&mock.bodies()[2]), [pair("user", "Second")]);

    // What the session keeps: the edited message and its answer only.
    mock.push(sse_text("ok"));
    let out = run(
        &data,
        &mock,
        &["chat", "--model", "m", "--session", &sid, "Next"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        said(&mock.bodies()[3]),
        [
            pair("user", "Second"),
            pair("assistant", "Answer to the fix."),
            pair("user", "Next")
        ]
    );
}

#[test]
fn edit_with_no_provider_keeps_the_new_text_and_retry_sends_it_later() {
    let (_dir, data, work) = setup();
    let mock =
        MockServer::start([sse_text("First answer."), sse_text("Answer to the fix.")]).unwrap();
    let sid = one_turn(&data, &mock, &work);

    // No provider in the environment: the edit says so and exits 2 …
    let out = command(&data)
        .args(["edit", &sid, "Second"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no LLM provider"), "{}", stderr(&out));
    assert_eq!(mock.bodies().len(), 1, "nothing was asked");

    // … but the new text replaced the old message, and Retry sends it.
    let out = run(&data, &mock, &["retry", &sid]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Answer to the fix.\n");
    assert_eq!(said(&mock.bodies()[1]), [pair("user", "Second")]);
}

#[test]
fn retry_runs_a_failed_turn_again_and_says_when_there_is_nothing_to_retry() {
    let (_dir, data, work) = setup();
    let mock = MockServer::start([
        Reply::error(
            400,
            json!({"error": {"message": "model overloaded for now", "type": "invalid_request_error"}}),
        ),
        Reply::sse(sse_text("Now it works.")),
    ])
    .unwrap();
    use_model(&data, &mock);
    let out = run(
        &data,
        &mock,
        &[
            "chat",
            "--model",
            "m",
            "--workdir",
            work.to_str().unwrap(),
            "Question",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let list = command(&data)
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let sessions: Value = serde_json::from_str(&stdout(&list)).unwrap();
    let sid = sessions[0]["id"].as_str().unwrap().to_string();

    let out = run(&data, &mock, &["retry", &sid]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Now it works.\n");
    // The question asked again, not stored twice.
    assert_eq!(said(&mock.bodies()[1]), [pair("user", "Question")]);

    let out = run(&data, &mock, &["retry", &sid]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to retry"),
        "{}",
        stderr(&out)
    );
    assert_eq!(mock.bodies().len(), 2, "nothing was asked");

    let out = run(&data, &mock, &["edit", "no-such-session", "text"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn approve_answers_the_calls_of_a_regenerated_or_edited_turn() {
    let (_dir, data, work) = setup();
    let write = |file: &str| {
        sse_tool_call(
            "call_w",
            "write_file",
            &json!({"path": file, "content": "x\n"}).to_string(),
        )
    };
    let mock = MockServer::start([sse_text("Nothing written.")]).unwrap();
    let sid = one_turn(&data, &mock, &work);

    mock.push(write("no.txt"));
    mock.push(sse_text("It was rejected."));
    let out = run(&data, &mock, &["regenerate", &sid, "--approve", "no"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!work.join("no.txt").exists());
    assert_eq!(stdout(&out), "It was rejected.\n");
    let last = said(&mock.bodies()[2]).last().cloned().unwrap();
    assert_eq!(last, pair("tool", "User rejected this tool call."));

    mock.push(sse_tool_call(
        "call_y",
        "write_file",
        &json!({"path": "yes.txt", "content": "x\n"}).to_string(),
    ));
    mock.push(sse_text("Written."));
    let out = run(
        &data,
        &mock,
        &["edit", &sid, "Write yes.txt", "--approve", "yes"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(work.join("yes.txt").exists());
    assert!(stderr(&out).contains("write_file"), "{}", stderr(&out));
}
