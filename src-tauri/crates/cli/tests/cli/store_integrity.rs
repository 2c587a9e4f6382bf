//! The store seen from `skald` processes: twenty turns at once on one data
//! dir, a full disk in the middle of a turn, and databases that cannot be
//! used (read-only, locked, a directory) — each with its exit code and one
//! line saying what is wrong.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};

use crate::{command, stderr, stdout};

/// The mock answering from the request, not from a queue, so any number of
/// processes can talk to it in any order: a tool result gets a closing text;
/// a user message asking to read gets a `read_file` call with the fixed id
/// `call_1` (every session wants the same id: the collision the ids must
/// survive); anything else gets text.
///
/// With a barrier of N, the first N requests are all answered at the same
/// moment, once the N-th has arrived, so N processes race through storing
/// their calls side by side instead of one after another.
/// The endpoint lists `m` with a window large enough for the 2 MB file
/// read below: these tests are about the store, not context management.
fn responder(barrier: usize) -> MockServer {
    MockServer::builder()
        .models(["m"])
        .context_window("m", 4_000_000)
        .respond_with(|r| reply_to(&r.body).into())
        .hold_until(barrier)
        .start()
        .unwrap()
}

fn reply_to(request: &Value) -> String {
    let last = request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    let text = last["content"].as_str().unwrap_or_default();
    if last["role"] == "tool" {
        sse_text("done")
    } else if text.starts_with("read") {
        sse_tool_call("call_1", "read_file", r#"{"path": "hello.txt"}"#)
    } else {
        sse_text("hello")
    }
}

fn chat_command(data: &Path, mock: &MockServer, work: &Path, args: &[&str]) -> Command {
    let mut c = command(data);
    c.arg("chat")
        .args(["--model", "m", "--approve", "yes"])
        .arg("--workdir")
        .arg(work)
        .args(args)
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key");
    c
}

fn session_of(out: &Output) -> String {
    stderr(out)
        .lines()
        .find_map(|l| l.strip_prefix("skald: session "))
        .unwrap_or_else(|| panic!("no session line: {}", stderr(out)))
        .trim()
        .to_string()
}

/// In every request, each assistant tool call is answered by a tool
/// message with its id: the session history is whole.
fn assert_calls_answered(request: &Value) {
    let messages = request["messages"].as_array().unwrap();
    for m in messages {
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            let id = call["id"].as_str().unwrap();
            assert!(
                messages
                    .iter()
                    .any(|r| r["role"] == "tool" && r["tool_call_id"] == id),
                "call {id} unanswered in {request:#}"
            );
        }
    }
}

