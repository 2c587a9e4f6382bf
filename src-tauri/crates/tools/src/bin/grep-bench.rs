//! Times the `grep_files` engine (`skald_tools::fs::grep::grep`, the exact
//! code the tool formats) against ripgrep over a large real tree, and checks
//! both find the same files and matching lines.
//!
//! ```text
//! cargo build --release -p skald-tools --bin grep-bench
//! $CARGO_TARGET_DIR/release/grep-bench [--dir DIR] [--pattern RE] [--runs N]
//!     [--mode count|files] [--case-sensitive] [--rg PATH]
//! $CARGO_TARGET_DIR/release/grep-bench --stop-latency [--runs N]
//! ```
//!
//! `--stop-latency` instead times how long a raised cancel flag takes to end
//! a search inside one long file (8 MB of lines a slow-but-allowed pattern
//! chews on at its worst), against the same search run to its end.
//!
//! ripgrep runs with flags matching our walker: `--no-config --hidden`
//! (hidden files searched), `-g '!.git' -g '!node_modules' -g '!target'
//! --iglob '!secrets'` (our SKIP_DIRS), `-i` unless `--case-sensitive`, and
//! `-c` (count) or `-l` (files). Runs are interleaved (ours, rg, ours, rg…)
//! after one warm-up each, so both see the same page cache.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use skald_tools::fs::grep::{GrepOptions, OutputMode, grep};

struct Args {
    dir: PathBuf,
    pattern: String,
    runs: usize,
    mode: OutputMode,
    case_sensitive: bool,
    rg: String,
    stop_latency: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        dir: PathBuf::from("/root/.cargo/registry/src"),
        pattern: r"fn\s+new\(".to_string(),
        runs: 5,
        mode: OutputMode::Count,
        case_sensitive: false,
        rg: "rg".to_string(),
        stop_latency: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--dir" => a.dir = PathBuf::from(value()?),
            "--pattern" => a.pattern = value()?,
            "--runs" => a.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--mode" => {
                a.mode = match value()?.as_str() {
                    "count" => OutputMode::Count,
                    "files" => OutputMode::FilesOnly,
                    other => return Err(format!("--mode count|files, not {other}")),
                }
            }
            "--case-sensitive" => a.case_sensitive = true,
            "--rg" => a.rg = value()?,
            "--stop-latency" => a.stop_latency = true,
            "-h" | "--help" => {
                return Err("usage: grep-bench [--dir DIR] [--pattern RE] [--runs N] \
                            [--mode count|files] [--case-sensitive] [--rg PATH] \
                            | grep-bench --stop-latency [--runs N]"
                    .to_string());
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.runs == 0 {
        return Err("--runs must be at least 1".to_string());
    }
    Ok(a)
}

/// path (relative to the searched dir) → matching lines (1 in files mode).
type Found = BTreeMap<String, u64>;

fn run_ours(a: &Args) -> Result<(Duration, Found), String> {
    let mut opts = GrepOptions::new(a.pattern.clone());
    opts.case_sensitive = a.case_sensitive;
    opts.mode = a.mode;
    let start = Instant::now();
    let outcome = grep(&a.dir, &opts).map_err(|e| e.to_string())?;
    let took = start.elapsed();
    let found = outcome
        .files
        .into_iter()
        .map(|f| (f.path.to_string_lossy().into_owned(), f.match_count))
        .collect();
    Ok((took, found))
}

fn run_rg(a: &Args) -> Result<(Duration, Found), String> {
    let mut cmd = Command::new(&a.rg);
    cmd.args(["--no-config", "--hidden", "--no-messages"])
        .args(["-g", "!.git", "-g", "!node_modules", "-g", "!target"])
        .args(["--iglob", "!secrets"]);
    if !a.case_sensitive {
        cmd.arg("-i");
    }
    cmd.arg(match a.mode {
        OutputMode::FilesOnly => "-l",
        OutputMode::Count | OutputMode::Content => "-c",
    });
    cmd.arg("-e").arg(&a.pattern).arg(".").current_dir(&a.dir);
    let start = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", a.rg))?;
    let took = start.elapsed();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut found = Found::new();
    for line in text.lines() {
        let line = line.strip_prefix("./").unwrap_or(line);
        match a.mode {
            OutputMode::FilesOnly => {
                found.insert(line.to_string(), 1);
            }
            OutputMode::Count | OutputMode::Content => {
                if let Some((path, n)) = line.rsplit_once(':') {
                    found.insert(path.to_string(), n.parse().unwrap_or(0));
                }
            }
        }
    }
    Ok((took, found))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn summary(found: &Found) -> (usize, u64) {
    (found.len(), found.values().sum())
}

fn report_diff(ours: &Found, rg: &Found) {
    let only_ours: Vec<_> = ours.keys().filter(|k| !rg.contains_key(*k)).collect();
    let only_rg: Vec<_> = rg.keys().filter(|k| !ours.contains_key(*k)).collect();
    let differ: Vec<_> = ours
        .iter()
        .filter(|(k, v)| rg.get(*k).is_some_and(|r| r != *v))
        .collect();
    for (label, list) in [("only ours", &only_ours), ("only rg", &only_rg)] {
        if !list.is_empty() {
            println!(
                "  {label}: {} files, e.g. {:?}",
                list.len(),
                &list[..list.len().min(5)]
            );
        }
    }
    if !differ.is_empty() {
        println!(
            "  count differs in {} files, e.g. {:?}",
            differ.len(),
            differ
                .iter()
                .take(5)
                .map(|(k, v)| format!("{k}: ours {v} rg {}", rg.get(*k).copied().unwrap_or(0)))
                .collect::<Vec<_>>()
        );
    }
}

fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let result = if a.stop_latency {
        stop_latency(&a)
    } else {
        bench(&a)
    };
    if let Err(e) = result {
        eprintln!("grep-bench: {e}");
        std::process::exit(1);
    }
}

