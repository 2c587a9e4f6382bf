//! `execute_cmd` end to end: real `sh` processes, checked against the process
//! table for anything a stopped call could leave behind.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skald_core_api::{
    CancellationToken, ExecutionOutcome, RestartHint, Tool, ToolCategory, ToolDescriptionLength,
    ToolError, drive_execution,
};
use skald_tools::exec::{ExecuteCmd, OUTPUT_LIMIT_BYTES, live_group_members, processes_running};
use skald_tools::tool_names as tn;

async fn run(args: Value) -> Result<String, ToolError> {
    ExecuteCmd::new().execute_async(args).await
}

async fn run_in(dir: &Path, command: &str) -> String {
    match run(json!({"command": command, "workdir": dir})).await {
        Ok(out) => out,
        Err(e) => panic!("`{command}` failed: {e}"),
    }
}

/// A command prefix that writes the shell's pid (= the group id) to `pgid.txt`.
const RECORD_PGID: &str = "echo $$ > pgid.txt";

/// Waits until the command recorded its group id and at least `sleeps` live
/// `sleep` processes are in that group; returns the group id.
async fn wait_for_sleeps(dir: &Path, sleeps: usize) -> i32 {
    let start = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(dir.join("pgid.txt"))
            && let Ok(pgid) = s.trim().parse::<i32>()
        {
            let n = live_group_members(pgid)
                .into_iter()
                .filter(|pid| {
                    std::fs::read_to_string(format!("/proc/{pid}/comm"))
                        .is_ok_and(|c| c.trim() == "sleep")
                })
                .count();
            if n >= sleeps {
                return pgid;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "sleeps never started"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The output and the status line (without brackets).
fn split_status(out: &str) -> (&str, &str) {
    let at = out
        .rfind('[')
        .unwrap_or_else(|| panic!("no status line: {out}"));
    let status = out[at..]
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'));
    (
        &out[..at],
        status.unwrap_or_else(|| panic!("bad status line: {out}")),
    )
}

/// `status` is `<prefix>N <noun>` with N ≥ 1 and names no survivor.
fn assert_killed_all(status: &str, prefix: &str, noun: &str) {
    let rest = status
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{status:?} does not start with {prefix:?}"));
    let (n, tail) = rest
        .split_once(' ')
        .unwrap_or_else(|| panic!("no count in {status:?}"));
    let n: usize = n.parse().unwrap_or_else(|e| panic!("{status:?}: {e}"));
    assert!(n >= 1, "{status}");
    assert_eq!(tail, noun, "{status}");
}

/// Waits (up to `limit`) until no live process is left in `pgid`.
async fn assert_group_gone(pgid: i32, limit: Duration) -> Duration {
    let start = Instant::now();
    loop {
        let left = live_group_members(pgid);
        if left.is_empty() {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < limit,
            "processes of group {pgid} still alive after {limit:?}: {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn read_pgid(dir: &Path) -> i32 {
    let text = std::fs::read_to_string(dir.join("pgid.txt")).unwrap_or_default();
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("no group id recorded ({text:?}): {e}"))
}

#[tokio::test]
async fn output_then_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run_in(dir.path(), "echo hello").await,
        "hello\n[exit code: 0]"
    );
    // A non-zero exit is a completed call: the model reads the code.
    assert_eq!(
        run_in(dir.path(), "echo oops; exit 3").await,
        "oops\n[exit code: 3]"
    );
    assert_eq!(run_in(dir.path(), "printf x").await, "x\n[exit code: 0]");
    assert_eq!(
        run_in(dir.path(), "true").await,
        "(no output)\n[exit code: 0]"
    );
}

#[tokio::test]
async fn stderr_interleaves_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), "echo a; echo b >&2; echo c; echo d >&2").await;
    assert_eq!(out, "a\nb\nc\nd\n[exit code: 0]");
}

#[tokio::test]
async fn death_by_signal_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), "echo before; kill -9 $$").await;
    assert_eq!(out, "before\n[killed by signal 9 (SIGKILL)]");
}

