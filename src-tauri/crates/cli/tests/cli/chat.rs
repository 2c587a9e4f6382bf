//! `skald chat` and `skald sessions` against a mock OpenAI-compatible server:
//! with OPENAI_BASE_URL + OPENAI_API_KEY and `--model`, nothing else is needed.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use skald_llm_mock::{MockServer, Reply, sse_text, sse_tool_call};

use crate::{command, skald, stderr, stdout};

fn chat(data: &Path, mock: &MockServer, args: &[&str]) -> Output {
    command(data)
        .arg("chat")
        .args(args)
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap()
}

#[test]
fn chat_streams_the_answer_and_tool_events_then_continues_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("hello.txt"), "hi there\n").unwrap();
    let mock = MockServer::start([
        sse_tool_call("call_r", "read_file", r#"{"path": "hello.txt"}"#),
        sse_text("It says hi there."),
    ])
    .unwrap();
    let out = chat(
        &data,
        &mock,
        &[
            "--model",
            "test-model",
            "--workdir",
            work.to_str().unwrap(),
            "What is in hello.txt?",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "It says hi there.\n");
    let err = stderr(&out);
    assert!(err.contains("▶ read_file"), "{err}");
    assert!(err.contains("✓ read_file"), "{err}");
    // The gate says why it let the read through (a fast path: the working dir).
    let done = err.lines().find(|l| l.contains("✓ read_file")).unwrap();
    assert!(done.contains("(allowed"), "{done}");

    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["model"], "test-model");
    assert_eq!(reqs[0]["messages"][0]["role"], "system");
    assert!(
        reqs[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Skald")
    );
    assert!(
        reqs[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "read_file")
    );
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert!(
        last["content"].as_str().unwrap().contains("hi there"),
        "{last}"
    );

    // The session is listed, titled by the first message.
    let list = skald(&["sessions", "--json"], &data);
    assert!(list.status.success(), "{}", stderr(&list));
    let sessions: Value = serde_json::from_str(&stdout(&list)).unwrap();
    let s = &sessions[0];
    assert_eq!(s["title"], "What is in hello.txt?");
    assert_eq!(s["workingDir"], json!(work.to_string_lossy()));
    let id = s["id"].as_str().unwrap().to_string();
    let plain = skald(&["sessions"], &data);
    assert!(stdout(&plain).contains(&id) && stdout(&plain).contains("What is in hello.txt?"));

    // Continue it: the model sees the whole conversation.
    mock.push(sse_text("Still hi."));
    let out = chat(
        &data,
        &mock,
        &["--model", "test-model", "--session", &id, "And now?"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Still hi.\n");
    let msgs = mock.bodies()[2]["messages"].as_array().unwrap().clone();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
}

/// A DeepSeek-style stream: `reasoning_content` over two lines, a tool call, usage with
/// cached and reasoning tokens and (OpenRouter-style) a cost.
fn sse_reasoning_tool_call() -> String {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let mut s = chunk(
        json!({"role": "assistant", "reasoning_content": "The user wants "}),
        Value::Null,
    );
    s += &chunk(
        json!({"reasoning_content": "the file.\nRead it first."}),
        Value::Null,
    );
    s += &chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_t", "type": "function",
                "function": {"name": "read_file", "arguments": "{\"path\": \"hello.txt\"}"}}]}),
        Value::Null,
    );
    s += &chunk(json!({}), json!("tool_calls"));
    s += &format!(
        "data: {}\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": 342, "completion_tokens": 58,
               "prompt_tokens_details": {"cached_tokens": 320},
               "completion_tokens_details": {"reasoning_tokens": 41}, "cost": 0.0019}})
    );
    s + "data: [DONE]\n\n"
}

