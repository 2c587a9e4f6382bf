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
use skald_session::proc_harness::{Scratch, colour_question};

use crate::{command, program_command, skald, stderr, stdout};

#[test]
fn a_question_waits_in_the_inbox_and_skald_answer_continues_the_chat() {
    let dir = tempfile::tempdir().unwrap();
    let Scratch { data, work, .. } = Scratch::in_dir(dir.path()).unwrap();
    let mock = MockServer::start([
        sse_tool_call("call_q", "ask_user_clarification", &colour_question()),
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

    // Scripts see it too, beside the approvals (none here).
    let json = skald(&["inbox", "--json"], &data);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let json: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(json["approvals"], json!([]));
    let questions = json["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 1, "{json}");
    assert_eq!(questions[0]["toolCallId"], "call_q");
    assert_eq!(questions[0]["title"], "Colour");
    assert_eq!(questions[0]["question"], "Which colour?");
    assert_eq!(questions[0]["suggestedAnswers"], json!(["red", "blue"]));

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
    let Scratch { data, work, .. } = Scratch::in_dir(dir.path()).unwrap();
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

/// Output of a process read on a thread, for waiting on what it printed.
struct Transcript {
    text: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Transcript {
    fn follow(out: impl std::io::Read + Send + 'static) -> Self {
        let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let t = text.clone();
        std::thread::spawn(move || {
            let mut out = out;
            let mut buf = [0u8; 4096];
            while let Ok(n) = std::io::Read::read(&mut out, &mut buf) {
                if n == 0 {
                    break;
                }
                t.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Self { text }
    }

    fn wait_for(&self, needle: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let text = self.text.lock().unwrap().clone();
            if text.contains(needle) {
                return text;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no {needle:?} on the terminal; it shows:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Single-quoted for `sh -c`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// On a real terminal (a pseudo-terminal from util-linux `script`, as a
/// person's shell would give): the question is printed with its numbered
/// suggestions, the typed answer ("2") picks the second, and the turn goes
/// on with it as the tool's result.
#[test]
fn on_a_terminal_the_question_is_asked_and_the_typed_answer_continues_the_turn() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        // `script` (bsdutils, essential on Debian) is on every CI image; say so plainly if not.
        panic!("this test needs `script` from util-linux for a pseudo-terminal");
    }
    let dir = tempfile::tempdir().unwrap();
    let Scratch { data, work, .. } = Scratch::in_dir(dir.path()).unwrap();
    let mock = MockServer::start([
        sse_tool_call(
            "call_t",
            "ask_user_clarification",
            &json!({"title": "Colour", "question": "Which **colour**?",
                    "suggested_answers": ["red", "blue"]})
            .to_string(),
        ),
        sse_text("Blue it is."),
    ])
    .unwrap();
    let chat = [
        env!("CARGO_BIN_EXE_skald").to_string(),
        "chat".into(),
        "--model".into(),
        "test-model".into(),
        "--workdir".into(),
        work.display().to_string(),
        "Paint it".into(),
    ]
    .iter()
    .map(|a| sh_quote(a))
    .collect::<Vec<_>>()
    .join(" ");
    // `script` runs the command on a new pseudo-terminal (stdin, stdout and
    // stderr all a tty) and relays what we write to it as typing.
    let mut terminal = program_command("script", &data)
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .env("SHELL", "/bin/sh")
        .args([
            "--quiet",
            "--return",
            "--flush",
            "--command",
            &chat,
            "/dev/null",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let screen = Transcript::follow(terminal.stdout.take().unwrap());
    let shown = screen.wait_for("answer> ");
    assert!(shown.contains("? Colour"), "{shown}");
    assert!(shown.contains("Which **colour**?"), "{shown}");
    assert!(
        shown.contains("1) red") && shown.contains("2) blue"),
        "{shown}"
    );
    assert!(
        !shown.contains("waits in the Inbox"),
        "a terminal is asked, not sent to the Inbox: {shown}"
    );

    let mut keys = terminal.stdin.take().unwrap();
    std::io::Write::write_all(&mut keys, b"2\n").unwrap();
    std::io::Write::flush(&mut keys).unwrap();
    screen.wait_for("Blue it is.");
    let status = terminal.wait().unwrap();
    drop(keys);
    assert!(status.success(), "{status:?}");

    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["tool_call_id"], "call_t");
    assert_eq!(last["content"], "blue", "suggestion 2, as the tool result");
    // Answered: nothing waits in the Inbox.
    assert!(stderr(&skald(&["inbox"], &data)).contains("nothing waits"));
}
