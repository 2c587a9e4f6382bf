//! Test helper, not a product: a headless turn like `skald chat`, with the
//! built-in tools plus `slow_probe`, a re-runnable (`RestartHint::Rerun`) tool
//! that blocks until a go-file exists. The crash test SIGKILLs this process
//! while `slow_probe` runs, then starts it again with `resume`.
//!
//! Usage: `session-harness --data-dir D --workdir W --model M chat "prompt"`
//!        `session-harness --data-dir D --model M resume`
//! Provider: `OPENAI_BASE_URL` / `OPENAI_API_KEY` (DefaultProviderResolver).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use skald_core_api::{BoxFuture, Tool, ToolCategory, ToolError, ToolResult};
use skald_session::{
    ChatSessionHandler, DefaultProviderResolver, FnSink, SessionParams, TurnOptions,
};
use skald_store::Store;
use skald_tools::{BuiltinDeps, builtin_registry};

/// `slow_probe {path}`: appends `start` to `<path>.runs`, waits until
/// `<path>.go` exists, returns the content of `path`.
struct SlowProbe;

impl Tool for SlowProbe {
    fn name(&self) -> &str {
        "slow_probe"
    }

    fn description(&self) -> &str {
        "Test tool: waits for a go-file, then returns the content of `path`."
    }

    fn parameters_schema(&self) -> Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    }

    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let path = args
                .get("path")
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .ok_or_else(|| ToolError::failed("path is required"))?;
            let runs = path.with_extension("runs");
            let mut log = std::fs::read_to_string(&runs).unwrap_or_default();
            log.push_str("start\n");
            std::fs::write(&runs, log).map_err(|e| ToolError::failed(e.to_string()))?;
            while !path.with_extension("go").exists() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            std::fs::read_to_string(&path).map_err(|e| ToolError::failed(e.to_string()))
        })
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }
}

struct Args {
    data_dir: PathBuf,
    workdir: Option<PathBuf>,
    model: Option<String>,
    session: Option<String>,
    command: Vec<String>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        data_dir: PathBuf::new(),
        workdir: None,
        model: None,
        session: None,
        command: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--data-dir" => a.data_dir = PathBuf::from(value()?),
            "--workdir" => a.workdir = Some(PathBuf::from(value()?)),
            "--model" => a.model = Some(value()?),
            "--session" => a.session = Some(value()?),
            _ => a.command.push(arg),
        }
    }
    Ok(a)
}

fn sink() -> FnSink<impl Fn(skald_protocol::SessionEvent) + Send + Sync> {
    FnSink(|e| {
        if let Ok(line) = serde_json::to_string(&e) {
            eprintln!("{line}");
        }
    })
}

async fn run(a: Args) -> Result<(), String> {
    let store = Store::open(&a.data_dir).await.map_err(|e| e.to_string())?;
    let mut registry = builtin_registry(&BuiltinDeps::default());
    registry.register(SlowProbe);
    let agents = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../agents");
    let resolver = DefaultProviderResolver::new(store.clone()).with_ollama_probe(None);
    let handler = ChatSessionHandler::new(
        store.clone(),
        Arc::new(registry),
        Arc::new(resolver),
        agents,
    );
    match a.command.first().map(String::as_str) {
        Some("chat") => {
            let prompt = a.command.get(1).cloned().unwrap_or_default();
            let id = match a.session {
                Some(id) => id,
                None => {
                    handler
                        .create_session(SessionParams {
                            working_dir: a.workdir,
                            ..SessionParams::default()
                        })
                        .await
                        .map_err(|e| e.to_string())?
                        .id
                }
            };
            println!("{id}");
            let outcome = handler
                .send_message_with(&id, &prompt, TurnOptions { model: a.model }, sink())
                .await
                .map_err(|e| e.to_string())?;
            println!("{}", serde_json::to_string(&outcome).unwrap_or_default());
        }
        Some("resume") => {
            let done = handler
                .resume_all(a.model.as_deref(), sink())
                .await
                .map_err(|e| e.to_string())?;
            for r in done {
                println!("{} {:?}", r.session_id, r.outcome);
            }
        }
        _ => return Err("usage: session-harness [options] chat PROMPT | resume".into()),
    }
    store.close().await;
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("session-harness: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("session-harness: {e}");
            return ExitCode::from(1);
        }
    };
    match rt.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("session-harness: {e}");
            ExitCode::from(1)
        }
    }
}
