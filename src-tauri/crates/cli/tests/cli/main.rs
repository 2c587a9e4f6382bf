//! The `skald` binary end to end: a real process, a real DB in a temp dir,
//! and (for chat) a local mock OpenAI-compatible server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents;
mod approve;
mod chat;
mod chat_model;
mod companion;
mod crash;
mod mcp;
mod models;
mod redo;
mod store_integrity;
mod tasks;
mod tasks_crash;
mod tools;

use std::path::Path;
use std::process::{Command, Output};

/// Provider variables a developer's shell may carry; tests set their own.
const PROVIDER_VARS: [&str; 6] = [
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "OLLAMA_HOST",
    "SKALD_AGENTS_DIR",
];

/// `skald` with `SKALD_DATA_DIR` set and no provider configured.
pub fn command(data_dir: &Path) -> Command {
    program_command(env!("CARGO_BIN_EXE_skald"), data_dir)
}

/// `program` (a wrapper that runs `skald`, such as `script`) with the
/// environment [`command`] gives.
pub fn program_command(program: &str, data_dir: &Path) -> Command {
    let mut c = Command::new(program);
    c.env("SKALD_DATA_DIR", data_dir);
    for v in PROVIDER_VARS {
        c.env_remove(v);
    }
    c
}

pub fn skald(args: &[&str], data_dir: &Path) -> Output {
    command(data_dir).args(args).output().unwrap()
}

/// `skald ARGS` with the scripted mock as its environment's
/// OpenAI-compatible endpoint.
pub fn run_with_mock(data: &Path, mock: &skald_llm_mock::MockServer, args: &[&str]) -> Output {
    command(data)
        .args(args)
        .env("OPENAI_BASE_URL", mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
