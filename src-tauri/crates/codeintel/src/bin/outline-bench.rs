//! Throughput benchmark for the outline engines, to compare with ctags.
//!
//! ```text
//! cargo run --release -p skald-codeintel --bin outline-bench -- \
//!     [--ext rs,py,...] [--max-per-ext N] [--max-bytes N] [--threads N] \
//!     [--runs N] [--list-out FILE] DIR...
//! ```
//!
//! Walks the directories (skipping hidden ones and symlinks), keeps files
//! with a supported extension (optionally only `--ext`, at most
//! `--max-per-ext` of each, spread evenly over the sorted list, none larger
//! than `--max-bytes`, default 1 MiB: generated parser tables and
//! amalgamations are not what an agent outlines), writes that
//! list to `--list-out` (for `ctags -L FILE`), then outlines every file
//! `--runs` times with `--threads` threads (default: all cores; each run
//! reads the files too, as ctags does) and prints files/s and total time.
//! `--check-rust` instead compares, on every `.rs` file, the body-skipping
//! Rust parser with the whole-file `syn` one, which must agree, and
//! `--check-skim` compares, on every other file, the outline parsed around
//! function bodies with the one from a full parse. `--list-in FILE` takes the
//! file list from FILE instead of walking directories.
//! Not run in CI.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use skald_codeintel::{language_for, outline_source};

struct Options {
    dirs: Vec<PathBuf>,
    exts: Option<Vec<String>>,
    max_per_ext: usize,
    max_bytes: u64,
    threads: usize,
    runs: usize,
    list_out: Option<PathBuf>,
    check_rust: bool,
    check_skim: bool,
    list_in: Option<PathBuf>,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        dirs: Vec::new(),
        exts: None,
        max_per_ext: usize::MAX,
        max_bytes: 1 << 20,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        runs: 3,
        list_out: None,
        check_rust: false,
        check_skim: false,
        list_in: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--ext" => {
                let list = value("--ext")?;
                options.exts = Some(list.split(',').map(|e| e.trim().to_owned()).collect());
            }
            "--max-per-ext" => {
                options.max_per_ext = value("--max-per-ext")?
                    .parse()
                    .map_err(|e| format!("{e}"))?
            }
            "--max-bytes" => {
                options.max_bytes = value("--max-bytes")?.parse().map_err(|e| format!("{e}"))?
            }
            "--threads" => {
                options.threads = value("--threads")?.parse().map_err(|e| format!("{e}"))?
            }
            "--runs" => options.runs = value("--runs")?.parse().map_err(|e| format!("{e}"))?,
            "--list-out" => options.list_out = Some(PathBuf::from(value("--list-out")?)),
            "--check-rust" => options.check_rust = true,
            "--check-skim" => options.check_skim = true,
            "--list-in" => options.list_in = Some(PathBuf::from(value("--list-in")?)),
            flag if flag.starts_with("--") => return Err(format!("unknown flag {flag}")),
            dir => options.dirs.push(PathBuf::from(dir)),
        }
    }
    if options.dirs.is_empty() && options.list_in.is_none() {
        return Err(
            "usage: outline-bench [--ext rs,py] [--max-per-ext N] [--max-bytes N] \
                    [--threads N] [--runs N] [--list-out FILE] DIR..."
                .into(),
        );
    }
    options.threads = options.threads.max(1);
    options.runs = options.runs.max(1);
    Ok(options)
}

