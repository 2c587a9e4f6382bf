//! The crash test on the real binary: `skald chat` is SIGKILLed while
//! `execute_cmd` runs `sleep 30` (and jobs that left its process group with
//! `setsid` or a double fork: none may outlive the host); `skald resume` on
//! the same DB must not run
//! the command again (its restart hint is Reask): the call is recorded as
//! interrupted, the model is told so, and the turn is answered — with no lost
//! or duplicated rows. While the first process is still alive, a second
//! one's resume leaves its session alone.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};
use skald_session::notes;
use skald_store::Store;
use skald_tools::exec::{CGROUP_ENV, live_group_members, processes_running};

use crate::{command, stderr};

fn with_mock(data: &Path, mock: &MockServer) -> std::process::Command {
    let mut c = command(data);
    c.env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::null());
    c
}

/// Kills the command's process group (a no-op once the watchdog did).
fn kill_group(pgid: i32) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status();
}

/// A sleep duration no other test process uses (about 50 minutes), so its
/// processes can be found by their exact command line.
fn unique(k: u32) -> String {
    format!("{}.{}", 3100 + k, std::process::id())
}

fn sleeping(n: &str) -> Vec<i32> {
    processes_running(&["sleep", n])
}

/// Kills every `sleep <n>` on drop: nothing outlives a test, pass or fail.
struct Reaper(Vec<String>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for n in &self.0 {
            for pid in sleeping(n) {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
    }
}

/// Waits up to `limit` for every `sleep <n>` to be gone; what is left.
async fn survivors(ns: &[String], limit: Duration) -> Vec<(String, Vec<i32>)> {
    let start = Instant::now();
    loop {
        let left: Vec<(String, Vec<i32>)> = ns
            .iter()
            .map(|n| (n.clone(), sleeping(n)))
            .filter(|(_, p)| !p.is_empty())
            .collect();
        if left.is_empty() || start.elapsed() > limit {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn wait_for_sleeps(ns: &[String]) {
    let start = Instant::now();
    while ns.iter().any(|n| sleeping(n).is_empty()) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the command never started its sleeps"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Whether this machine lets Skald make cgroups (a cgroup2 mount and root).
fn cgroups_expected() -> bool {
    let v2 = std::fs::read_to_string("/proc/self/mountinfo")
        .is_ok_and(|m| m.lines().any(|l| l.contains(" - cgroup2 ")));
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|u| u.split_whitespace().nth(1).map(|e| e == "0"))
            .unwrap_or(false)
    });
    v2 && root
}

/// `skald tool run execute_cmd` is SIGKILLed while its command runs jobs
/// that left the process group — `setsid`, a double-forked daemon, nohup —
/// with and without a cgroup: the watchdog must take every one of them down.
#[tokio::test]
async fn sigkill_of_skald_leaves_no_escaped_process_behind() {
    for cgroup in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let work = root.join("w");
        std::fs::create_dir_all(&work).unwrap();
        let base = if cgroup { 10 } else { 20 };
        let mut ns: Vec<String> = (0..3).map(|k| unique(base + k)).collect();
        let mut command = format!(
            "setsid sleep {} & ( setsid sh -c 'sleep {} &' & ); nohup sleep {} > /dev/null 2>&1 &",
            ns[0], ns[1], ns[2]
        );
        if cgroup && cgroups_expected() {
            // No tag, no group, output let go: only the cgroup still holds it.
            let n = unique(base + 3);
            command.push_str(&format!(" setsid env -i sleep {n} > /dev/null 2>&1 &"));
            ns.push(n);
        }
        command.push_str(" sleep 100");
        let _reaper = Reaper(ns.clone());
        let mut c = crate::command(&root.join("data"));
        if !cgroup {
            c.env(CGROUP_ENV, "off");
        }
        let mut child = c
            .args([
                "tool",
                "run",
                "execute_cmd",
                &json!({ "command": command }).to_string(),
                "--workdir",
                work.to_str().unwrap(),
                "--approve",
                "yes",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_sleeps(&ns).await;
        child.kill().unwrap(); // SIGKILL: no destructor runs
        child.wait().unwrap();
        let left = survivors(&ns, Duration::from_secs(10)).await;
        assert!(
            left.is_empty(),
            "cgroup {cgroup}: outlived the SIGKILLed host: {left:?}"
        );
    }
}

#[tokio::test]
async fn sigkill_during_execute_cmd_then_resume_never_reruns_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let escaped = [unique(1), unique(2)];
    let _reaper = Reaper(escaped.to_vec());
    let command_line = format!(
        "echo ran >> runs.txt; echo $$ > pgid.txt; setsid sleep {} & \
         ( setsid sh -c 'sleep {} &' & ); sleep 30",
        escaped[0], escaped[1]
    );
    let mock = MockServer::start([
        sse_tool_call(
            "call_cmd",
            "execute_cmd",
            &json!({"command": command_line}).to_string(),
        ),
        sse_text("The command was interrupted; shall I run it again?"),
    ])
    .unwrap();

    let mut child = with_mock(&data, &mock)
        .args([
            "chat",
            "--model",
            "test-model",
            "--workdir",
            work.to_str().unwrap(),
            "--approve",
            "yes",
            "Run the slow thing",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pgid_file = work.join("pgid.txt");
    let start = Instant::now();
    let pgid = loop {
        if let Some(g) = std::fs::read_to_string(&pgid_file)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            && !live_group_members(g).is_empty()
            && escaped.iter().all(|n| !sleeping(n).is_empty())
        {
            break g;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the command never started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // While that turn runs, a second process's resume must leave the session
    // alone: its running call is not a crash (the lease says so).
    let out = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("busy in another Skald process"),
        "{}",
        stderr(&out)
    );
    let sid = {
        let store = Store::open(&data).await.unwrap();
        let row = store.tool_calls().get("call_cmd").await.unwrap().unwrap();
        assert_eq!(
            row.status.as_str(),
            "running",
            "a live turn was treated as crashed"
        );
        let sid = store.sessions().list().await.unwrap()[0].id.clone();
        store.close().await;
        sid
    };
    // Nor can it start a second turn there.
    let out = with_mock(&data, &mock)
        .args([
            "chat",
            "--session",
            &sid,
            "--model",
            "test-model",
            "Are you there?",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("busy in another Skald process"),
        "{}",
        stderr(&out)
    );
    assert!(
        !live_group_members(pgid).is_empty(),
        "the command was disturbed"
    );

    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    // The command's watchdog sees its host gone and kills the whole group.
    let killed = Instant::now();
    while !live_group_members(pgid).is_empty() && killed.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let orphans = live_group_members(pgid);
    let escapees = survivors(&escaped, Duration::from_secs(5)).await;
    kill_group(pgid); // never leave a `sleep 30` behind, even when failing
    assert!(
        orphans.is_empty(),
        "the command outlived its SIGKILLed host: {orphans:?}"
    );
    assert!(
        escapees.is_empty(),
        "jobs that left the group outlived the SIGKILLed host: {escapees:?}"
    );

    let store = Store::open(&data).await.unwrap();
    let row = store.tool_calls().get("call_cmd").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "running");
    assert_eq!(
        store.history().list_for_session(&sid).await.unwrap().len(),
        2
    );
    store.close().await;

    let out = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted 1"), "{}", stderr(&out));

    let store = Store::open(&data).await.unwrap();
    let rows = store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, "call_cmd");
    assert_eq!(rows[0].status.as_str(), "cancelled");
    assert_eq!(rows[0].result.as_deref(), Some(notes::INTERRUPTED));
    let args: serde_json::Value = serde_json::from_str(&rows[0].arguments).unwrap();
    assert_eq!(
        args["workdir"],
        json!(work.to_string_lossy()),
        "effective arguments persisted"
    );
    let hist: Vec<(String, String, Option<String>)> = store
        .history()
        .list_for_session(&sid)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.role.as_str().to_string(), m.content, m.tool_call_id))
        .collect();
    assert_eq!(
        hist,
        vec![
            ("user".into(), "Run the slow thing".into(), None),
            ("assistant".into(), String::new(), None),
            (
                "tool".into(),
                notes::INTERRUPTED.into(),
                Some("call_cmd".into())
            ),
            (
                "assistant".into(),
                "The command was interrupted; shall I run it again?".into(),
                None
            ),
        ]
    );
    // Ran exactly once: before the kill.
    assert_eq!(
        std::fs::read_to_string(work.join("runs.txt")).unwrap(),
        "ran\n"
    );
    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], notes::INTERRUPTED);

    // A second restart finds nothing to do.
    let out = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("nothing to resume"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        store.history().list_for_session(&sid).await.unwrap().len(),
        4
    );
    store.close().await;
}

