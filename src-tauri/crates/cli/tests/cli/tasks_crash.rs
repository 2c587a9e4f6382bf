//! A real `skald` process SIGKILLed in the middle of background work, then
//! `skald resume`: the run is reported interrupted (never re-run, as
//! docs/architecture.md says), its ending reaches its conversation — the
//! async task's parent, or Home for cron — exactly once, and its side
//! effect happened once. One harness for an async task, a cron run, and a
//! cron run whose call was waiting for approval (which leaves the Inbox).

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};
use skald_store::{Role, Store, ToolCallRow, ToolCallStatus};
use skald_tools::exec::processes_running;

use crate::stderr;
use crate::tasks::{start_task, with_mock, worker};

/// A temp dir with a data dir and a working dir, and a `sleep` argument
/// unique to this test (so its process can be told from others').
struct Crash {
    _dir: tempfile::TempDir,
    data: PathBuf,
    work: PathBuf,
    sleep: String,
}

impl Crash {
    fn new(tag: u32) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let work = root.join("w");
        std::fs::create_dir_all(&work).unwrap();
        Self {
            data: root.join("data"),
            work,
            sleep: format!("{tag}.{}", std::process::id()),
            _dir: dir,
        }
    }

    fn side(&self) -> PathBuf {
        self.work.join("side.txt")
    }

    /// The worker's one call: a side effect, a long sleep, another one.
    fn side_effect_call(&self) -> String {
        sse_tool_call(
            "w1",
            "execute_cmd",
            &json!({"command": format!(
                "echo started >> side.txt; sleep {}; echo finished >> side.txt",
                self.sleep
            )})
            .to_string(),
        )
    }

    fn sleeping(&self) -> Vec<i32> {
        processes_running(&["sleep", &self.sleep])
    }

    /// `skald ARGS` in the background, its output dropped.
    fn spawn(&self, mock: &MockServer, args: &[&str]) -> Child {
        with_mock(&self.data, mock)
            .args(args)
            .current_dir(&self.work)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }

    /// Waits until the worker's command ran its first half, then SIGKILLs
    /// `child` and waits until the command's shell died with it.
    async fn kill_mid_command(&self, mut child: Child) {
        let side = self.side();
        wait_for("the task's command to run", || {
            !self.sleeping().is_empty()
                && std::fs::read_to_string(&side).is_ok_and(|s| s == "started\n")
        })
        .await;
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        wait_for("the task's shell to die with skald", || {
            self.sleeping().is_empty()
        })
        .await;
    }

    /// `skald resume` twice: the first reports the one interrupted run, the
    /// second finds nothing more.
    fn resume_reports_one_interrupted_run(&self, mock: &MockServer) {
        let out = with_mock(&self.data, mock)
            .args(["resume", "--approve", "yes", "--model", "mock-small"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("1 background task run(s) interrupted"),
            "{}",
            stderr(&out)
        );
        let again = with_mock(&self.data, mock)
            .args(["resume", "--approve", "yes", "--model", "mock-small"])
            .output()
            .unwrap();
        assert!(again.status.success(), "{}", stderr(&again));
        assert!(
            !stderr(&again).contains("interrupted"),
            "{}",
            stderr(&again)
        );
    }

    /// Schedules cron job 1 through `skald chat` (its runs ask `mock-small`).
    fn schedule_cron_job(&self, mock: &MockServer, prompt: &str) {
        mock.push(sse_tool_call(
            "c1",
            "execute_task",
            &json!({"mode": "cron", "title": "Nightly check", "prompt": prompt,
                    "agent_id": "software-engineer", "cron": "0 3 * * *"})
            .to_string(),
        ));
        mock.push(sse_text("Scheduled."));
        let out = with_mock(&self.data, mock)
            .args(["chat", "check every night", "--approve", "yes"])
            .args(["--model", "mock-small", "--workdir"])
            .arg(&self.work)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

async fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Restarts (`skald resume`, twice) and checks what that left: job 1's one
/// run ended `interrupted` and was delivered, once, into the conversation
/// that answered `answer`; the worker's model was asked once, and its one
/// call ended cancelled. Returns that call and the conversation.
async fn restart_reports_once(
    c: &Crash,
    store: &Store,
    mock: &MockServer,
    prompt: &str,
    answer: &str,
) -> (ToolCallRow, String) {
    mock.push(sse_text(answer));
    c.resume_reports_one_interrupted_run(mock);
    // Anything re-run would have had time to write.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let jobs = store.jobs();
    let runs = jobs.list_runs(1, 10).await.unwrap();
    assert_eq!(runs.len(), 1, "never re-run: {runs:?}");
    assert_eq!(runs[0].status.as_str(), "interrupted");
    assert!(runs[0].delivered_at.is_some());
    assert!(jobs.running_runs().await.unwrap().is_empty());
    let bg = runs[0].session_id.clone().unwrap();
    let bg_calls = store.tool_calls().list_for_session(&bg).await.unwrap();
    let delivery = store
        .tool_calls()
        .get(&format!("task-run-{}", runs[0].id))
        .await
        .unwrap()
        .expect("the ending was delivered");
    let target = delivery.session_id.clone();
    let delivered: Vec<_> = store
        .tool_calls()
        .list_for_session(&target)
        .await
        .unwrap()
        .into_iter()
        .filter(|c| c.name == "task_completed")
        .collect();
    assert_eq!(delivered.len(), 1, "delivered exactly once");
    let result: Value = serde_json::from_str(delivered[0].result.as_deref().unwrap()).unwrap();
    assert_eq!(result["status"], "interrupted");
    let history = store.history().list_for_session(&target).await.unwrap();
    let last = history.last().unwrap();
    assert_eq!(
        (last.role, last.content.as_str()),
        (Role::Assistant, answer)
    );
    let worker_requests = mock
        .requests()
        .iter()
        .filter(|r| worker(prompt).matches(&r.body))
        .count();
    assert_eq!(worker_requests, 1, "the worker's model was asked once");
    assert_eq!(bg_calls.len(), 1);
    assert_eq!(bg_calls[0].status, ToolCallStatus::Cancelled);
    (bg_calls[0].clone(), target)
}

#[tokio::test]
async fn sigkill_during_an_async_task_then_resume_reports_it_interrupted_once() {
    let c = Crash::new(3300);
    let mock = MockServer::start([start_task("Run the backup."), sse_text("Started.")]).unwrap();
    mock.push_for(worker("Run the backup."), c.side_effect_call());
    let child = c.spawn(
        &mock,
        &[
            "chat",
            "back it up",
            "--approve",
            "yes",
            "--model",
            "mock-small",
        ],
    );
    // Wait until the parent's own turn is over: only the task runs.
    let store = Store::open(&c.data).await.unwrap();
    let start = Instant::now();
    loop {
        let parent = store.jobs().get(1).await.unwrap();
        let answered = match parent.and_then(|j| j.extras.parent_session_id) {
            Some(sid) => store
                .history()
                .list_for_session(&sid)
                .await
                .unwrap()
                .iter()
                .any(|m| m.role == Role::Assistant && m.content == "Started."),
            None => false,
        };
        if answered {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no answer");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    c.kill_mid_command(child).await;
    assert_eq!(
        store.jobs().running_runs().await.unwrap().len(),
        1,
        "left running by the crash"
    );

    let (_, target) = restart_reports_once(
        &c,
        &store,
        &mock,
        "Run the backup.",
        "The backup was interrupted; shall I run it again?",
    )
    .await;
    assert_eq!(std::fs::read_to_string(c.side()).unwrap(), "started\n");
    // Its conversation is the one that started it.
    let parent = store.jobs().get(1).await.unwrap().unwrap();
    assert_eq!(parent.extras.parent_session_id, Some(target));
    store.close().await;
}

#[tokio::test]
async fn sigkill_during_a_cron_run_then_resume_reports_it_to_home_once_and_keeps_the_schedule() {
    let c = Crash::new(3301);
    let mock = MockServer::start(Vec::<String>::new()).unwrap();
    c.schedule_cron_job(&mock, "Check the disks.");
    mock.push_for(worker("Check the disks."), c.side_effect_call());
    let child = c.spawn(&mock, &["cron", "run", "1", "--approve", "yes"]);
    c.kill_mid_command(child).await;
    let store = Store::open(&c.data).await.unwrap();
    assert_eq!(store.jobs().running_runs().await.unwrap().len(), 1);

    let (_, target) = restart_reports_once(
        &c,
        &store,
        &mock,
        "Check the disks.",
        "Last night's disk check was interrupted.",
    )
    .await;
    assert_eq!(std::fs::read_to_string(c.side()).unwrap(), "started\n");
    let home = store.sessions().get(&target).await.unwrap().unwrap();
    assert_eq!(home.title, "Home");
    // The job itself is untouched: still scheduled, and it runs again.
    let job = store.jobs().get(1).await.unwrap().unwrap();
    assert!(job.enabled && job.next_run_at.is_some(), "{job:?}");
    mock.push_for(worker("Check the disks."), sse_text("Disks fine."));
    mock.push(sse_text("Disks fine tonight."));
    let out = with_mock(&c.data, &mock)
        .args(["cron", "run", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(store.jobs().list_runs(1, 10).await.unwrap().len(), 2);
    assert_eq!(std::fs::read_to_string(c.side()).unwrap(), "started\n");
    store.close().await;
}

#[tokio::test]
async fn sigkill_while_a_cron_runs_call_waits_for_approval_ends_it_and_empties_the_inbox() {
    let c = Crash::new(3302);
    let mock = MockServer::start(Vec::<String>::new()).unwrap();
    c.schedule_cron_job(&mock, "Clean the cache.");
    mock.push_for(worker("Clean the cache."), c.side_effect_call());
    // No --approve: the command waits in the Inbox, as in the app.
    let child = c.spawn(&mock, &["cron", "run", "1"]);
    let store = Store::open(&c.data).await.unwrap();
    let start = Instant::now();
    let waiting = loop {
        let rows = store
            .tool_calls()
            .list_by_status(&[ToolCallStatus::Pending])
            .await
            .unwrap();
        if !rows.is_empty() {
            break rows;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "nothing waited");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].id, "w1");
    let mut child = child;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let inbox = |c: &Crash| {
        let out = with_mock(&c.data, &mock)
            .args(["inbox", "--json"])
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["approvals"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(inbox(&c), 1, "the call waits across the crash");

    let (call, _) = restart_reports_once(
        &c,
        &store,
        &mock,
        "Clean the cache.",
        "The cache cleaning was interrupted.",
    )
    .await;
    assert_eq!(inbox(&c), 0, "nothing is left to approve");
    assert_eq!(call.id, "w1");
    assert_eq!(
        call.result.as_deref(),
        Some(skald_session::notes::INTERRUPTED)
    );
    assert!(!c.side().exists(), "the command never ran");
    store.close().await;
}