#[tokio::test]
async fn non_utf8_output_is_decoded_lossily() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), r"printf 'a\377b\n'").await;
    assert_eq!(out, "a\u{fffd}b\n[exit code: 0]");
}

#[tokio::test]
async fn workdir_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), "pwd").await;
    assert_eq!(out, format!("{}\n[exit code: 0]", dir.path().display()));

    // A relative workdir given straight to the tool (no effective_args) is
    // taken against the process directory.
    let cwd = std::env::current_dir().unwrap();
    let out = run(json!({"command": "pwd", "workdir": "."}))
        .await
        .unwrap();
    assert_eq!(out, format!("{}\n[exit code: 0]", cwd.display()));
}

#[test]
fn effective_args_fill_and_resolve_workdir() {
    let tool = ExecuteCmd::new();
    let wd = Path::new("/work/project");
    let filled = tool.effective_args(json!({"command": "ls"}), wd);
    assert_eq!(filled, json!({"command": "ls", "workdir": "/work/project"}));
    let filled = tool.effective_args(json!({"command": "ls", "workdir": null}), wd);
    assert_eq!(filled["workdir"], "/work/project");
    let rel = tool.effective_args(json!({"command": "ls", "workdir": "sub/dir"}), wd);
    assert_eq!(rel["workdir"], "/work/project/sub/dir");
    let abs = tool.effective_args(json!({"command": "ls", "workdir": "/tmp"}), wd);
    assert_eq!(abs["workdir"], "/tmp");
    // Not an object: left for parse_args to reject.
    assert_eq!(tool.effective_args(json!([1]), wd), json!([1]));
}

#[tokio::test]
async fn effective_args_workdir_is_where_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let tool = ExecuteCmd::new();
    let args = tool.effective_args(json!({"command": "pwd", "workdir": "sub"}), dir.path());
    let out = tool.execute_async(args).await.unwrap();
    assert_eq!(
        out,
        format!("{}\n[exit code: 0]", dir.path().join("sub").display())
    );
}

#[tokio::test]
async fn timeout_kills_the_group_after_about_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = run(json!({
        "command": format!("{RECORD_PGID}; echo started; sleep 30 & sleep 30"),
        "workdir": dir.path(),
        "timeout": 1,
    }))
    .await
    .unwrap();
    let took = start.elapsed();
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    let (out, status) = split_status(&out);
    assert_eq!(out, "started\n");
    assert_killed_all(status, "timed out after 1 s; killed ", "processes");
    assert_group_gone(read_pgid(dir.path()), Duration::from_secs(2)).await;
}

#[tokio::test]
async fn stop_through_drive_execution_kills_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let tool = ExecuteCmd::new();
    let exec = tool.run(json!({
        "command": format!("{RECORD_PGID}; sleep 100 & sleep 100"),
        "workdir": dir.path(),
    }));
    let cancel = CancellationToken::new();
    let watcher = async {
        let pgid = wait_for_sleeps(dir.path(), 2).await;
        cancel.cancel();
        (pgid, Instant::now())
    };
    let (outcome, (pgid, stopped_at)) =
        tokio::join!(drive_execution(exec.as_ref(), cancel.clone()), watcher);
    assert_eq!(outcome, ExecutionOutcome::Cancelled);
    assert_group_gone(pgid, Duration::from_secs(2)).await;
    // Both sleeps die on SIGTERM: far below the SIGKILL grace.
    let latency = stopped_at.elapsed();
    assert!(latency < Duration::from_secs(1), "{latency:?}");
}

#[tokio::test]
async fn dropping_the_future_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let tool = ExecuteCmd::new();
    let work = tool.execute_async(json!({
        "command": format!("{RECORD_PGID}; sleep 100 & sleep 100"),
        "workdir": dir.path(),
    }));
    let pgid = tokio::select! {
        r = work => panic!("the command ended on its own: {r:?}"),
        pgid = wait_for_sleeps(dir.path(), 2) => pgid,
    };
    // `work` is dropped here, mid-flight.
    assert_group_gone(pgid, Duration::from_secs(2)).await;
}

