//! Shared helpers: where the test servers are, and waiting for a status.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use skald_mcp::{McpManager, ServerConfig, ServerStatus, Transport};

/// The npm servers, installed by .ci/setup.sh into $SKALD_MCP_SERVERS
/// (default ~/.cache/skald-mcp-servers). Missing is a failure, never a skip.
pub fn npm_server(package: &str) -> PathBuf {
    let root = std::env::var_os("SKALD_MCP_SERVERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| dirs_home().join(".cache/skald-mcp-servers"));
    let js = root
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        js.is_file(),
        "{} is missing: run .ci/setup.sh (it installs the MCP test servers)",
        js.display()
    );
    js
}

fn dirs_home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
}

pub fn script(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers")
        .join(name)
        .display()
        .to_string()
}

pub fn node(args: Vec<String>) -> Transport {
    Transport::Stdio {
        command: "node".into(),
        args,
        env: Default::default(),
        cwd: None,
    }
}

/// The misbehaving server in `mode`, logging to `log`, with the call
/// `timeout`. Its start gets at least 30 s: node's start-up alone passed 2 s
/// on a loaded machine, which is not what the tests prove (the handshake
/// tests set the start timeout back to theirs).
pub fn misbehave(name: &str, mode: &str, log: &std::path::Path, timeout: Duration) -> ServerConfig {
    let mut t = node(vec![script("misbehave.mjs"), mode.into()]);
    if let Transport::Stdio { env, .. } = &mut t {
        env.insert("MISBEHAVE_LOG".into(), log.display().to_string());
    }
    ServerConfig::new(name, t)
        .with_timeout(timeout)
        .with_connect_timeout(timeout.max(Duration::from_secs(30)))
}

/// Waits until `pred` holds for the server's status.
pub async fn wait_status(
    m: &McpManager,
    name: &str,
    within: Duration,
    pred: impl Fn(&ServerStatus) -> bool,
) -> ServerStatus {
    let start = Instant::now();
    loop {
        let s = m.status(name).unwrap();
        if pred(&s) {
            return s;
        }
        assert!(
            start.elapsed() < within,
            "{name}: still {s:?} after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until `path` contains `needle`.
pub async fn wait_file_contains(path: &std::path::Path, needle: &str, within: Duration) -> String {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        assert!(
            start.elapsed() < within,
            "{} never contained {needle:?}: {text}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A port nothing listens on (yet).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