fn bench(a: &Args) -> Result<(), String> {
    let dir: &Path = &a.dir;
    println!(
        "dir {} | pattern {:?} | mode {} | {} | {} runs (after 1 warm-up each)",
        dir.display(),
        a.pattern,
        match a.mode {
            OutputMode::FilesOnly => "files",
            OutputMode::Count | OutputMode::Content => "count",
        },
        if a.case_sensitive {
            "case-sensitive"
        } else {
            "case-insensitive"
        },
        a.runs
    );
    // Warm-up (page cache) for both.
    run_ours(a)?;
    run_rg(a)?;
    let (mut ours_t, mut rg_t) = (Vec::new(), Vec::new());
    let (mut ours_found, mut rg_found) = (Found::new(), Found::new());
    for _ in 0..a.runs {
        let (t, f) = run_ours(a)?;
        ours_t.push(t);
        ours_found = f;
        let (t, f) = run_rg(a)?;
        rg_t.push(t);
        rg_found = f;
    }
    let (om, rm) = (median(ours_t.clone()), median(rg_t.clone()));
    let (of, ol) = summary(&ours_found);
    let (rf, rl) = summary(&rg_found);
    println!(
        "skald grep: median {:>8.1} ms  (runs {:?})",
        om.as_secs_f64() * 1e3,
        ms(&ours_t)
    );
    println!(
        "ripgrep:    median {:>8.1} ms  (runs {:?})",
        rm.as_secs_f64() * 1e3,
        ms(&rg_t)
    );
    println!("ratio skald/rg: {:.3}", om.as_secs_f64() / rm.as_secs_f64());
    println!("matches: skald {of} files / {ol} lines; rg {rf} files / {rl} lines");
    if ours_found == rg_found {
        println!("results identical");
    } else {
        println!("results differ:");
        report_diff(&ours_found, &rg_found);
    }
    Ok(())
}

fn ms(v: &[Duration]) -> Vec<String> {
    v.iter()
        .map(|d| format!("{:.0}", d.as_secs_f64() * 1e3))
        .collect()
}

/// Nine counted branches alive at once on lines of `a`s: the slowest per
/// byte found within the pattern caps (see `fs::grep::pattern`).
fn slow_pattern() -> String {
    (0..9u32)
        .map(|i| {
            let c = char::from_u32(u32::from(b'c') + i % 20).unwrap_or('c');
            format!("a{{{}}}{c}", 1000 - i)
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// Waits until this process has `path` open (the search is inside it).
fn wait_until_open(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let open = std::fs::read_dir("/proc/self/fd").is_ok_and(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t == path))
        });
        if open {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

const STOP_FILE_BYTES: usize = 32 << 20;

fn stop_latency(a: &Args) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = dir
        .path()
        .canonicalize()
        .map_err(|e| e.to_string())?
        .join("big.txt");
    let line = format!("{}b\n", "a".repeat(999));
    std::fs::write(&file, line.repeat(STOP_FILE_BYTES / line.len())).map_err(|e| e.to_string())?;
    let opts = GrepOptions::new(slow_pattern());
    let start = Instant::now();
    grep(&file, &opts).map_err(|e| e.to_string())?;
    let full = start.elapsed();
    println!(
        "{} MB, slowest allowed pattern: full search {:.0} ms ({:.0} ns/byte)",
        STOP_FILE_BYTES >> 20,
        full.as_secs_f64() * 1e3,
        full.as_secs_f64() * 1e9 / STOP_FILE_BYTES as f64
    );
    let mut latencies = Vec::new();
    for i in 0..a.runs {
        let flag = Arc::new(AtomicBool::new(false));
        let mut opts = opts.clone();
        opts.cancel = Some(flag.clone());
        let path = file.clone();
        let search = std::thread::spawn(move || grep(&path, &opts).map(|o| o.cancelled));
        wait_until_open(&file);
        // From the first buffer (i = 0) to near the end of the file.
        std::thread::sleep(full.mul_f64(0.9 * i as f64 / a.runs as f64));
        let raised = Instant::now();
        flag.store(true, Ordering::Relaxed);
        let cancelled = search
            .join()
            .map_err(|_| "search thread panicked".to_string())?
            .map_err(|e| e.to_string())?;
        latencies.push(raised.elapsed());
        if !cancelled {
            return Err("the search finished before the flag was raised".to_string());
        }
    }
    let worst = latencies.iter().max().copied().unwrap_or_default();
    println!(
        "flag raised -> search returned: median {:.1} ms, worst {:.1} ms (runs {:?})",
        median(latencies.clone()).as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3,
        ms(&latencies)
    );
    Ok(())
}