#[tokio::test]
async fn a_group_ignoring_sigterm_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let tool = ExecuteCmd::new();
    let work = tool.execute_async(json!({
        "command": format!("{RECORD_PGID}; trap '' TERM; sleep 100 & sleep 100"),
        "workdir": dir.path(),
    }));
    let pgid = tokio::select! {
        r = work => panic!("the command ended on its own: {r:?}"),
        pgid = wait_for_sleeps(dir.path(), 2) => pgid,
    };
    assert_group_gone(pgid, Duration::from_secs(3)).await;
}

#[tokio::test]
async fn background_job_holding_the_output_is_killed_after_the_shell_exits() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = run_in(
        dir.path(),
        &format!("{RECORD_PGID}; sleep 100 & echo started"),
    )
    .await;
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_eq!(
        out,
        "started\n[exit code: 0; the output was still open after the shell exited: killed 1 \
         background process]"
    );
    assert_group_gone(read_pgid(dir.path()), Duration::from_secs(2)).await;
}

#[tokio::test]
async fn background_job_with_redirected_output_keeps_running() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(
        dir.path(),
        &format!("{RECORD_PGID}; sleep 100 > /dev/null 2>&1 & echo started"),
    )
    .await;
    let pgid = read_pgid(dir.path());
    let left = live_group_members(pgid);
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(
        out,
        format!(
            "started\n[exit code: 0; left running in the background: pid {} `sleep 100`]",
            left[0]
        )
    );
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

#[tokio::test]
async fn stdin_is_empty_and_a_finished_command_leaves_nothing_behind() {
    // `cat` must see EOF at once (stdin is /dev/null, not the watchdog's pipe),
    // and once the shell exits nothing of the group is left, watchdog included.
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &format!("{RECORD_PGID}; cat; echo after")).await;
    assert_eq!(out, "after\n[exit code: 0]");
    assert_group_gone(read_pgid(dir.path()), Duration::from_secs(2)).await;
}

#[tokio::test]
async fn the_command_cannot_reach_the_watchdogs_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(
        dir.path(),
        "readlink /proc/$$/fd/0; [ -e /proc/$$/fd/3 ] && echo fd3-open || echo fd3-closed",
    )
    .await;
    assert_eq!(out, "/dev/null\nfd3-closed\n[exit code: 0]");
}

#[tokio::test]
async fn long_output_keeps_head_and_tail() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(
        dir.path(),
        r"echo HEADMARK; head -c 300000 /dev/zero | tr '\0' a; echo; echo TAILMARK",
    )
    .await;
    assert!(out.starts_with("HEADMARK\naaaa"));
    assert!(
        out.ends_with("aaaa\nTAILMARK\n[exit code: 0]"),
        "{}",
        &out[out.len() - 80..]
    );
    let total = 9 + 300_000 + 1 + 9;
    assert!(out.len() <= OUTPUT_LIMIT_BYTES + 300, "{}", out.len());
    let omitted = total - 100 * 1024;
    assert!(
        out.contains(&format!(
            "[… {omitted} bytes omitted: the output was {total} bytes; showing the first 50 KB and the last 50 KB …]"
        )),
        "notice missing"
    );
}

#[tokio::test]
async fn bad_workdir_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let e = run(json!({"command": "true", "workdir": missing}))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        ToolError::Failed(format!(
            "workdir `{}` does not exist; pass an existing directory",
            missing.display()
        ))
    );
    let file = dir.path().join("f.txt");
    std::fs::write(&file, "x").unwrap();
    let e = run(json!({"command": "true", "workdir": file}))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        ToolError::Failed(format!(
            "workdir `{}` is not a directory; pass an existing directory",
            file.display()
        ))
    );
}

