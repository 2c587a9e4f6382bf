//! [`ToolDiscovery`]: records every tool offered to a model, so anything ever
//! offered can be given an approval rule. An in-memory seen-set keeps the hot
//! path to a hash lookup; new names are written off the turn's path.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use skald_core_api::{BoxFuture, DefView};

/// One tool seen in an assembled tool array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredTool {
    pub name: String,
    pub description: Option<String>,
    pub source: String,
}

/// Where discovered tools are persisted (the `known_tools` table).
pub trait KnownToolsSink: Send + Sync + 'static {
    fn record(&self, tools: Vec<DiscoveredTool>) -> BoxFuture<'static, Result<(), String>>;
}

pub struct ToolDiscovery {
    seen: Arc<Mutex<HashSet<String>>>,
    sink: Arc<dyn KnownToolsSink>,
}

impl ToolDiscovery {
    pub fn new(sink: Arc<dyn KnownToolsSink>) -> Self {
        Self {
            seen: Arc::new(Mutex::new(HashSet::new())),
            sink,
        }
    }

    /// Picks the names not seen before out of definitions (typed, or
    /// OpenAI-style JSON) and marks them seen.
    pub fn take_new<D: DefView>(&self, defs: &[D], source: &str) -> Vec<DiscoveredTool> {
        let Ok(mut seen) = self.seen.lock() else {
            return Vec::new();
        };
        let mut fresh = Vec::new();
        for def in defs {
            let Some(name) = def.def_name() else {
                continue;
            };
            if seen.insert(name.to_string()) {
                fresh.push(DiscoveredTool {
                    name: name.to_string(),
                    description: def.def_description().map(str::to_string),
                    source: source.to_string(),
                });
            }
        }
        fresh
    }

    /// Observes one round's tool array. New names are written by a spawned
    /// task; the returned handle lets tests (and shutdown) await the write.
    /// Must be called inside a Tokio runtime.
    pub fn observe<D: DefView>(
        &self,
        defs: &[D],
        source: &str,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let fresh = self.take_new(defs, source);
        if fresh.is_empty() {
            return None;
        }
        let sink = self.sink.clone();
        let seen = self.seen.clone();
        Some(tokio::spawn(async move {
            let names: Vec<String> = fresh.iter().map(|t| t.name.clone()).collect();
            if let Err(e) = sink.record(fresh).await {
                tracing::warn!(error = %e, "recording discovered tools failed");
                // Forget them so the next round, which offers them again,
                // retries the write instead of skipping it for good.
                if let Ok(mut seen) = seen.lock() {
                    for n in &names {
                        seen.remove(n);
                    }
                }
            }
        }))
    }
}
