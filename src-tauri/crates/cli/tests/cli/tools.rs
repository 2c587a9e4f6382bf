//! Tools, catalogue and status: exit codes, catalogue output, data dir.

use serde_json::Value;

use crate::{skald, stderr, stdout};

#[test]
fn tools_json_lists_the_catalogue() {
    let dir = tempfile::tempdir().unwrap();
    let out = skald(&["tools", "--json"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let all: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let names: Vec<&str> = all["builtIn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for expected in ["write_todos", "show_file_to_user", "execute_task"] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert_eq!(all["mcp"], Value::Array(vec![]));
}

#[test]
fn tools_markdown_and_plain() {
    let dir = tempfile::tempdir().unwrap();
    let md = skald(&["tools", "--markdown"], dir.path());
    assert!(md.status.success());
    assert!(stdout(&md).starts_with("| Tool | Kind | Category |"));
    let plain = skald(&["tools"], dir.path());
    assert!(plain.status.success());
    assert!(stdout(&plain).contains("write_todos"));
}

#[test]
fn unknown_tool_is_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = skald(&["tool", "run", "no_such_tool", "{}"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("unknown tool `no_such_tool`"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn malformed_json_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = skald(&["tool", "run", "read_file", "{not json"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("malformed JSON arguments"),
        "{}",
        stderr(&out)
    );
    let out = skald(&["tool", "run", "read_file", "[1,2]"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("must be a JSON object"));
}

#[test]
fn schema_violation_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    // No path: the rules ask; `--approve yes` lets the schema speak.
    let out = skald(
        &[
            "tool",
            "run",
            "read_file",
            r#"{"path": 42}"#,
            "--approve",
            "yes",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("invalid arguments for read_file"),
        "{}",
        stderr(&out)
    );
    let out = skald(
        &["tool", "run", "read_file", "{}", "--approve", "yes"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("missing field `path`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn success_is_exit_0_and_relative_paths_use_workdir() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "first\nsecond\n").unwrap();
    let workdir = dir.path().to_str().unwrap();
    let out = skald(
        &[
            "tool",
            "run",
            "read_file",
            r#"{"path": "hello.txt"}"#,
            "--workdir",
            workdir,
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("second"), "{}", stdout(&out));
}

#[test]
fn tool_failure_is_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let workdir = dir.path().to_str().unwrap();
    let out = skald(
        &[
            "tool",
            "run",
            "read_file",
            r#"{"path": "missing.txt"}"#,
            "--workdir",
            workdir,
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stderr(&out).trim_end().lines().count(), 1);
}

#[test]
fn status_creates_the_database_in_the_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("nested/data");
    let out = skald(
        &["status", "--data-dir", data.to_str().unwrap()],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(data.join("skald.db").exists());
    assert!(stdout(&out).contains("schema version:"));
    // SKALD_DATA_DIR is honoured when --data-dir is absent.
    let out = skald(&["status"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("skald.db").exists());
}

#[test]
fn invalid_arguments_are_exit_2_before_anyone_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    // No `--approve` and no terminal: were the gate consulted first, the
    // call would be rejected (exit 4) before its arguments were read.
    let out = crate::command(dir.path())
        .args(["tool", "run", "read_file", "{}"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("missing field `path`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    let out = crate::command(dir.path())
        .args([
            "tool",
            "run",
            "execute_cmd",
            r#"{"command": "echo hi", "timeout": 0}"#,
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("timeout must be between 1 and 600"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn sigterm_stops_tool_run_and_its_whole_process_group() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("w");
    std::fs::create_dir_all(&work).unwrap();
    let child = crate::command(&root.join("data"))
        .args([
            "tool",
            "run",
            "execute_cmd",
            r#"{"command": "echo $$ > pgid.txt; sleep 100 & sleep 100; echo done"}"#,
            "--workdir",
            work.to_str().unwrap(),
            "--approve",
            "yes",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // The shell and both sleeps are in the group.
    let pgid = loop {
        if let Some(g) = std::fs::read_to_string(work.join("pgid.txt"))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            && skald_tools::exec::live_group_members(g).len() >= 3
        {
            break g;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let t0 = Instant::now();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("cancelled"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("done"), "{}", stdout(&out));
    let left = skald_tools::exec::live_group_members(pgid);
    if !left.is_empty() {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &format!("-{pgid}")])
            .status();
    }
    assert!(left.is_empty(), "left running: {left:?}");
}

#[test]
fn every_shell_command_is_logged_before_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::command(dir.path())
        .args([
            "tool",
            "run",
            "--approve",
            "yes",
            "execute_cmd",
            r#"{"command": "echo audited"}"#,
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        crate::stdout(&out).contains("audited"),
        "{}",
        crate::stdout(&out)
    );
    let log = stderr(&out);
    let line = log
        .lines()
        .find(|l| l.contains("execute_cmd: running shell command"))
        .unwrap_or_else(|| panic!("no audit line in: {log}"));
    assert!(line.contains("INFO"), "{line}");
    assert!(line.contains("echo audited"), "{line}");
    assert!(line.contains("timeout_secs=120"), "{line}");
}

/// The issue's repros, end to end through the binary and its gate: neither
/// reads nor writes reach `secrets/` through a missing directory and `..`.
#[test]
fn the_secrets_repros_are_refused_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w");
    std::fs::create_dir_all(w.join("secrets")).unwrap();
    std::fs::create_dir_all(w.join("memory")).unwrap();
    std::fs::write(w.join("secrets/k.txt"), "TOPSECRET\n").unwrap();
    std::os::unix::fs::symlink("secrets", w.join("link")).unwrap();
    std::os::unix::fs::symlink("../secrets", w.join("memory/notes")).unwrap();
    let workdir = w.to_str().unwrap();
    let data = dir.path().join("data");
    for (tool, args) in [
        ("read_file", r#"{"path":"nope/../link/k.txt"}"#),
        (
            "write_file",
            r#"{"path":"memory/nope/../notes/p.txt","content":"x"}"#,
        ),
    ] {
        let out = skald(
            &[
                "tool",
                "run",
                tool,
                args,
                "--workdir",
                workdir,
                "--approve",
                "no",
            ],
            &data,
        );
        assert_ne!(out.status.code(), Some(0), "{tool}: {}", stdout(&out));
        assert!(!stdout(&out).contains("TOPSECRET"), "{}", stdout(&out));
        assert!(!stderr(&out).contains("TOPSECRET"), "{}", stderr(&out));
    }
    assert!(!w.join("secrets/p.txt").exists());
}

/// Twenty `skald` processes editing one file at once: the directory lock
/// holds across processes, so every edit that says so is in the file.
#[test]
fn parallel_edits_from_twenty_processes_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..20).map(|i| format!("marker-{i}\n")).collect();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, text).unwrap();
    let workdir = dir.path().to_str().unwrap();
    let children: Vec<_> = (0..20)
        .map(|i| {
            let args = format!(
                r#"{{"path":"f.txt","old_string":"marker-{i}\n","new_string":"done-{i}\n"}}"#
            );
            crate::command(&dir.path().join("data"))
                .args(["tool", "run", "edit_file", &args, "--workdir", workdir])
                .args(["--approve", "yes"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "edit {i}: {}", stderr(&out));
    }
    let after = std::fs::read_to_string(&file).unwrap();
    for i in 0..20 {
        assert!(
            after.contains(&format!("done-{i}\n")),
            "edit {i} lost:\n{after}"
        );
    }
}

/// Twenty first starts at once on one fresh data dir: every one succeeds
/// (no "table already exists"), and the seeded rules exist exactly once.
#[test]
fn twenty_first_starts_at_once_migrate_and_seed_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let workdir = dir.path().to_str().unwrap();
    let children: Vec<_> = (0..20)
        .map(|_| {
            crate::command(&data)
                .args(["tool", "run", "list_files", "{}", "--workdir", workdir])
                .args(["--approve", "no"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "start {i}: {}", stderr(&out));
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let rules = rt.block_on(async {
        let store = skald_store::Store::open(&data).await.unwrap();
        store.approval().list_all_rules().await.unwrap()
    });
    assert_eq!(
        rules.len(),
        skald_approval::SEED_RULES.len(),
        "{:#?}",
        rules.iter().map(|r| &r.tool_pattern).collect::<Vec<_>>()
    );
}
