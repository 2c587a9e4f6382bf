//! The driver's own overhead per tool call: 1,000 trivial calls (100 rounds
//! × 10 calls of a no-op tool) through `ChatSessionHandler` with the scripted
//! FakeProvider and a real SQLite file, so what is measured is the driver:
//! the approval gate, every row written (`chat_llm_tools` insert + finish,
//! the `tool` history message), the events.
//!
//! A call's cost is the time between the `ToolDone` of the previous call of
//! the same response and its own `ToolDone` (900 samples: the first call of
//! each round also carries the LLM round, so it is left out).
//!
//! With `--gate rules` the gate is the real `ApprovalManager` over the seeded
//! rules plus one person's rule allowing `noop` (so every call is evaluated:
//! session and RunContext read, path work, rule walk, decision written)
//! instead of `AllowAll`.
//!
//! Run: `cargo run --release -p skald-session --bin session-bench [-- --gate rules]`

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skald_core_api::{Tool, ToolCategory, ToolResult};
use skald_llm::{FakeProvider, LlmProvider, ScriptedTurn, StopReason};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{
    ApprovalManager, ChatSessionHandler, EventSink, FixedProvider, HandlerConfig, SessionParams,
    bootstrap,
};
use skald_store::{DEFAULT_GROUP, NewApprovalRule, RuleAction, Store};
use skald_tools::ToolRegistry;

const ROUNDS: usize = 100;
const CALLS: usize = 10;

/// Does nothing, at once.
struct Noop;

impl Tool for Noop {
    fn name(&self) -> &str {
        "noop"
    }
    fn description(&self) -> &str {
        "Does nothing."
    }
    fn parameters_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn execute(&self, _args: Value) -> ToolResult {
        Ok("ok".to_string())
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Assistant,
    Done,
}

#[derive(Default)]
struct Timing {
    marks: Mutex<Vec<(Instant, Mark)>>,
}

impl EventSink for Timing {
    fn emit(&self, event: SessionEvent) {
        let mark = match event {
            SessionEvent::AssistantMessage { .. } => Mark::Assistant,
            SessionEvent::ToolDone { .. } => Mark::Done,
            _ => return,
        };
        self.marks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((Instant::now(), mark));
    }
}

fn script(prefix: &str, rounds: usize) -> Vec<ScriptedTurn> {
    let mut turns: Vec<ScriptedTurn> = (0..rounds)
        .map(|r| {
            let mut t = ScriptedTurn::new();
            for c in 0..CALLS {
                t = t.tool_call(c, format!("{prefix}_{r}_{c}"), "noop", "{}");
            }
            t.done(StopReason::ToolUse)
        })
        .collect();
    turns.push(ScriptedTurn::text_reply("done"));
    turns
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

async fn run(root: &std::path::Path, real_gate: bool) -> Result<(), String> {
    let agents = root.join("agents");
    std::fs::create_dir_all(agents.join("main")).map_err(|e| e.to_string())?;
    std::fs::write(agents.join("main/AGENT.md"), "You are a bench agent.\n")
        .map_err(|e| e.to_string())?;
    let store = Store::open(&root.join("data"))
        .await
        .map_err(|e| e.to_string())?;
    let mut registry = ToolRegistry::new();
    registry.register(Noop);
    let fake = Arc::new(FakeProvider::new(script("warm", 2)));
    for t in script("bench", ROUNDS) {
        fake.push_turn(t);
    }
    let provider: Arc<dyn LlmProvider> = fake.clone();
    let handler = ChatSessionHandler::new(
        store.clone(),
        Arc::new(registry),
        Arc::new(FixedProvider::new(provider, "fake")),
        agents,
    )
    .with_config(HandlerConfig {
        max_rounds: (ROUNDS + 1) as u32,
        ..HandlerConfig::default()
    });
    let handler = if real_gate {
        bootstrap(&store).await.map_err(|e| e.to_string())?;
        let gate = ApprovalManager::new(store.clone());
        gate.add_rule(&NewApprovalRule {
            group_name: DEFAULT_GROUP.into(),
            agent_id: None,
            source: None,
            tool_pattern: "noop".into(),
            path_pattern: None,
            action: RuleAction::Allow,
            note: Some("bench: a person's always-allow".into()),
            priority: 10,
        })
        .await
        .map_err(|e| e.to_string())?;
        handler.with_gate(Arc::new(gate))
    } else {
        handler
    };
    let params = SessionParams {
        working_dir: Some(root.to_path_buf()),
        ..SessionParams::default()
    };

    // Warm-up: connections, caches, the blocking pool.
    let warm = handler
        .create_session(params.clone())
        .await
        .map_err(|e| e.to_string())?;
    handler
        .send_message(&warm.id, "warm up", Timing::default())
        .await
        .map_err(|e| e.to_string())?;

    let session = handler
        .create_session(params)
        .await
        .map_err(|e| e.to_string())?;
    let timing = Arc::new(Timing::default());
    let t0 = Instant::now();
    let outcome = handler
        .send_message(&session.id, "go", timing.clone())
        .await
        .map_err(|e| e.to_string())?;
    let total = t0.elapsed();
    if outcome != TurnOutcome::Completed {
        return Err(format!("the turn ended {outcome:?}"));
    }
    let rows = store
        .tool_calls()
        .list_for_session(&session.id)
        .await
        .map_err(|e| e.to_string())?;
    if rows.len() != ROUNDS * CALLS || rows.iter().any(|r| r.status.as_str() != "done") {
        return Err(format!(
            "expected {} done rows, got {}",
            ROUNDS * CALLS,
            rows.len()
        ));
    }

    let marks = timing
        .marks
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let mut samples = Vec::with_capacity(ROUNDS * (CALLS - 1));
    for w in marks.windows(2) {
        if let [(a, Mark::Done), (b, Mark::Done)] = w {
            samples.push(b.duration_since(*a));
        }
    }
    samples.sort();
    if samples.is_empty() {
        return Err("no samples".into());
    }
    println!(
        "session-bench: {} tool calls ({ROUNDS} rounds x {CALLS} calls of a no-op tool), \
         FakeProvider, SQLite file (WAL, synchronous=NORMAL), gate: {}",
        ROUNDS * CALLS,
        if real_gate {
            "ApprovalManager (seeded rules + allow noop)"
        } else {
            "AllowAll"
        }
    );
    println!(
        "per call (gate + persist + events), {} samples: median {}, p90 {}, p99 {}, max {}",
        samples.len(),
        ms(percentile(&samples, 0.5)),
        ms(percentile(&samples, 0.9)),
        ms(percentile(&samples, 0.99)),
        ms(percentile(&samples, 1.0)),
    );
    println!(
        "whole turn: {} for {} calls = {} per call (incl. {ROUNDS} rounds of request assembly from the DB)",
        ms(total),
        ROUNDS * CALLS,
        ms(total / (ROUNDS * CALLS) as u32),
    );
    store.close().await;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let real_gate = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => false,
        ["--gate", "rules"] => true,
        ["--gate", "allow-all"] => false,
        _ => {
            eprintln!("usage: session-bench [--gate rules|allow-all]");
            return ExitCode::from(2);
        }
    };
    let root: PathBuf =
        std::env::temp_dir().join(format!("skald-session-bench-{}", std::process::id()));
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("session-bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(run(&root, real_gate));
    let _ = std::fs::remove_dir_all(&root);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("session-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
