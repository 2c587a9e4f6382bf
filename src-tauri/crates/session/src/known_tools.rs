//! Persists what [`ToolDiscovery`](skald_tools::ToolDiscovery) sees into the
//! `known_tools` table, so every tool ever offered can be given a rule.

use skald_core_api::BoxFuture;
use skald_store::{NewKnownTool, Store};
use skald_tools::{DiscoveredTool, KnownToolsSink};

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