#[tokio::test]
async fn invalid_arguments_are_rejected() {
    for args in [
        json!({"command": "true", "timeout": 0}),
        json!({"command": "true", "timeout": 601}),
        json!({"command": "true", "timeout": -1}),
        json!({"command": "true", "timeout": "10"}),
        json!({"command": "   "}),
        json!({"command": "true", "cwd": "/"}),
        json!({}),
    ] {
        let e = run(args.clone()).await.unwrap_err();
        assert!(e.is_invalid_arguments(), "{args}: {e}");
    }
    let e = run(json!({"command": "true", "timeout": 601}))
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid arguments for execute_cmd: timeout must be between 1 and 600 seconds, got 601"
    );
    // The bounds themselves are fine.
    let dir = tempfile::tempdir().unwrap();
    for t in [1, 600] {
        let out = run(json!({"command": "echo ok", "workdir": dir.path(), "timeout": t}))
            .await
            .unwrap();
        assert_eq!(out, "ok\n[exit code: 0]");
    }
}

#[test]
fn labels() {
    let tool = ExecuteCmd::new();
    let short = ToolDescriptionLength::Short;
    let full = ToolDescriptionLength::Full;
    assert_eq!(
        tool.describe(&json!({"command": "cargo test"}), short),
        "execute_cmd `cargo test`"
    );
    assert_eq!(
        tool.describe(&json!({"command": "  cd x\n  make\n"}), short),
        "execute_cmd `cd x …`"
    );
    assert_eq!(tool.describe(&json!({}), short), "execute_cmd");
    let long = format!("git commit -m \"{}\"", "feat: ".repeat(40));
    let s = tool.describe(&json!({"command": long}), short);
    assert_eq!(s.chars().count(), 60);
    assert!(s.starts_with("execute_cmd `git commit -m \"feat: "));
    assert!(s.ends_with("…`"), "{s}");
    let f = tool.describe(&json!({"command": long}), full);
    assert_eq!(f.chars().count(), 120);
    assert!(f.ends_with("…`"));
}

#[test]
fn definition() {
    let tool = ExecuteCmd::new();
    assert_eq!(tool.name(), tn::EXECUTE_CMD);
    assert_eq!(tool.category(), ToolCategory::Shell);
    assert_eq!(tool.restart_hint(), RestartHint::Reask);
    assert_eq!(tool.target_path(&json!({"command": "ls"})), None);
    let d = tool.description();
    for name in [tn::READ_FILE, tn::GREP_FILES, tn::LIST_FILES, tn::EDIT_FILE] {
        assert!(d.contains(name), "description should point to {name}");
    }
    let s = tool.parameters_schema();
    assert_eq!(s["type"], "object");
    assert_eq!(s["required"], json!(["command"]));
    assert_eq!(s["additionalProperties"], json!(false));
    assert_eq!(s["properties"]["timeout"]["minimum"], 1);
    assert_eq!(s["properties"]["timeout"]["maximum"], 600);
    assert!(s["properties"]["workdir"]["description"].is_string());
    let registry = skald_tools::builtin_registry(&Default::default());
    assert_eq!(
        registry.category_of(tn::EXECUTE_CMD),
        Some(ToolCategory::Shell)
    );
    assert_eq!(
        registry.restart_hint(tn::EXECUTE_CMD),
        Some(RestartHint::Reask)
    );
}

// ---------------------------------------------------------------------------
// Escapes from the process group: `setsid`, double forks, daemons, nohup.
// Each test gives its sleeps a unique duration (`3001.<test pid>`), finds them
// by their exact command line, and kills whatever is left even when failing.

