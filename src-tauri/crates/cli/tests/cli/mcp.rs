//! `skald mcp …` and `skald tool run mcp__NAME__TOOL` against the test
//! server of skald-mcp (tests/servers/misbehave.mjs, run by `node`).

use crate::{skald, stderr, stdout};

fn server_script() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp/tests/servers/misbehave.mjs")
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn add_list_tools_run_and_remove_a_stdio_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let js = server_script();
    let o = skald(
        &[
            "mcp",
            "add",
            "t",
            "--timeout",
            "5",
            "--description",
            "test tools",
            "--",
            "node",
            &js,
            "ok",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("added t: stdio node"), "{}", stdout(&o));

    let o = skald(&["mcp", "list", "--status"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("t\tstdio\tready, 6 tools"),
        "{}",
        stdout(&o)
    );

    let o = skald(&["mcp", "tools", "t"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("mcp__t__echo\tEchoes text back"),
        "{}",
        stdout(&o)
    );

    let o = skald(
        &[
            "tool",
            "run",
            "mcp__t__echo",
            r#"{"text": "hi"}"#,
            "--approve",
            "yes",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "echo: hi");

    let o = skald(
        &["tool", "run", "mcp__t__fail", "{}", "--approve", "yes"],
        d,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the frobnicator is out of order"),
        "{}",
        stderr(&o)
    );

    let o = skald(
        &["tool", "run", "mcp__t__nope", "{}", "--approve", "yes"],
        d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = skald(
        &["tool", "run", "mcp__ghost__echo", "{}", "--approve", "yes"],
        d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no MCP server named `ghost`"),
        "{}",
        stderr(&o)
    );
    let o = skald(&["tool", "run", "mcp__t__echo", "{}", "--approve", "no"], d);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));

    let o = skald(&["mcp", "add", "bad__name", "--", "node"], d);
    assert_eq!(o.status.code(), Some(2));
    let o = skald(&["mcp", "remove", "t"], d);
    assert!(o.status.success());
    let o = skald(&["mcp", "list"], d);
    assert!(stdout(&o).contains("no MCP servers"), "{}", stdout(&o));
}

#[test]
fn a_server_that_cannot_start_says_why_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let js = server_script();
    assert!(
        skald(&["mcp", "add", "dead", "--", "node", &js, "crash-start"], d)
            .status
            .success()
    );
    let o = skald(&["mcp", "tools", "dead"], d);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("dead"), "{}", stderr(&o));
    assert!(d.join("mcp-logs/dead.log").is_file());
}

#[test]
fn import_reads_mcp_servers_json_and_reports_unknown_fields() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = d.join("claude_desktop_config.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "autoApprove": []},
            "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}
        }}"#,
    )
    .unwrap();
    let o = skald(&["mcp", "import", file.to_str().unwrap()], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("fs: field `autoApprove` ignored"),
        "{}",
        stderr(&o)
    );
    let o = skald(&["mcp", "list"], d);
    let out = stdout(&o);
    assert!(
        out.contains("fs\tstdio\tenabled\tnpx -y @modelcontextprotocol/server-filesystem /tmp"),
        "{out}"
    );
    assert!(
        out.contains("web\thttp\tenabled\thttp://127.0.0.1:9/mcp"),
        "{out}"
    );
    // Header values may hold secrets: never listed.
    assert!(!out.contains("WEB_TOKEN"), "{out}");
}
