//! The companion tools from the terminal: `skald chat` without a terminal
//! says a question waits in the Inbox, `skald inbox` lists it, `skald answer`
//! answers it and the waiting chat goes on; `skald scratchpad` shows, sets
//! and removes entries.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::json;
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};

use crate::{command, skald, stderr, stdout};

#[test]
fn a_question_waits_in_the_inbox_and_skald_answer_continues_the_chat() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let mock = MockServer::start([
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
    let mut chat = command(&data)
        .args(["chat", "--model", "test-model", "--workdir"])
        .arg(&work)
        .arg("Paint it")
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let err = chat.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no Inbox notice; stderr so far: {seen:?}"));
        let found = line.contains("question call_q waits in the Inbox: Colour");
        seen.push(line);
        if found {
            break;
        }
    }
    let inbox = skald(&["inbox"], &data);
    assert_eq!(inbox.status.code(), Some(0), "{}", stderr(&inbox));
    let listed = stdout(&inbox);
    assert!(
        listed.contains("call_q")
            && listed.contains("question: Colour — Which colour?  [red | blue]"),
        "{listed}"
    );

    let answered = skald(&["answer", "call_q", "blue"], &data);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    assert!(
        stderr(&answered).contains("answered call_q"),
        "{}",
        stderr(&answered)
    );
    let out = chat.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "Blue it is.\n");
    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "blue");

    // Nothing waits any more; a second answer is refused.
    assert!(stderr(&skald(&["inbox"], &data)).contains("nothing waits"));
    let again = skald(&["answer", "call_q", "red"], &data);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("no pending question call_q"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn skald_scratchpad_shows_sets_and_removes_entries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let mock = MockServer::start([sse_text("ok"), sse_text("seen")]).unwrap();
    let chat = |prompt: &str, session: Option<&str>| {
        let mut c = command(&data);
        c.args(["chat", "--model", "test-model", "--workdir"])
            .arg(&work);
        if let Some(s) = session {
            c.args(["--session", s]);
        }
        c.arg(prompt)
            .env("OPENAI_BASE_URL", mock.base_url())
            .env("OPENAI_API_KEY", "test-key")
            .output()
            .unwrap()
    };
    let out = chat("hi", None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sid = stderr(&out)
        .lines()
        .find_map(|l| l.strip_prefix("skald: session ").map(str::to_string))
        .unwrap();

    let empty = skald(&["scratchpad"], &data);
    assert_eq!(empty.status.code(), Some(0));
    assert!(stderr(&empty).contains("is empty"), "{}", stderr(&empty));
    // Default session: the most recent.
    let set = skald(&["scratchpad", "set", "plan", "step one"], &data);
    assert_eq!(set.status.code(), Some(0), "{}", stderr(&set));
    assert_eq!(stdout(&set), "## plan\nstep one\n");
    let set = skald(&["scratchpad", &sid, "set", "goal", "ship"], &data);
    assert_eq!(stdout(&set), "## goal\nship\n\n## plan\nstep one\n");

    // The next request of the session carries it.
    let out = chat("and now?", Some(&sid));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let block = mock.bodies()[1]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(block.starts_with("<scratchpad>"), "{block}");
    assert!(block.contains("## plan\nstep one"), "{block}");

    let rm = skald(&["scratchpad", &sid, "rm", "plan"], &data);
    assert_eq!(rm.status.code(), Some(0), "{}", stderr(&rm));
    assert_eq!(stdout(&rm), "## goal\nship\n");
    let missing = skald(&["scratchpad", &sid, "rm", "plan"], &data);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("has no `plan`"),
        "{}",
        stderr(&missing)
    );
    let unknown = skald(&["scratchpad", "nope", "set", "a", "b"], &data);
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
}