/// Supported files under `dir` no larger than `max_bytes`, depth first,
/// without following symlinks.
fn collect(dir: &Path, max_bytes: u64, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if file_type.is_dir() && !hidden {
            collect(&path, max_bytes, out);
        } else if file_type.is_file()
            && language_for(&path).is_some()
            && entry.metadata().is_ok_and(|m| m.len() <= max_bytes)
        {
            out.push(path);
        }
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Applies `--ext` and `--max-per-ext`, keeping an even spread of each
/// extension's files.
fn select(mut files: Vec<PathBuf>, options: &Options) -> Vec<PathBuf> {
    files.sort();
    let mut by_ext: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for file in files {
        let ext = extension(&file);
        if options.exts.as_ref().is_none_or(|exts| exts.contains(&ext)) {
            by_ext.entry(ext).or_default().push(file);
        }
    }
    let mut selected = Vec::new();
    for (_, list) in by_ext {
        let keep = list.len().min(options.max_per_ext);
        if keep == 0 {
            continue;
        }
        let step = list.len() as f64 / keep as f64;
        selected.extend((0..keep).map(|i| list[(i as f64 * step) as usize].clone()));
    }
    selected
}

struct RunStats {
    elapsed: Duration,
    /// Time spent per extension, summed over threads.
    per_ext: BTreeMap<String, Duration>,
    /// The slowest files.
    slowest: Vec<(Duration, PathBuf)>,
    items: usize,
    bytes: usize,
    errors: usize,
}

/// Reads and outlines every file once, `threads` at a time.
fn run(files: &[PathBuf], threads: usize) -> RunStats {
    let next = AtomicUsize::new(0);
    let items = AtomicUsize::new(0);
    let bytes = AtomicUsize::new(0);
    let errors = AtomicUsize::new(0);
    let per_ext = std::sync::Mutex::new(BTreeMap::<String, Duration>::new());
    let slowest = std::sync::Mutex::new(Vec::<(Duration, PathBuf)>::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut mine: BTreeMap<String, Duration> = BTreeMap::new();
                let mut my_slowest: Vec<(Duration, PathBuf)> = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    let file_start = Instant::now();
                    let Ok(raw) = std::fs::read(path) else {
                        errors.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    bytes.fetch_add(raw.len(), Ordering::Relaxed);
                    let source = String::from_utf8_lossy(&raw);
                    match outline_source(path, &source) {
                        Ok(outline) => {
                            items.fetch_add(outline.len(), Ordering::Relaxed);
                        }
                        Err(_) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    let took = file_start.elapsed();
                    *mine.entry(extension(path)).or_default() += took;
                    my_slowest.push((took, path.clone()));
                    if my_slowest.len() > 64 {
                        my_slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
                        my_slowest.truncate(8);
                    }
                }
                if let Ok(mut all) = per_ext.lock() {
                    for (ext, time) in mine {
                        *all.entry(ext).or_default() += time;
                    }
                }
                if let Ok(mut all) = slowest.lock() {
                    all.extend(my_slowest);
                }
            });
        }
    });
    RunStats {
        elapsed: start.elapsed(),
        per_ext: per_ext.into_inner().unwrap_or_default(),
        slowest: {
            let mut all = slowest.into_inner().unwrap_or_default();
            all.sort_by_key(|s| std::cmp::Reverse(s.0));
            all.truncate(5);
            all
        },
        items: items.into_inner(),
        bytes: bytes.into_inner(),
        errors: errors.into_inner(),
    }
}

