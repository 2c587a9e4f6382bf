//! The approval gate from the terminal: `tool run --approve yes|no`, the
//! no-TTY refusal, deny is final, and `inbox` / `approve` / `reject` on
//! calls left waiting in the DB (as after a restart).

use std::path::Path;

use serde_json::{Value, json};
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};
use skald_store::{NewMessage, NewSession, NewToolCall, Role, Store, ToolCallStatus};

use crate::{command, skald, stderr, stdout};

fn write_args(path: &Path, content: &str) -> String {
    json!({"path": path.to_str().unwrap(), "content": content}).to_string()
}

#[test]
fn tool_run_approve_yes_runs_and_no_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("out.txt");
    let args = write_args(&file, "hello\n");
    let w = root.to_str().unwrap();

    let out = skald(
        &[
            "tool",
            "run",
            "write_file",
            &args,
            "--workdir",
            w,
            "--approve",
            "no",
        ],
        &root,
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("rejected"), "{}", stderr(&out));
    assert!(!file.exists());

    // Default `ask` without a terminal on stdin: a clear refusal.
    let out = command(&root)
        .args(["tool", "run", "write_file", &args, "--workdir", w])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stdin is not a terminal"),
        "{}",
        stderr(&out)
    );
    assert!(!file.exists());

    let out = skald(
        &[
            "tool",
            "run",
            "write_file",
            &args,
            "--workdir",
            w,
            "--approve",
            "yes",
        ],
        &root,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello\n");
}

#[test]
fn tool_run_deny_is_final_even_with_approve_yes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key"), "k").unwrap();
    let args = json!({"path": "secrets/key"}).to_string();
    let out = skald(
        &[
            "tool",
            "run",
            "read_file",
            &args,
            "--workdir",
            root.to_str().unwrap(),
            "--approve",
            "yes",
        ],
        &root,
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("denied by rule"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

#[test]
fn chat_approve_yes_and_no() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let run = |mode: &str, file: &str| {
        let mock = MockServer::start([
            sse_tool_call(
                "call_w",
                "write_file",
                &json!({"path": file, "content": "x\n"}).to_string(),
            ),
            sse_text("done"),
        ])
        .unwrap();
        let out = command(&data)
            .args(["chat", "--model", "m", "--workdir", work.to_str().unwrap()])
            .args(["--approve", mode, "write it"])
            .env("OPENAI_BASE_URL", mock.base_url())
            .env("OPENAI_API_KEY", "k")
            .output()
            .unwrap();
        (out, mock.bodies())
    };
    let (out, _) = run("yes", "yes.txt");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(work.join("yes.txt").exists());

    let (out, reqs) = run("no", "no.txt");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!work.join("no.txt").exists());
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "User rejected this tool call.");
}

/// A session whose assistant asked for two writes, both left waiting for
/// approval in the DB (as a closed app leaves them).
async fn seed_pending(data: &Path, work: &Path) -> String {
    let store = Store::open(data).await.unwrap();
    let session = store
        .sessions()
        .create(NewSession {
            title: "pending".into(),
            agent_id: "main".into(),
            working_dir: Some(work.to_string_lossy().into_owned()),
        })
        .await
        .unwrap();
    let calls: Vec<(String, String)> = ["a", "b"]
        .iter()
        .map(|n| {
            (
                format!("call_{n}"),
                write_args(&work.join(format!("{n}.txt")), "content\n"),
            )
        })
        .collect();
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, args)| json!({"id": id, "name": "write_file", "arguments": args}))
        .collect();
    let msg = store
        .history()
        .append(&NewMessage {
            session_id: session.id.clone(),
            stack_id: None,
            role: Role::Assistant,
            content: String::new(),
            tool_calls: Some(Value::Array(tool_calls)),
            tool_call_id: None,
        })
        .await
        .unwrap();
    for (id, args) in &calls {
        let repo = store.tool_calls();
        repo.insert(&NewToolCall {
            id: id.clone(),
            session_id: session.id.clone(),
            message_id: Some(msg.id),
            name: "write_file".into(),
            arguments: args.clone(),
            status: ToolCallStatus::Pending,
        })
        .await
        .unwrap();
        repo.set_decision(id, Some("require"), Some("asked by rule 11: *"))
            .await
            .unwrap();
        repo.set_previews(id, None, Some("content\n"))
            .await
            .unwrap();
    }
    store.close().await;
    session.id
}

#[tokio::test]
async fn inbox_lists_and_approve_reject_settle() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let sid = seed_pending(&data, &work).await;

    let out = skald(&["inbox"], &data);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("call_a") && text.contains("call_b"), "{text}");
    assert!(text.contains(&sid), "{text}");
    let out = skald(&["inbox", "--json"], &data);
    let inbox: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(inbox["questions"], serde_json::json!([]));
    let list = &inbox["approvals"];
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert_eq!(list[0]["request"]["kind"]["type"], "write");
    assert_eq!(list[0]["request"]["kind"]["newContent"], "content\n");

    let out = skald(&["reject", "call_a", "--note", "not that one"], &data);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = skald(&["approve", "call_b"], &data);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!work.join("a.txt").exists());
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "content\n"
    );
    let out = skald(&["inbox"], &data);
    assert!(stderr(&out).contains("nothing waits"), "{}", stderr(&out));
    let out = skald(&["approve", "call_b"], &data);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let store = Store::open(&data).await.unwrap();
    let a = store.tool_calls().get("call_a").await.unwrap().unwrap();
    assert_eq!(a.status, ToolCallStatus::Rejected);
    assert_eq!(
        a.result.as_deref(),
        Some("User rejected this tool call. Reason: not that one")
    );
    let b = store.tool_calls().get("call_b").await.unwrap().unwrap();
    assert_eq!(b.status, ToolCallStatus::Done);
    let hist = store.history().list_for_session(&sid).await.unwrap();
    assert!(
        hist.iter()
            .any(|m| m.content == "User rejected this tool call. Reason: not that one")
    );
    store.close().await;
}
