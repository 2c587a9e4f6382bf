//! `exec-stop-bench`: how long a `/stop` takes to clear an `execute_cmd`
//! process tree from the process table.
//!
//! Each run starts `execute_cmd` with `sleep 100 & sleep 100` through
//! `Tool::run` + `drive_execution`, waits until both sleeps exist, fires the
//! cancel token and measures until no live (non-zombie) process of the
//! command's process group is left in `/proc`. Linux only.
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
use skald_tools::exec::{ExecuteCmd, live_group_members};

const DEFAULT_RUNS: usize = 50;
/// A run that has not cleared the group by then counts as a failure.
const GIVE_UP: Duration = Duration::from_secs(5);

struct Sample {
    /// Cancel → no live process of the group left.
    gone: Duration,
    /// Cancel → `drive_execution` returned.
    returned: Duration,
}

fn main() -> Result<(), Box<dyn Error>> {
    let runs = match std::env::args().nth(1) {
        Some(n) => n.parse::<usize>()?,
        None => DEFAULT_RUNS,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let tool = ExecuteCmd::new();
    let mut samples = Vec::with_capacity(runs);
    for i in 0..runs {
        let s = rt.block_on(one_run(&tool))?;
        eprintln!(
            "run {:>3}: gone {:>7.2} ms, returned {:>7.2} ms",
            i + 1,
            ms(s.gone),
            ms(s.returned)
        );
        samples.push(s);
    }
    report(
        "cancel → group gone from /proc",
        samples.iter().map(|s| s.gone),
    );
    report(
        "cancel → drive_execution returned",
        samples.iter().map(|s| s.returned),
    );
    Ok(())
}

async fn one_run(tool: &ExecuteCmd) -> Result<Sample, Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let exec = tool.run(json!({
        "command": "echo $$ > pgid.txt; sleep 100 & sleep 100",
        "workdir": dir.path(),
    }));
    let cancel = CancellationToken::new();
    let stop = async {
        let pgid = wait_for_sleeps(dir.path()).await?;
        let fired = Instant::now();
        cancel.cancel();
        let gone = tokio::task::spawn_blocking(move || poll_gone(pgid, fired)).await??;
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

/// The group id once the command recorded it and both sleeps are running.
async fn wait_for_sleeps(dir: &Path) -> Result<i32, String> {
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
            if sleeps >= 2 {
                return Ok(pgid);
            }
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Err("the sleeps never started".to_string())
}

fn poll_gone(pgid: i32, fired: Instant) -> Result<Duration, String> {
    loop {
        if live_group_members(pgid).is_empty() {
            return Ok(fired.elapsed());
        }
        if fired.elapsed() > GIVE_UP {
            return Err(format!("group {pgid} still alive after {GIVE_UP:?}"));
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
