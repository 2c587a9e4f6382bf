//! Call overhead through a local stdio MCP server: `echo` on the test
//! server (tests/servers/misbehave.mjs, plain Node, no SDK) N times, one at
//! a time, through the same path a session's call takes (McpManager::call:
//! JSON-RPC over the child's stdio, result to ToolOutput). Prints the
//! median and p90 per call.
//!
//!   cargo run --release -p skald-mcp --bin mcp-call-bench -- [CALLS]

use std::time::{Duration, Instant};

use serde_json::json;
use skald_mcp::{McpManager, ServerConfig, Transport};

fn main() -> std::process::ExitCode {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(calls)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-call-bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(calls: usize) -> Result<(), String> {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/misbehave.mjs");
    let m = McpManager::new(None, None);
    m.put(ServerConfig::new(
        "bench",
        Transport::Stdio {
            command: "node".into(),
            args: vec![script.display().to_string(), "ok".into()],
            env: Default::default(),
            cwd: None,
        },
    ));
    let t0 = Instant::now();
    m.wait_ready("bench").await.map_err(|e| e.to_string())?;
    let connect = t0.elapsed();
    // Warm-up: JIT on the Node side, allocations on ours.
    for _ in 0..50 {
        m.call("bench", "echo", json!({"text": "warm"}))
            .await
            .map_err(|e| e.to_string())?;
    }
    let mut times: Vec<Duration> = Vec::with_capacity(calls);
    for i in 0..calls {
        let t = Instant::now();
        let out = m
            .call("bench", "echo", json!({"text": format!("call {i}")}))
            .await
            .map_err(|e| e.to_string())?;
        times.push(t.elapsed());
        if !out.text.ends_with(&format!("call {i}")) {
            return Err(format!("unexpected answer {:?}", out.text));
        }
    }
    times.sort();
    let pick = |q: f64| times[((times.len() as f64 - 1.0) * q) as usize];
    println!(
        "connect (spawn + handshake + tools/list): {:.1} ms",
        connect.as_secs_f64() * 1e3
    );
    println!(
        "echo over stdio, {calls} calls: median {:.3} ms, p90 {:.3} ms, max {:.3} ms",
        pick(0.5).as_secs_f64() * 1e3,
        pick(0.9).as_secs_f64() * 1e3,
        pick(1.0).as_secs_f64() * 1e3
    );
    m.shutdown();
    Ok(())
}
