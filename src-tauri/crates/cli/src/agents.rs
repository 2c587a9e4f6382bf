//! `skald agents`: the agents a session can use, and the ones skipped
//! because their files are broken (listed on stderr, exit 1), read from the
//! same directories the app and `skald chat` use.

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;
use skald_session::{AgentCatalog, AgentSource};

use crate::chat::agent_dirs;
use crate::{fail, print_out};

pub fn agents(data_dir: &Path, json: bool) -> ExitCode {
    let catalog = agent_dirs(data_dir).catalog();
    if json {
        return match serde_json::to_string_pretty(&as_json(&catalog)) {
            Ok(s) => {
                print_out(&s);
                exit_for(&catalog)
            }
            Err(e) => fail(1, &format!("cannot serialise the agents: {e}")),
        };
    }
    let lines: Vec<String> = catalog
        .agents()
        .map(|a| {
            let model = a
                .meta
                .model
                .as_deref()
                .map(|m| format!(" [model {m}]"))
                .unwrap_or_default();
            format!(
                "{:<20} {:<6} {}{model} — {}",
                a.id,
                a.meta.kind.as_str(),
                a.meta.name,
                a.meta.description
            )
        })
        .collect();
    print_out(&lines.join("\n"));
    for p in &catalog.problems {
        eprintln!("skald: {p}");
    }
    exit_for(&catalog)
}

fn exit_for(catalog: &AgentCatalog) -> ExitCode {
    if catalog.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn as_json(catalog: &AgentCatalog) -> serde_json::Value {
    let agents: Vec<serde_json::Value> = catalog
        .agents()
        .map(|a| {
            let mut v = serde_json::to_value(&a.meta).unwrap_or_else(|_| json!({}));
            v["id"] = json!(a.id);
            v["source"] = match &a.source {
                AgentSource::Builtin => json!("builtin"),
                AgentSource::Dir(d) => json!(d.join(&a.id)),
            };
            v
        })
        .collect();
    let problems: Vec<serde_json::Value> = catalog
        .problems
        .iter()
        .map(|p| json!({"id": p.id, "path": p.path, "reason": p.reason}))
        .collect();
    json!({"agents": agents, "problems": problems})
}