/// SIGTERM makes `skald tool run` cancel and exit at once, before its own
/// SIGKILL follow-up for a command that ignores SIGTERM could run: the
/// watchdog (deaf to SIGTERM itself) must finish the job.
#[tokio::test]
async fn a_command_ignoring_sigterm_dies_with_a_sigtermed_skald() {
    for cgroup in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let work = root.join("w");
        std::fs::create_dir_all(&work).unwrap();
        let base = if cgroup { 30 } else { 40 };
        let ns: Vec<String> = (0..2).map(|k| unique(base + k)).collect();
        let _reaper = Reaper(ns.clone());
        let command = format!("trap '' TERM; sleep {} & sleep {}", ns[0], ns[1]);
        let mut c = crate::command(&root.join("data"));
        if !cgroup {
            c.env(CGROUP_ENV, "off");
        }
        let mut child = c
            .args([
                "tool",
                "run",
                "execute_cmd",
                &json!({ "command": command }).to_string(),
                "--workdir",
                work.to_str().unwrap(),
                "--approve",
                "yes",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_sleeps(&ns).await;
        let status = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = child.wait().unwrap();
        assert_eq!(exit.code(), Some(1), "cgroup {cgroup}: cancelled");
        let left = survivors(&ns, Duration::from_secs(10)).await;
        assert!(
            left.is_empty(),
            "cgroup {cgroup}: outlived the stopped host: {left:?}"
        );
    }
}

/// `skald resume` re-runs a re-runnable call that the rules make a person
/// approve again; with no terminal to ask on it must reject it, not wait
/// forever for an answer no other process can give.
#[tokio::test]
async fn resume_never_waits_forever_on_an_approval() {
    use skald_store::{FrameStatus, NewMessage, NewToolCall, Role, ToolCallStatus};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let outside = root.join("outside.txt");
    std::fs::write(&outside, "far away\n").unwrap();
    let mock = MockServer::start([sse_text("Hello."), sse_text("I could not read it.")]).unwrap();
    // A session, then the state a crash mid-call leaves: a read of a file
    // outside the working directory (asked about by the catch-all rule).
    let out = with_mock(&data, &mock)
        .args([
            "chat",
            "--model",
            "test-model",
            "--workdir",
            work.to_str().unwrap(),
            "hi",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let store = Store::open(&data).await.unwrap();
    let sid = store.sessions().list().await.unwrap()[0].id.clone();
    let frame = store.stack().top(&sid).await.unwrap().unwrap().id;
    store
        .stack()
        .set_status(frame, FrameStatus::Active)
        .await
        .unwrap();
    let message = |role, content: &str, calls| NewMessage {
        session_id: sid.clone(),
        stack_id: Some(frame),
        role,
        content: content.into(),
        tool_calls: calls,
        tool_call_id: None,
    };
    store
        .history()
        .append(&message(Role::User, "read it", None))
        .await
        .unwrap();
    let args = json!({"path": outside}).to_string();
    let calls = json!([{"id": "r1", "name": "read_file", "arguments": args}]);
    let assistant = store
        .history()
        .append(&message(Role::Assistant, "", Some(calls)))
        .await
        .unwrap();
    store
        .tool_calls()
        .insert(&NewToolCall {
            id: "r1".into(),
            session_id: sid.clone(),
            message_id: Some(assistant.id),
            name: "read_file".into(),
            arguments: args,
            status: ToolCallStatus::Running,
        })
        .await
        .unwrap();
    store.close().await;

    let mut child = with_mock(&data, &mock)
        .args(["resume", "--model", "test-model"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("skald resume waited for an approval nobody can give");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(err.contains("stdin is not a terminal: rejecting"), "{err}");
    let store = Store::open(&data).await.unwrap();
    let row = store.tool_calls().get("r1").await.unwrap().unwrap();
    assert_eq!(row.status.as_str(), "rejected");
    store.close().await;
}