#[test]
fn reasoning_is_shown_indented_sent_back_and_the_turn_ends_with_its_usage() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("hello.txt"), "hi there\n").unwrap();
    let mock =
        MockServer::start([sse_reasoning_tool_call(), sse_text("It says hi there.")]).unwrap();
    let out = chat(
        &data,
        &mock,
        &[
            "--model",
            "m",
            "--workdir",
            work.to_str().unwrap(),
            "What is in hello.txt?",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The answer alone on stdout; reasoning, tools and usage on stderr.
    assert_eq!(stdout(&out), "It says hi there.\n");
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    let first = lines
        .iter()
        .position(|l| *l == "  The user wants the file.");
    assert!(first.is_some(), "{err}");
    let first = first.unwrap_or_default();
    assert_eq!(lines[first + 1], "  Read it first.", "{err}");
    assert!(
        !err.contains('\x1b'),
        "no escapes when stderr is not a terminal: {err:?}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("usage: 352 in (320 cached) · 63 out (41 reasoning) · $0.0019 · 2 requests"),
        "{err}"
    );
    // DeepSeek's rule: the reasoning of a tool-calling turn goes back with it.
    let reqs = mock.bodies();
    assert_eq!(reqs[1]["messages"][2]["role"], "assistant");
    assert_eq!(
        reqs[1]["messages"][2]["reasoning_content"],
        "The user wants the file.\nRead it first."
    );
}

#[test]
fn tool_errors_are_one_line_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    std::fs::create_dir_all(&work).unwrap();
    let mock = MockServer::start([
        sse_tool_call("call_m", "read_file", r#"{"path": "missing.txt"}"#),
        sse_text("No such file."),
    ])
    .unwrap();
    let out = chat(
        &dir.path().join("data"),
        &mock,
        &[
            "--model",
            "m",
            "--workdir",
            work.to_str().unwrap(),
            "read missing.txt",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.starts_with("✗ read_file"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains(": "), "{line}");
}

#[test]
fn chat_without_a_provider_or_with_an_unknown_session_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = command(dir.path())
        .args(["chat", "--model", "m", "hello"])
        .output()
        .unwrap();
    // (No Ollama is expected to listen on 127.0.0.1:11434 in CI.)
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no LLM provider"), "{}", stderr(&out));
    // A turn that could not start leaves no empty session behind.
    let listed = skald(&["sessions", "--json"], dir.path());
    assert_eq!(stdout(&listed).trim(), "[]", "{}", stdout(&listed));
    // An empty prompt is bad input.
    let out = command(dir.path()).args(["chat", "  "]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the prompt is empty"),
        "{}",
        stderr(&out)
    );

    let mock = MockServer::builder().start().unwrap();
    let out = chat(
        dir.path(),
        &mock,
        &["--model", "m", "--session", "nope", "hi"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("session nope not found"),
        "{}",
        stderr(&out)
    );
    assert!(mock.bodies().is_empty());
}

#[test]
fn sessions_on_an_empty_db() {
    let dir = tempfile::tempdir().unwrap();
    let out = skald(&["sessions"], dir.path());
    assert!(out.status.success());
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("no sessions yet"));
    let out = skald(&["sessions", "--json"], dir.path());
    assert_eq!(stdout(&out).trim(), "[]");
}

#[test]
fn ctrl_c_stops_the_turn_and_its_command() {
    signal_stops_the_turn_and_its_command("-INT");
}

#[test]
fn sigterm_stops_the_turn_and_its_command() {
    signal_stops_the_turn_and_its_command("-TERM");
}

/// `kill <signal>` on `skald chat` while `execute_cmd` runs: the turn stops
/// as with the app's Stop button and the command's group is gone.
fn signal_stops_the_turn_and_its_command(signal: &str) {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("w");
    std::fs::create_dir_all(&work).unwrap();
    let mock = MockServer::start([sse_tool_call(
        "call_s",
        "execute_cmd",
        r#"{"command": "echo $$ > pgid.txt; sleep 30"}"#,
    )])
    .unwrap();
    let child = command(&root.join("data"))
        .args([
            "chat",
            "--model",
            "m",
            "--workdir",
            work.to_str().unwrap(),
            "--approve",
            "yes",
            "sleep",
        ])
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "k")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let pgid = loop {
        if let Some(g) = std::fs::read_to_string(work.join("pgid.txt"))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            && !skald_tools::exec::live_group_members(g).is_empty()
        {
            break g;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let t0 = Instant::now();
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("▶ execute_cmd") && err.contains("✗ execute_cmd"),
        "{err}"
    );
    assert!(err.contains("cancelled"), "{err}");
    assert!(skald_tools::exec::live_group_members(pgid).is_empty());
    assert_eq!(mock.bodies().len(), 1, "no LLM round after the stop");
}

/// A running command's output is printed under its call as it comes (each
/// line once, before the call's ✓), not only in the result the model reads.
#[test]
fn a_running_commands_output_is_printed_under_its_call() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let mock = MockServer::start([
        sse_tool_call(
            "call_c",
            "execute_cmd",
            r#"{"command": "for i in 1 2 3; do echo line$i; sleep 0.3; done"}"#,
        ),
        sse_text("Counted."),
    ])
    .unwrap();
    let out = chat(
        &data,
        &mock,
        &[
            "--model",
            "m",
            "--workdir",
            work.to_str().unwrap(),
            "--approve",
            "yes",
            "count",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    let done = lines
        .iter()
        .position(|l| l.contains("✓ execute_cmd"))
        .unwrap_or_else(|| panic!("{err}"));
    // Not a terminal: no SGR codes.
    let printed: Vec<&str> = lines[..done]
        .iter()
        .filter(|l| l.starts_with("  │ "))
        .copied()
        .collect();
    assert!(
        !printed.is_empty() && printed.iter().all(|l| !l.contains('\x1b')),
        "{err}"
    );
    // Whatever was printed live came in order, each line once.
    let mut expected = ["  │ line1", "  │ line2", "  │ line3"].iter();
    for p in &printed {
        assert!(expected.any(|e| e == p), "{p:?} out of order in {err}");
    }
    assert!(printed.contains(&"  │ line1"), "{err}");
    // The model still reads the whole result.
    let reqs = mock.bodies();
    let result = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(result["content"], "line1\nline2\nline3\n[exit code: 0]");
}

/// A rate limit is said on stderr with its wait and attempt, then the answer
/// comes as usual.
#[test]
fn a_rate_limit_is_shown_with_its_countdown_and_the_turn_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mock = MockServer::start([rate_limited(1), Reply::sse(sse_text("Made it."))]).unwrap();
    let out = chat(&root.join("data"), &mock, &["--model", "m", "Hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Made it.\n");
    let err = stderr(&out);
    assert!(
        err.contains("rate limited, retrying in 1 s, attempt 2 of 5"),
        "{err}"
    );
    assert_eq!(mock.bodies().len(), 2);
}

/// `skald compact SESSION`: the earlier turn summarised by the model and
/// sent in its place by the next `skald chat --session`.
#[test]
fn compact_summarises_the_earlier_turns_for_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let data = root.join("data");
    let mock = MockServer::start([
        sse_text("About apples."),
        sse_text("About pears."),
        sse_text("SUMMARY: apples discussed."),
        sse_text("About plums."),
    ])
    .unwrap();
    let first = chat(&data, &mock, &["--model", "m", "Tell me about apples"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let list = command(&data)
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let sessions: Value = serde_json::from_str(&stdout(&list)).unwrap();
    let sid = sessions[0]["id"].as_str().unwrap().to_string();
    let second = chat(
        &data,
        &mock,
        &["--model", "m", "--session", &sid, "And pears"],
    );
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));

    let out = command(&data)
        .args(["compact", &sid, "--model", "m"])
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "SUMMARY: apples discussed.\n");
    assert!(
        stderr(&out).contains("summarised 2 messages"),
        "{}",
        stderr(&out)
    );

    let third = chat(&data, &mock, &["--model", "m", "--session", &sid, "Plums?"]);
    assert_eq!(third.status.code(), Some(0), "{}", stderr(&third));
    let last = mock.requests().last().unwrap().body.to_string();
    assert!(last.contains("SUMMARY: apples discussed."), "{last}");
    assert!(!last.contains("Tell me about apples"), "{last}");
    assert!(
        last.contains("And pears") && last.contains("Plums?"),
        "{last}"
    );
}

/// A 429 with `retry-after`, as OpenAI's rate limiter answers.
fn rate_limited(retry_after_secs: u32) -> Reply {
    Reply::error(
        429,
        json!({"error": {"message": "Rate limit reached for requests", "type": "requests"}}),
    )
    .header("retry-after", &retry_after_secs.to_string())
}
