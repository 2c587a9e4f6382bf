//! Persists what [`ToolDiscovery`](skald_tools::ToolDiscovery) sees into the
//! `known_tools` table, so every tool ever offered can be given a rule.

use skald_core_api::BoxFuture;
use skald_protocol::{AllTools, ToolInfo, ToolKind};
use skald_store::{NewKnownTool, Store};
use skald_tools::{DiscoveredTool, KnownToolsSink, ToolCatalog};

/// A [`KnownToolsSink`] over the store.
#[derive(Clone)]
pub struct StoreKnownTools {
    store: Store,
}

impl StoreKnownTools {
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl KnownToolsSink for StoreKnownTools {
    fn record(&self, tools: Vec<DiscoveredTool>) -> BoxFuture<'static, Result<(), String>> {
        let store = self.store.clone();
        Box::pin(async move {
            let rows: Vec<NewKnownTool> = tools
                .into_iter()
                .map(|t| NewKnownTool {
                    name: t.name,
                    description: t.description,
                    source: t.source,
                })
                .collect();
            store
                .known_tools()
                .upsert_many(&rows)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    }
}

/// The catalogue used for gating: built-in, synthetic and MCP tools, plus
/// every tool ever offered that the catalogue does not list (discovered), so
/// any of them can be given a rule. Discovered tools sort after the others.
pub async fn catalog_with_known(catalog: &ToolCatalog, store: &Store) -> AllTools {
    let mut all = catalog.list_all();
    let listed: std::collections::HashSet<String> = all.iter().map(|t| t.name.clone()).collect();
    match store.known_tools().list().await {
        Ok(rows) => {
            for row in rows.into_iter().filter(|r| !listed.contains(&r.name)) {
                let kind = if skald_core_api::ToolName::parse(row.name.as_str())
                    .mcp_server()
                    .is_some()
                {
                    ToolKind::Mcp
                } else {
                    ToolKind::Discovered
                };
                let info = ToolInfo {
                    name: row.name,
                    description: row.description.unwrap_or_default(),
                    category: None,
                    kind,
                    sub_agents_only: false,
                    root_agent_only: false,
                };
                match kind {
                    ToolKind::Mcp => all.mcp.push(info),
                    ToolKind::Registry | ToolKind::Synthetic | ToolKind::Discovered => {
                        all.built_in.push(info)
                    }
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "known tools not merged into the catalogue"),
    }
    all
}
