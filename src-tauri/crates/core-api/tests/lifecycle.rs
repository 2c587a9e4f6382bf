//! Lifecycle of tool executions: completion, failure, stop through
//! `drive_execution`, drop semantics, and a real child process dying on stop.
#![allow(clippy::unwrap_used)] // test tools outside #[test] fns

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skald_core_api::*;

struct Sleeper {
    pid_tx: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<u32>>>,
}

impl Tool for Sleeper {
    fn name(&self) -> &str {
        "sleeper"
    }
    fn description(&self) -> &str {
        "sleeps 60 s in a child process"
    }
    fn parameters_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Shell
    }
    fn execute_async<'a>(&'a self, _args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let mut child = tokio::process::Command::new("sleep")
                .arg("60")
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| ToolError::failed(e.to_string()))?;
            if let Some(tx) = self.pid_tx.lock().unwrap().take() {
                let _ = tx.send(child.id().unwrap());
            }
            let _ = child.wait().await;
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok("slept".into())
        })
    }
}

/// Wraps an execution and counts `stop()` calls and observed states.
struct Counting<'a> {
    inner: Box<dyn ToolExecution + 'a>,
    stops: Arc<AtomicUsize>,
}

impl ToolExecution for Counting<'_> {
    fn state(&self) -> ToolExecutionState {
        self.inner.state()
    }
    fn wait<'s>(&'s self) -> BoxFuture<'s, ExecutionOutcome> {
        self.inner.wait()
    }
    fn stop<'s>(&'s self) -> BoxFuture<'s, ()> {
        self.stops.fetch_add(1, Ordering::SeqCst);
        self.inner.stop()
    }
}

/// A process is gone when /proc has no entry or only a zombie awaiting reaping.
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_through_drive_execution_kills_the_child_quickly() {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let tool = Sleeper {
        pid_tx: std::sync::Mutex::new(Some(tx)),
    };
    let stops = Arc::new(AtomicUsize::new(0));
    let exec = Counting {
        inner: tool.run(json!({})),
        stops: stops.clone(),
    };
    assert_eq!(exec.state(), ToolExecutionState::Pending);
    let cancel = CancellationToken::new();

    let states = Arc::new(std::sync::Mutex::new(vec![exec.state()]));
    let driver = async {
        let outcome = drive_execution(&exec, cancel.clone()).await;
        states.lock().unwrap().push(exec.state());
        outcome
    };
    let stopper = async {
        let pid = rx.await.unwrap();
        states.lock().unwrap().push(exec.state());
        let started = Instant::now();
        cancel.cancel();
        (pid, started)
    };
    let (outcome, (pid, started)) = tokio::join!(driver, stopper);
    let elapsed = started.elapsed();

    assert_eq!(outcome, ExecutionOutcome::Cancelled);
    assert!(
        elapsed < Duration::from_millis(500),
        "stop took {elapsed:?}"
    );
    assert_eq!(
        stops.load(Ordering::SeqCst),
        1,
        "stop() called exactly once"
    );
    assert_eq!(
        *states.lock().unwrap(),
        vec![
            ToolExecutionState::Pending,
            ToolExecutionState::Running,
            ToolExecutionState::Cancelled
        ]
    );
    // A second wait reports the stop, it does not re-run the work.
    assert_eq!(exec.wait().await, ExecutionOutcome::Cancelled);

    let deadline = Instant::now() + Duration::from_secs(2);
    while !process_gone(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(process_gone(pid), "child {pid} survived the stop");
}

struct Echo;

impl Tool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "echoes"
    }
    fn parameters_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
    fn execute(&self, args: Value) -> ToolResult {
        match args.get("fail") {
            Some(Value::Bool(true)) => Err(ToolError::failed("asked to fail")),
            _ => Ok(args.to_string()),
        }
    }
}