/// Twenty `skald chat` processes at once on one fresh data dir, every model
/// answer calling a tool with the same id: every turn completes, each call
/// has its own row, and a second turn in each session works too.
#[test]
fn twenty_turns_at_once_on_one_data_dir_all_complete() {
    let dir = tempfile::tempdir().unwrap();
    let (data, work) = (dir.path().join("data"), dir.path().join("work"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("hello.txt"), "hi\n").unwrap();
    let mock = responder(20);
    let children: Vec<_> = (0..20)
        .map(|_| {
            chat_command(&data, &mock, &work, &["read hello.txt"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut sessions = Vec::new();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "turn {i}: {}", stderr(&out));
        assert_eq!(stdout(&out), "done\n", "turn {i}: {}", stderr(&out));
        sessions.push(session_of(&out));
    }

    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = skald_store::Store::open(&data).await.unwrap();
        let mut ids = std::collections::HashSet::new();
        for sid in &sessions {
            let rows = store.tool_calls().list_for_session(sid).await.unwrap();
            assert_eq!(rows.len(), 1, "{sid}: {rows:#?}");
            assert_eq!(rows[0].status, skald_store::ToolCallStatus::Done);
            assert!(ids.insert(rows[0].id.clone()), "id shared: {}", rows[0].id);
        }
        assert_eq!(
            store.approval().list_all_rules().await.unwrap().len(),
            skald_approval::SEED_RULES.len(),
            "seeded once"
        );
        store.close().await;
    });
    for r in mock.bodies() {
        assert_calls_answered(&r);
    }

    // Every session goes on: a later turn (here: also twenty at once).
    let children: Vec<_> = sessions
        .iter()
        .map(|sid| {
            chat_command(&data, &mock, &work, &["--session", sid, "read it again"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "second turn {i}: {}",
            stderr(&out)
        );
    }
}

/// A tmpfs of `size` on a fresh directory, unmounted on drop; `None` (with
/// a message) where mounting is not permitted.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("SKIPPED: cannot mount a tmpfs here (needs root and mount permission)");
            return None;
        }
        Some(Self { dir })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Fills the file system of `dir` to the byte, leaving `spare` bytes free.
fn fill_leaving(dir: &Path, spare: usize) -> PathBuf {
    let reserve = dir.join("reserve");
    std::fs::write(&reserve, vec![0u8; spare]).unwrap();
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    while f.write_all(&chunk).is_ok() {}
    while f.write_all(&[0u8]).is_ok() {}
    std::fs::remove_file(reserve).unwrap();
    filler
}

/// The disk fills in the middle of a turn (the call runs, its result does
/// not fit), leaving the assistant message and a running row behind:
/// `skald chat` exits 1 saying "disk full" on its last line; once there is
/// room again, the same session's next turn works and its history is whole.
#[test]
fn a_disk_full_mid_turn_says_so_and_the_session_works_again() {
    let Some(fs) = Tmpfs::mount("48m") else {
        return;
    };
    let data = fs.dir.path().join("data");
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().to_path_buf();
    // Far more than the space left: the result cannot be stored.
    let line = "y".repeat(1000);
    let big: String = (0..2000).map(|i| format!("{i} {line}\n")).collect();
    std::fs::write(work.join("hello.txt"), big).unwrap();
    let mock = responder(0);

    let first = chat_command(&data, &mock, &work, &["hi"]).output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let sid = session_of(&first);

    // Room for the small writes before the call runs, not for its 2 MB result.
    let filler = fill_leaving(fs.dir.path(), 512 * 1024);
    let full = chat_command(&data, &mock, &work, &["--session", &sid, "read hello.txt"])
        .output()
        .unwrap();
    let err = stderr(&full);
    assert_eq!(full.status.code(), Some(1), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("skald: disk full"), "{err}");
    assert!(!err.contains("FOREIGN KEY"), "{err}");
    assert!(
        err.contains("▶ read_file"),
        "the turn got as far as the call: {err}"
    );

    std::fs::remove_file(filler).unwrap();
    let again = chat_command(&data, &mock, &work, &["--session", &sid, "hi again"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), "hello\n");
    let last_request = mock.bodies().last().cloned().unwrap();
    assert_calls_answered(&last_request);
    let said: Vec<&str> = last_request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(said.first(), Some(&"hi"), "what was stored before is kept");
    assert_eq!(said.last(), Some(&"hi again"));
}

/// `skald chat` and `skald status` on a database that cannot be used: exit
/// 1 (not 2, the bad-input code), and exactly one line on stderr.
fn assert_one_line_failure(data: &Path, expected: &str) {
    for args in [&["status"][..], &["chat", "--model", "m", "hi"][..]] {
        let out = command(data)
            .args(args)
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
            .env("OPENAI_API_KEY", "k")
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

/// A fresh data dir with a migrated database in it.
fn initialised() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let out = command(&data).arg("status").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    (dir, data)
}

#[test]
fn a_read_only_database_exits_1_with_one_line() {
    let (_dir, data) = initialised();
    let db = data.join(skald_store::DB_FILE_NAME);
    // Root writes through 0444, so as root the data dir is bind-mounted
    // read-only instead; elsewhere the mode bit is enough.
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| stdout(&o).trim() == "0");
    if is_root {
        let bound = Command::new("mount")
            .arg("--bind")
            .args([&data, &data])
            .status()
            .is_ok_and(|s| s.success());
        if !bound {
            eprintln!("SKIPPED: cannot bind-mount as root here");
            return;
        }
        let ro = Command::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(&data)
            .status()
            .is_ok_and(|s| s.success());
        let unmount = || {
            let _ = Command::new("umount").arg(&data).status();
        };
        if !ro {
            unmount();
            eprintln!("SKIPPED: cannot remount read-only here");
            return;
        }
        let result = std::panic::catch_unwind(|| assert_one_line_failure(&data, "read-only"));
        unmount();
        if let Err(e) = result {
            std::panic::resume_unwind(e);
        }
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert_one_line_failure(&data, "read-only");
    }
}

#[test]
fn a_locked_database_exits_1_with_one_line() {
    let (_dir, data) = initialised();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let holder = rt.block_on(skald_store::Store::open(&data)).unwrap();
    let lock = rt
        .block_on(holder.pool().begin_with("BEGIN EXCLUSIVE"))
        .unwrap();
    assert_one_line_failure(&data, "locked by another process");
    rt.block_on(lock.rollback()).unwrap();
    rt.block_on(holder.close());
}

#[test]
fn a_directory_named_skald_db_exits_1_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = data.join(skald_store::DB_FILE_NAME);
    std::fs::create_dir_all(&db).unwrap();
    assert_one_line_failure(
        &data,
        &format!("{} is a directory, not a database file", db.display()),
    );
}