/// A sleep duration no other test process uses: about 50 minutes.
fn unique(k: u32) -> String {
    format!("{}.{}", 3000 + k, std::process::id())
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
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

fn reaper(ns: &[&String]) -> Reaper {
    Reaper(ns.iter().map(|s| s.to_string()).collect())
}

/// Waits until every `sleep <n>` is gone (up to 3 s); the survivors otherwise.
async fn assert_no_sleep_survives(ns: &[&String]) {
    let start = Instant::now();
    loop {
        let left: Vec<(String, Vec<i32>)> = ns
            .iter()
            .map(|n| (n.to_string(), sleeping(n)))
            .filter(|(_, p)| !p.is_empty())
            .collect();
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "still running: {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Both ways a command is contained: its own cgroup where this machine
/// allows it, and process group + environment tag + output pipe without.
fn tools() -> [(&'static str, ExecuteCmd); 2] {
    [
        ("cgroup", ExecuteCmd::new()),
        ("no cgroup", ExecuteCmd::without_cgroup()),
    ]
}

async fn run_with(tool: &ExecuteCmd, dir: &Path, command: &str) -> String {
    tool.execute_async(json!({"command": command, "workdir": dir}))
        .await
        .unwrap_or_else(|e| panic!("`{command}` failed: {e}"))
}

#[tokio::test]
async fn a_setsid_job_holding_the_output_is_killed_not_just_claimed() {
    for (how, tool) in tools() {
        let dir = tempfile::tempdir().unwrap();
        let n = unique(1);
        let _r = reaper(&[&n]);
        let out = run_with(
            &tool,
            dir.path(),
            &format!("setsid sleep {n} & echo started"),
        )
        .await;
        assert_eq!(
            out,
            "started\n[exit code: 0; the output was still open after the shell exited: \
             killed 1 background process]",
            "{how}"
        );
        assert_no_sleep_survives(&[&n]).await;
    }
}

#[tokio::test]
async fn a_double_forked_daemon_and_nohup_are_killed() {
    for (how, tool) in tools() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (unique(2), unique(3));
        let _r = reaper(&[&a, &b]);
        let out = run_with(
            &tool,
            dir.path(),
            &format!("( setsid sh -c 'sleep {a} &' & ); nohup sleep {b} & sleep 0.2; echo started"),
        )
        .await;
        let (text, status) = split_status(&out);
        assert_eq!(text, "started\n", "{how}");
        assert_killed_all(
            status,
            "exit code: 0; the output was still open after the shell exited: killed ",
            "background processes",
        );
        assert_no_sleep_survives(&[&a, &b]).await;
    }
}

#[tokio::test]
async fn a_timeout_kills_what_left_the_group() {
    for (how, tool) in tools() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (unique(4), unique(5));
        let _r = reaper(&[&a, &b]);
        let out = tool
            .execute_async(json!({
                "command": format!("setsid sleep {a} & ( setsid sh -c 'sleep {b} &' & ); echo started; sleep 30"),
                "workdir": dir.path(),
                "timeout": 1,
            }))
            .await
            .unwrap();
        let (text, status) = split_status(&out);
        assert_eq!(text, "started\n", "{how}");
        assert_killed_all(status, "timed out after 1 s; killed ", "processes");
        assert_no_sleep_survives(&[&a, &b]).await;
    }
}

#[tokio::test]
async fn a_stop_kills_what_left_the_group() {
    for (how, tool) in tools() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (unique(6), unique(7));
        let _r = reaper(&[&a, &b]);
        let exec = tool.run(json!({
            "command": format!("setsid sleep {a} & ( setsid sh -c 'sleep {b} &' & ); sleep 100"),
            "workdir": dir.path(),
        }));
        let cancel = CancellationToken::new();
        let watcher = async {
            let start = Instant::now();
            while sleeping(&a).is_empty() || sleeping(&b).is_empty() {
                assert!(
                    start.elapsed() < Duration::from_secs(10),
                    "{how}: never started"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            cancel.cancel();
        };
        let (outcome, ()) = tokio::join!(drive_execution(exec.as_ref(), cancel.clone()), watcher);
        assert_eq!(outcome, ExecutionOutcome::Cancelled, "{how}");
        assert_no_sleep_survives(&[&a, &b]).await;
    }
}

#[tokio::test]
async fn a_job_that_cleared_its_environment_and_holds_the_output_is_killed() {
    // No tag to find it by: the cgroup holds it, or (without one) the pipe.
    for (how, tool) in tools() {
        let dir = tempfile::tempdir().unwrap();
        let n = unique(8);
        let _r = reaper(&[&n]);
        let out = run_with(
            &tool,
            dir.path(),
            &format!("setsid env -i sleep {n} & echo started"),
        )
        .await;
        assert!(
            out.ends_with("killed 1 background process]"),
            "{how}: {out}"
        );
        assert_no_sleep_survives(&[&n]).await;
    }
}

#[tokio::test]
async fn a_detached_setsid_job_is_left_running_and_named() {
    for (how, tool) in tools() {
        let dir = tempfile::tempdir().unwrap();
        let n = unique(9);
        let _r = reaper(&[&n]);
        let out = run_with(
            &tool,
            dir.path(),
            &format!("setsid sleep {n} > /dev/null 2>&1 & sleep 0.2; echo started"),
        )
        .await;
        let pids = sleeping(&n);
        assert_eq!(pids.len(), 1, "{how}: {pids:?}");
        assert_eq!(
            out,
            format!(
                "started\n[exit code: 0; left running in the background: pid {} `sleep {n}`]",
                pids[0]
            ),
            "{how}"
        );
    }
}

/// Whether this machine lets us make cgroups: a cgroup2 mount and root (a
/// normal user needs a delegated subtree, which CI does not have).
fn cgroups_expected() -> bool {
    let v2 = std::fs::read_to_string("/proc/self/mountinfo")
        .is_ok_and(|m| m.lines().any(|l| l.contains(" - cgroup2 ")));
    // The effective uid is the second field of `Uid:`.
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|u| u.split_whitespace().nth(1).map(|e| e == "0"))
            .unwrap_or(false)
    });
    v2 && root
}

