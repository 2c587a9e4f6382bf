//! `exec-stop-bench`: how long a `/stop` takes to clear an `execute_cmd`
//! process tree from the process table.
//!
//! Each run starts `execute_cmd` through `Tool::run` + `drive_execution`,
//! waits until its sleeps exist, fires the cancel token and measures until
//! none of them is left alive (non-zombie) in `/proc`. Two workloads, each
//! with a cgroup per command (where this machine allows one) and without:
//! `group` is `sleep 100 & sleep 100`, all in the process group (comparable
//! with earlier versions of this benchmark); `escaped` adds a `setsid` sleep
//! and a double-forked one, which only the cgroup or the environment tag
//! finds. Linux only. Last, the round trip of `true` per containment (what
//! the tracking costs a command that ends normally).
//!
//! ```sh
//! CARGO_TARGET_DIR=/root/.cache/skald-target \
//!   cargo run --release -p skald-tools --bin exec-stop-bench -- 50
//! ```

use std::error::Error;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use skald_core_api::{CancellationToken, ExecutionOutcome, Tool, drive_execution};
use skald_tools::exec::{ExecuteCmd, live_group_members, processes_running};

const DEFAULT_RUNS: usize = 50;
/// A run that has not cleared the tree by then counts as a failure.
const GIVE_UP: Duration = Duration::from_secs(5);

struct Sample {
    /// Cancel → no live process of the tree left.
    gone: Duration,
    /// Cancel → `drive_execution` returned.
    returned: Duration,
}

#[derive(Clone, Copy)]
enum Workload {
    Group,
    Escaped,
}

fn main() -> Result<(), Box<dyn Error>> {
    let runs = match std::env::args().nth(1) {
        Some(n) => n.parse::<usize>()?,
        None => DEFAULT_RUNS,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let cases = [
        ("group, cgroup", ExecuteCmd::new(), Workload::Group),
        (
            "group, no cgroup",
            ExecuteCmd::without_cgroup(),
            Workload::Group,
        ),
        ("escaped, cgroup", ExecuteCmd::new(), Workload::Escaped),
        (
            "escaped, no cgroup",
            ExecuteCmd::without_cgroup(),
            Workload::Escaped,
        ),
    ];
    let mut serial = 0u32;
    for (name, tool, workload) in &cases {
        let mut samples = Vec::with_capacity(runs);
        for i in 0..runs {
            serial += 1;
            let s = rt.block_on(one_run(tool, *workload, serial))?;
            eprintln!(
                "{name} run {:>3}: gone {:>7.2} ms, returned {:>7.2} ms",
                i + 1,
                ms(s.gone),
                ms(s.returned)
            );
            samples.push(s);
        }
        report(
            &format!("[{name}] cancel → every process gone from /proc"),
            samples.iter().map(|s| s.gone),
        );
        report(
            &format!("[{name}] cancel → drive_execution returned"),
            samples.iter().map(|s| s.returned),
        );
    }
    for (name, tool) in [
        ("cgroup", ExecuteCmd::new()),
        ("no cgroup", ExecuteCmd::without_cgroup()),
    ] {
        let dir = tempfile::tempdir()?;
        let mut samples = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            let out = rt.block_on(tool.execute_async(json!({
                "command": "true",
                "workdir": dir.path(),
            })))?;
            samples.push(t.elapsed());
            if out != "(no output)\n[exit code: 0]" {
                return Err(format!("unexpected result: {out}").into());
            }
        }
        report(
            &format!("[{name}] execute_cmd `true` round trip"),
            samples.into_iter(),
        );
    }
    Ok(())
}

async fn one_run(
    tool: &ExecuteCmd,
    workload: Workload,
    serial: u32,
) -> Result<Sample, Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    // Unique durations find the escaped sleeps by their command line.
    let pid = std::process::id();
    let (a, b) = (format!("3001.{pid}{serial}"), format!("3002.{pid}{serial}"));
    let (command, escaped) = match workload {
        Workload::Group => (
            "echo $$ > pgid.txt; sleep 100 & sleep 100".to_string(),
            vec![],
        ),
        Workload::Escaped => (
            format!(
                "echo $$ > pgid.txt; sleep 100 & setsid sleep {a} & \
                 ( setsid sh -c 'sleep {b} &' & ); sleep 100"
            ),
            vec![a, b],
        ),
    };
    let exec = tool.run(json!({
        "command": command,
        "workdir": dir.path(),
    }));
    let cancel = CancellationToken::new();
    let stop = async {
        let pgid = wait_for_sleeps(dir.path(), &escaped).await?;
        let fired = Instant::now();
        cancel.cancel();
        let gone = tokio::task::spawn_blocking(move || poll_gone(pgid, &escaped, fired)).await??;
        Ok::<_, Box<dyn Error>>((fired, gone))
    };
    let driven = async {
        let outcome = drive_execution(exec.as_ref(), cancel.clone()).await;
        (outcome, Instant::now())
    };
    let ((outcome, returned_at), stopped) = tokio::join!(driven, stop);
    let (fired, gone) = stopped?;
    if outcome != ExecutionOutcome::Cancelled {
        return Err(format!("expected Cancelled, got {outcome:?}").into());
    }
    Ok(Sample {
        gone,
        returned: returned_at.saturating_duration_since(fired),
    })
}

/// Live `sleep <n>` processes for the escaped durations.
fn escaped_alive(escaped: &[String]) -> usize {
    escaped
        .iter()
        .map(|n| processes_running(&["sleep", n]).len())
        .sum()
}

/// The group id once the command recorded it and every sleep is running.
async fn wait_for_sleeps(dir: &Path, escaped: &[String]) -> Result<i32, String> {
    let start = Instant::now();
    while start.elapsed() < GIVE_UP {
        if let Ok(text) = std::fs::read_to_string(dir.join("pgid.txt"))
            && let Ok(pgid) = text.trim().parse::<i32>()
        {
            let sleeps = live_group_members(pgid)
                .into_iter()
                .filter(|pid| {
                    std::fs::read_to_string(format!("/proc/{pid}/comm"))
                        .is_ok_and(|c| c.trim() == "sleep")
                })
                .count();
            if sleeps >= 2 && escaped_alive(escaped) == escaped.len() {
                return Ok(pgid);
            }
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Err("the sleeps never started".to_string())
}

fn poll_gone(pgid: i32, escaped: &[String], fired: Instant) -> Result<Duration, String> {
    loop {
        if live_group_members(pgid).is_empty() && escaped_alive(escaped) == 0 {
            return Ok(fired.elapsed());
        }
        if fired.elapsed() > GIVE_UP {
            return Err(format!(
                "group {pgid} or sleeps {escaped:?} still alive after {GIVE_UP:?}"
            ));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(what: &str, samples: impl Iterator<Item = Duration>) {
    let mut v: Vec<Duration> = samples.collect();
    if v.is_empty() {
        return;
    }
    v.sort();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what} (n={}): min {:.2} ms, median {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        v.len(),
        ms(v[0]),
        ms(at(0.5)),
        ms(at(0.95)),
        ms(v[v.len() - 1]),
    );
}
