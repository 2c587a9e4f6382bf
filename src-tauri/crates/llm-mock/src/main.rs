//! `skald-llm-mock`: the scripted LLM server as a process, for the E2E tests.
//!
//! ```text
//! skald-llm-mock [--script FILE] [--record FILE] [--port N] [--models a,b]
//!                [--peer-pids] [--exit-on-stdin-eof]
//! ```
//! Prints one JSON line when it listens — `{"port":…,"url":…,"base_url":…}` —
//! then serves until killed (or until its stdin closes, with
//! `--exit-on-stdin-eof`, so it cannot outlive the test that started it).
//! The script format (replies in order, routes chosen by what a request
//! says) is in the library's `script` module; more of either can be added
//! with `POST /_mock/replies`, the record read with `GET /_mock/requests`.

use std::io::Read;
use std::process::ExitCode;

use skald_llm_mock::{MockServer, script};

const USAGE: &str = "usage: skald-llm-mock [--script FILE] [--record FILE] [--port N] [--models a,b] [--peer-pids] [--exit-on-stdin-eof]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skald-llm-mock: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut builder = MockServer::builder();
    let mut exit_on_eof = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--script" => {
                let path = value("--script")?;
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read the script {path}: {e}"))?;
                let s = script::parse(&text).map_err(|e| format!("{path}: {e}"))?;
                builder = builder.replies(s.replies);
                for (when, replies) in s.routes {
                    builder = builder.route(when, replies);
                }
                if let Some(m) = s.models {
                    builder = builder.models(m);
                }
                if let Some(x) = s.exhausted {
                    builder = builder.exhausted(x);
                }
            }
            "--record" => builder = builder.record_to(value("--record")?),
            "--port" => {
                let p = value("--port")?;
                builder = builder.port(p.parse().map_err(|_| format!("--port: not a port: {p}"))?);
            }
            "--models" => {
                let m = value("--models")?;
                builder = builder.models(m.split(',').filter(|s| !s.is_empty()).map(str::to_owned));
            }
            "--peer-pids" => builder = builder.peer_pids(true),
            "--exit-on-stdin-eof" => exit_on_eof = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    let server = builder.start().map_err(|e| format!("cannot listen: {e}"))?;
    println!(
        "{}",
        serde_json::json!({"port": server.port(), "url": server.url(), "base_url": server.base_url()})
    );
    if exit_on_eof {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
    } else {
        loop {
            std::thread::park();
        }
    }
    drop(server);
    Ok(())
}