#[tokio::test]
async fn each_command_gets_its_own_cgroup_which_is_removed_after() {
    if !cgroups_expected() {
        eprintln!("skipped: no writable cgroup v2 here (needs a cgroup2 mount and root)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tool = ExecuteCmd::new();
    let out = run_with(&tool, dir.path(), "grep ^0:: /proc/self/cgroup").await;
    let path = out
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("0::"))
        .unwrap_or_else(|| panic!("{out}"));
    let me = std::process::id();
    assert!(
        path.contains(&format!("/skald-{me}/cmd-")),
        "not in a cgroup of its own: {out}"
    );
    // Without: the command shares the host's cgroup.
    let out = run_with(
        &ExecuteCmd::without_cgroup(),
        dir.path(),
        "grep ^0:: /proc/self/cgroup",
    )
    .await;
    assert!(!out.contains("/skald-"), "{out}");
    // The finished command's cgroup is gone from the hierarchy.
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let mount = mountinfo
        .lines()
        .find(|l| l.contains(" - cgroup2 "))
        .and_then(|l| l.split_whitespace().nth(4))
        .unwrap();
    let dir = Path::new(mount).join(path.trim_start_matches('/'));
    assert!(dir.parent().unwrap().is_dir(), "{}", dir.display());
    assert!(!dir.exists(), "{} was not removed", dir.display());
}

#[tokio::test]
async fn in_its_cgroup_even_a_job_that_dropped_every_mark_is_found() {
    // Left its group, cleared its environment, let go of the output: only
    // the cgroup still knows it. It is left running (the command finished
    // normally) but named, never silently forgotten.
    if !cgroups_expected() {
        eprintln!("skipped: no writable cgroup v2 here (needs a cgroup2 mount and root)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let n = unique(10);
    let _r = reaper(&[&n]);
    let out = run_with(
        &ExecuteCmd::new(),
        dir.path(),
        &format!("setsid env -i sleep {n} > /dev/null 2>&1 & sleep 0.2"),
    )
    .await;
    let pids = sleeping(&n);
    assert_eq!(pids.len(), 1, "{pids:?}");
    assert_eq!(
        out,
        format!(
            "(no output)\n[exit code: 0; left running in the background: pid {} `sleep {n}`]",
            pids[0]
        )
    );
}
