//! Start-up with slow MCP servers: 5 stdio servers configured that each
//! take SLOW_INIT_MS (default 3,000 ms) to answer `initialize`
//! (skald-mcp's tests/servers/misbehave.mjs, mode `slow-init`). Measured,
//! per run, on a fresh data dir:
//!
//! - **start-up path**: what the app's `AppState::load` does before the
//!   window can paint (store open, `McpManager::load`, the session handler
//!   with the MCP tool source, `activate_tools` and the config group) plus
//!   `list_sessions` (the first page's data) — it must not wait for servers;
//! - **a turn that uses no server**: a session's whole turn (scripted
//!   provider) while every server is still connecting;
//! - **servers ready**: when the last of the 5 became ready (for contrast).
//!
//!   cargo run -p skald-session --bin mcp-start-bench -- [RUNS]

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use skald_llm::{FakeProvider, ScriptedTurn};
use skald_mcp::{McpManager, McpSource, ServerConfig, ServerStatus, Transport};
use skald_session::{ActivateTools, ChatSessionHandler, FixedProvider, NullSink, SessionParams};
use skald_store::Store;
use skald_tools::{BuiltinDeps, builtin_registry};

const SERVERS: usize = 5;

fn main() -> ExitCode {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(bench(runs)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-start-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/misbehave.mjs")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn bench(runs: usize) -> Result<(), String> {
    let slow: u64 = std::env::var("SLOW_INIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    println!("{SERVERS} stdio servers answering initialize after {slow} ms; {runs} runs");
    println!("run\tstart-up path ms\tturn without servers ms\tall servers ready ms");
    let mut starts = Vec::new();
    for run in 1..=runs {
        let dir =
            std::env::temp_dir().join(format!("skald-mcp-start-{}-{run}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let r = one(&dir, slow).await;
        let _ = std::fs::remove_dir_all(&dir);
        let (start, turn, ready) = r?;
        println!("{run}\t{:.1}\t{:.1}\t{:.0}", ms(start), ms(turn), ms(ready));
        starts.push(ms(start));
    }
    starts.sort_by(f64::total_cmp);
    println!(
        "start-up path: median {:.1} ms, max {:.1} ms",
        starts[starts.len() / 2],
        starts[starts.len() - 1]
    );
    Ok(())
}

async fn one(dir: &std::path::Path, slow: u64) -> Result<(Duration, Duration, Duration), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    {
        // Configured by an earlier run of the app.
        let store = Store::open(dir).await.map_err(|e| err(&e))?;
        for i in 0..SERVERS {
            let t = Transport::Stdio {
                command: "node".into(),
                args: vec![script().display().to_string(), "slow-init".into()],
                env: [("SLOW_INIT_MS".to_string(), slow.to_string())].into(),
                cwd: None,
            };
            let row = ServerConfig::new(format!("slow{i}"), t)
                .with_timeout(Duration::from_secs(30))
                .to_row()
                .map_err(|e| err(&e))?;
            store
                .mcp_servers()
                .upsert(&row)
                .await
                .map_err(|e| err(&e))?;
        }
        store.close().await;
    }
    let agents = dir.join("agents");
    std::fs::create_dir_all(agents.join("main")).map_err(|e| err(&e))?;
    std::fs::write(
        agents.join("main/AGENT.md"),
        "You are a bench agent.\n<!-- MCP_LIST -->\n",
    )
    .map_err(|e| err(&e))?;

    // The app's start-up path (state.rs), timed up to the first page's data.
    let t0 = Instant::now();
    let store = Store::open(dir).await.map_err(|e| err(&e))?;
    let registry = Arc::new(builtin_registry(&BuiltinDeps::default()));
    let mcp = McpManager::new(Some(dir.join("mcp-logs")), Some(store.clone()));
    mcp.load(&store).await.map_err(|e| err(&e))?;
    let fake = Arc::new(FakeProvider::new([ScriptedTurn::text_reply("hello")]));
    let providers = Arc::new(FixedProvider::new(fake, "fake"));
    let sessions = ChatSessionHandler::new(store.clone(), registry, providers, &agents)
        .with_tool_source(Arc::new(McpSource::new(mcp.clone())))
        .with_interface_tools(Arc::new(ActivateTools::new(Arc::new(mcp.clone()))));
    mcp.set_requests(sessions.mcp_requests(dir.to_path_buf()));
    sessions.list_sessions().await.map_err(|e| err(&e))?;
    let start = t0.elapsed();
    let connecting = mcp
        .names()
        .iter()
        .filter(|n| mcp.status(n) == Some(ServerStatus::Connecting))
        .count();
    if connecting != SERVERS {
        return Err(format!(
            "only {connecting} of {SERVERS} servers were still connecting at first paint"
        ));
    }

    // A turn that uses no server does not wait for them.
    let sid = sessions
        .create_session(SessionParams {
            working_dir: Some(dir.to_path_buf()),
            ..SessionParams::default()
        })
        .await
        .map_err(|e| err(&e))?
        .id;
    let t1 = Instant::now();
    sessions
        .send_message(&sid, "hi", &NullSink)
        .await
        .map_err(|e| err(&e))?;
    let turn = t1.elapsed();

    for n in mcp.names() {
        mcp.wait_ready(&n).await.map_err(|e| err(&e))?;
    }
    let ready = t0.elapsed();
    mcp.shutdown();
    store.close().await;
    Ok((start, turn, ready))
}