fn main() -> Result<(), String> {
    let options = parse_args()?;
    let mut files = Vec::new();
    for dir in &options.dirs {
        collect(dir, options.max_bytes, &mut files);
    }
    if let Some(list) = &options.list_in {
        let text = std::fs::read_to_string(list).map_err(|e| format!("{}: {e}", list.display()))?;
        files.extend(text.lines().filter(|l| !l.is_empty()).map(PathBuf::from));
    }
    let files = select(files, &options);
    if let Some(list) = &options.list_out {
        let text: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
        std::fs::write(list, text).map_err(|e| format!("{}: {e}", list.display()))?;
    }
    if options.check_rust {
        check_rust(&files);
        return Ok(());
    }
    if options.check_skim {
        check_skim(&files);
        return Ok(());
    }
    let mut per_ext: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        *per_ext.entry(extension(file)).or_default() += 1;
    }
    let mix: Vec<String> = per_ext.iter().map(|(e, n)| format!("{e}:{n}")).collect();
    println!("files: {} ({})", files.len(), mix.join(" "));
    println!("threads: {}, runs: {}", options.threads, options.runs);

    let mut times = Vec::with_capacity(options.runs);
    for i in 0..options.runs {
        let stats = run(&files, options.threads);
        let secs = stats.elapsed.as_secs_f64();
        println!(
            "run {}: {:.3} s, {:.0} files/s, {:.1} MB/s, {} items, {} errors",
            i + 1,
            secs,
            files.len() as f64 / secs,
            stats.bytes as f64 / secs / 1e6,
            stats.items,
            stats.errors,
        );
        if i == 0 {
            let split: Vec<String> = stats
                .per_ext
                .iter()
                .map(|(e, t)| format!("{e}:{:.2}s", t.as_secs_f64()))
                .collect();
            println!("  time per extension: {}", split.join(" "));
            for (took, path) in &stats.slowest {
                println!("  slow: {:.3} s {}", took.as_secs_f64(), path.display());
            }
        }
        times.push(secs);
    }
    times.sort_by(f64::total_cmp);
    let best = times[0];
    let median = times[times.len() / 2];
    println!(
        "best {best:.3} s ({:.0} files/s), median {median:.3} s ({:.0} files/s)",
        files.len() as f64 / best,
        files.len() as f64 / median,
    );
    Ok(())
}

/// Compares the two Rust parsers on every `.rs` file.
fn check_rust(files: &[PathBuf]) {
    use skald_codeintel::internals::{rust_full, rust_skim};
    let (mut checked, mut deferred, mut rejected, mut differ) = (0, 0, 0, 0);
    for path in files.iter().filter(|p| extension(p) == "rs") {
        let Ok(source) = std::fs::read_to_string(path) else {
            continue;
        };
        checked += 1;
        let full = rust_full(&source);
        match (rust_skim(&source), full) {
            (None, Some(_)) => {
                deferred += 1;
                println!("deferred to full syn: {}", path.display());
            }
            (_, None) => rejected += 1,
            (Some(skim), Some(full)) if skim != full => {
                differ += 1;
                println!("DIFFERENT: {}", path.display());
                let render = |items| {
                    skald_codeintel::Outline {
                        language: "rust",
                        items,
                    }
                    .render()
                };
                let (skim, full) = (render(skim), render(full));
                for (a, b) in skim
                    .lines()
                    .zip(full.lines())
                    .filter(|(a, b)| a != b)
                    .take(3)
                {
                    println!("  skim: {a}\n  full: {b}");
                }
            }
            (Some(_), Some(_)) => {}
        }
    }
    println!(
        "{checked} Rust files: {differ} different, {deferred} deferred to full syn, \
         {rejected} rejected by syn"
    );
}

/// Compares skimmed and full-parse outlines on every file.
fn check_skim(files: &[PathBuf]) {
    use skald_codeintel::internals::{full_parse_has_errors, without_skim};
    let (mut checked, mut differ, mut differ_clean) = (0, 0, 0);
    for path in files {
        let Ok(raw) = std::fs::read(path) else {
            continue;
        };
        let source = String::from_utf8_lossy(&raw);
        let skimmed = outline_source(path, &source).map(|o| o.render());
        let full = without_skim(|| outline_source(path, &source)).map(|o| o.render());
        checked += 1;
        if let (Ok(skimmed), Ok(full)) = (skimmed, full)
            && skimmed != full
        {
            differ += 1;
            let clean = language_for(path).is_some_and(|l| !full_parse_has_errors(l, &source));
            if clean {
                differ_clean += 1;
            }
            let note = if clean {
                ""
            } else {
                " (the full parse has syntax errors)"
            };
            println!("DIFFERENT: {}{note}", path.display());
            let pairs = skimmed.lines().zip(full.lines()).filter(|(a, b)| a != b);
            for (a, b) in pairs.take(3) {
                println!("  skim: {a}\n  full: {b}");
            }
        }
    }
    println!(
        "{checked} files: {differ} different, {differ_clean} of them where the full parse \
         has no syntax error"
    );
}