#[tokio::test]
async fn sync_tool_completes_and_fails_through_default_run() {
    let ok = Echo.run(json!({"a": 1}));
    let outcome = drive_execution(ok.as_ref(), CancellationToken::new()).await;
    assert_eq!(outcome, ExecutionOutcome::Completed(r#"{"a":1}"#.into()));
    assert_eq!(ok.state(), ToolExecutionState::Completed);
    assert_eq!(ok.state().db_status(), ToolCallStatus::Done);
    // A finished execution reports its outcome again; it never re-runs.
    assert_eq!(ok.wait().await, outcome);

    let bad = Echo.run(json!({"fail": true}));
    let outcome = drive_execution(bad.as_ref(), CancellationToken::new()).await;
    assert_eq!(
        outcome,
        ExecutionOutcome::Failed(ToolError::failed("asked to fail"))
    );
    assert_eq!(bad.state().db_status(), ToolCallStatus::Failed);
}

#[tokio::test]
async fn dropping_wait_cancels_and_second_wait_is_cancelled() {
    let tool = Sleeper {
        pid_tx: std::sync::Mutex::new(None),
    };
    let exec = tool.run(json!({}));
    let timed = tokio::time::timeout(Duration::from_millis(50), exec.wait()).await;
    assert!(timed.is_err());
    assert_eq!(exec.state(), ToolExecutionState::Cancelled);
    assert_eq!(exec.wait().await, ExecutionOutcome::Cancelled);
}

#[tokio::test]
async fn stop_before_wait_never_starts_the_work() {
    let exec = Echo.run(json!({}));
    exec.stop().await;
    assert_eq!(exec.state(), ToolExecutionState::Cancelled);
    assert_eq!(exec.wait().await, ExecutionOutcome::Cancelled);
}

#[tokio::test]
async fn an_already_cancelled_token_stops_immediately() {
    let tool = Sleeper {
        pid_tx: std::sync::Mutex::new(None),
    };
    let exec = tool.run(json!({}));
    let cancel = CancellationToken::new();
    cancel.cancel();
    let started = Instant::now();
    let outcome = drive_execution(exec.as_ref(), cancel).await;
    assert_eq!(outcome, ExecutionOutcome::Cancelled);
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[test]
fn state_to_db_status_mapping_matches_the_spec() {
    use ToolExecutionState as S;
    let table = [
        (S::Pending, "running"),
        (S::AwaitingApproval, "pending"),
        (S::Running, "running"),
        (S::Completed, "done"),
        (S::Failed, "failed"),
        (S::Cancelled, "cancelled"),
        (S::Rejected, "rejected"),
    ];
    for (state, db) in table {
        assert_eq!(state.db_status().as_str(), db, "{state:?}");
        assert_eq!(ToolCallStatus::parse(db), Some(state.db_status()));
    }
    assert!(!S::Running.is_terminal());
    assert!(!S::AwaitingApproval.is_terminal());
    assert!(S::Rejected.is_terminal());
}

#[test]
fn default_trait_methods() {
    assert_eq!(
        Echo.describe(&json!({}), ToolDescriptionLength::Short),
        "echo"
    );
    assert_eq!(Echo.target_path(&json!({"path": "x"})), None);
    assert!(!Echo.sub_agents_only());
    assert!(!Echo.root_agent_only());
    assert_eq!(Echo.restart_hint(), RestartHint::Rerun);
    let def = Echo.openai_definition();
    assert_eq!(def["type"], "function");
    assert_eq!(def["function"]["name"], "echo");
    assert_eq!(def["function"]["description"], "echoes");
    assert_eq!(
        Echo.effective_args(json!({"a": 1}), std::path::Path::new("/tmp")),
        json!({"a": 1})
    );
}

struct Unimplemented;

impl Tool for Unimplemented {
    fn name(&self) -> &str {
        "nothing"
    }
    fn description(&self) -> &str {
        ""
    }
    fn parameters_schema(&self) -> Value {
        json!({})
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Config
    }
}

#[tokio::test]
async fn a_tool_without_execute_fails_cleanly() {
    let exec = Unimplemented.run(json!({}));
    let outcome = exec.wait().await;
    assert_eq!(
        outcome,
        ExecutionOutcome::Failed(ToolError::NotImplemented("nothing".into()))
    );
}
