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
        stdout(&o).contains("t\tstdio\tready, 7 tools"),
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

fn names(req: &serde_json::Value) -> Vec<String> {
    req["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_chat_activates_a_server_and_calls_its_tool() {
    use skald_llm_mock::{MockServer, sse_text, sse_tool_call};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let js = server_script();
    assert!(
        skald(
            &[
                "mcp",
                "add",
                "t",
                "--description",
                "test tools",
                "--",
                "node",
                &js,
                "ok"
            ],
            &data
        )
        .status
        .success()
    );
    let mock = MockServer::start([
        sse_tool_call("call_a", "activate_tools", r#"{"groups": ["t"]}"#),
        sse_tool_call("call_e", "mcp__t__echo", r#"{"text": "via chat"}"#),
        sse_text("Done."),
    ])
    .unwrap();
    let out = crate::command(&data)
        .args([
            "chat",
            "--model",
            "test-model",
            "--approve",
            "yes",
            "--workdir",
        ])
        .arg(&work)
        .arg("use the test tools")
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Done.\n");
    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 3);
    assert!(names(&reqs[0]).contains(&"activate_tools".to_string()));
    assert!(
        !names(&reqs[0]).iter().any(|n| n.starts_with("mcp__")),
        "{:?}",
        names(&reqs[0])
    );
    assert!(
        names(&reqs[1]).contains(&"mcp__t__echo".to_string()),
        "{:?}",
        names(&reqs[1])
    );
    let last = reqs[2]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["content"], "echo: via chat");
}

#[test]
fn login_is_for_configured_http_servers_and_says_why_it_failed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = skald(&["mcp", "login", "ghost"], d);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("ghost"), "{}", stderr(&o));
    let js = server_script();
    assert!(
        skald(&["mcp", "add", "local", "--", "node", &js, "ok"], d)
            .status
            .success()
    );
    let o = skald(&["mcp", "login", "local"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("HTTP"), "{}", stderr(&o));
    // Nothing listens there: no authorization server to register with.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert!(skald(&["mcp", "add", "remote", &url], d).status.success());
    let o = skald(&["mcp", "login", "remote"], d);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("OAuth"), "{}", stderr(&o));
    let o = skald(&["mcp", "logout", "remote"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no sign-in"), "{}", stderr(&o));
}

#[test]
fn always_on_offers_a_servers_tools_from_the_first_request_and_sampling_is_a_switch() {
    use skald_llm_mock::{MockServer, sse_text, sse_tool_call};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (data, work) = (root.join("data"), root.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let js = server_script();
    assert!(
        skald(&["mcp", "add", "t", "--", "node", &js, "ok"], &data)
            .status
            .success()
    );
    let o = skald(&["mcp", "always-on", "nope", "on"], &data);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no MCP server named `nope`"),
        "{}",
        stderr(&o)
    );
    let o = skald(&["mcp", "always-on", "t", "on"], &data);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("t is always on in every chat"),
        "{}",
        stdout(&o)
    );
    assert_eq!(stdout(&skald(&["mcp", "always-on"], &data)), "t\n");

    // No activate_tools: the tool is in the first request and runs.
    let mock = MockServer::start([
        sse_tool_call("call_e", "mcp__t__echo", r#"{"text": "always"}"#),
        sse_text("Done."),
    ])
    .unwrap();
    let chat = |mock: &MockServer| {
        crate::command(&data)
            .args([
                "chat",
                "--model",
                "test-model",
                "--approve",
                "yes",
                "--workdir",
            ])
            .arg(&work)
            .arg("echo something")
            .env("OPENAI_BASE_URL", mock.base_url())
            .env("OPENAI_API_KEY", "test-key")
            .output()
            .unwrap()
    };
    let out = chat(&mock);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let reqs = mock.bodies();
    assert!(
        names(&reqs[0]).contains(&"mcp__t__echo".to_string()),
        "{:?}",
        names(&reqs[0])
    );
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "echo: always");

    // Off again: the first request has no tool of the server.
    let o = skald(&["mcp", "always-on", "t", "off"], &data);
    assert!(o.status.success(), "{}", stderr(&o));
    let mock = MockServer::start([sse_text("Fine.")]).unwrap();
    assert!(chat(&mock).status.success());
    assert!(
        !names(&mock.bodies()[0])
            .iter()
            .any(|n| n.starts_with("mcp__t__")),
        "{:?}",
        names(&mock.bodies()[0])
    );

    let o = skald(&["mcp", "sampling"], &data);
    assert!(stdout(&o).starts_with("sampling: off"), "{}", stdout(&o));
    let o = skald(&["mcp", "sampling", "on"], &data);
    assert!(stdout(&o).starts_with("sampling: on"), "{}", stdout(&o));
    let o = skald(&["mcp", "sampling"], &data);
    assert!(stdout(&o).starts_with("sampling: on"), "{}", stdout(&o));
    let o = skald(&["mcp", "sampling", "off"], &data);
    assert!(stdout(&o).starts_with("sampling: off"), "{}", stdout(&o));
}

#[tokio::test]
async fn add_takes_a_pre_registered_oauth_client_whose_secret_comes_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let url = "https://mcp.example.invalid/mcp";
    // A secret is never an argument: only the name of a variable holding it.
    let o = crate::command(d)
        .args(["mcp", "add", "r", "--client-id", "skald-desktop"])
        .args(["--client-secret-env", "SKALD_TEST_UNSET_SECRET", url])
        .env_remove("SKALD_TEST_UNSET_SECRET")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("SKALD_TEST_UNSET_SECRET"),
        "{}",
        stderr(&o)
    );
    let o = skald(
        &["mcp", "add", "s", "--client-id", "x", "--", "node", "x.js"],
        d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--client-id is for HTTP"),
        "{}",
        stderr(&o)
    );

    let o = crate::command(d)
        .args(["mcp", "add", "r", "--client-id", "skald-desktop"])
        .args(["--client-secret-env", "SKALD_TEST_SECRET", url])
        .env("SKALD_TEST_SECRET", "s3cret")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("s3cret"), "{}", stdout(&o));
    let store = skald_store::Store::open(d).await.unwrap();
    let row = store.mcp_servers().get("r").await.unwrap().unwrap();
    assert_eq!(row.spec["client_id"], "skald-desktop");
    assert!(!row.spec.to_string().contains("s3cret"), "{}", row.spec);
    assert_eq!(
        store
            .secrets()
            .get(&skald_mcp::oauth::client_secret_key("r"))
            .await
            .unwrap()
            .as_deref(),
        Some("s3cret")
    );
    store.close().await;
}
