//! ToolDiscovery over a real SQLite file: every offered tool lands in
//! `known_tools` once, and the seen-set keeps later rounds off the DB.

use std::sync::Arc;

use serde_json::json;
use skald_session::StoreKnownTools;
use skald_store::Store;
use skald_tools::{BuiltinDeps, ToolDiscovery, builtin_registry};

#[tokio::test]
async fn offered_tools_are_recorded_once_in_known_tools() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let discovery = ToolDiscovery::new(Arc::new(StoreKnownTools::new(store.clone())));
    let defs = builtin_registry(&BuiltinDeps::default()).openai_definitions();
    assert!(!defs.is_empty());

    discovery.observe(&defs, "builtin").unwrap().await.unwrap();
    let first = store.known_tools().list().await.unwrap();
    assert_eq!(first.len(), defs.len());

    // The same round again writes nothing.
    assert!(discovery.observe(&defs, "builtin").is_none());

    // A new tool (say from a plugin) is added, the others untouched.
    let mut more = defs.clone();
    more.push(json!({"type": "function", "function": {"name": "send_voice_message", "description": "Sends a voice message"}}));
    discovery.observe(&more, "plugin").unwrap().await.unwrap();
    let after = store.known_tools().list().await.unwrap();
    assert_eq!(after.len(), defs.len() + 1);
    let voice = after
        .iter()
        .find(|t| t.name == "send_voice_message")
        .unwrap();
    assert_eq!(voice.source, "plugin");
    assert_eq!(voice.description.as_deref(), Some("Sends a voice message"));
    for old in &first {
        let now = after.iter().find(|t| t.name == old.name).unwrap();
        assert_eq!(now.first_seen, old.first_seen, "{}", old.name);
    }

    // A fresh process (empty seen-set) upserts without duplicating rows.
    let again = ToolDiscovery::new(Arc::new(StoreKnownTools::new(store.clone())));
    again.observe(&more, "plugin").unwrap().await.unwrap();
    assert_eq!(
        store.known_tools().list().await.unwrap().len(),
        defs.len() + 1
    );
}

#[tokio::test]
async fn discovered_tools_join_the_gating_catalogue_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let registry = Arc::new(builtin_registry(&BuiltinDeps::default()));
    let catalog = skald_tools::ToolCatalog::new(registry.clone());
    let discovery = ToolDiscovery::new(Arc::new(StoreKnownTools::new(store.clone())));
    let mut defs = registry.openai_definitions();
    defs.push(json!({"type": "function", "function": {"name": "send_voice_message", "description": "Sends a voice message"}}));
    defs.push(json!({"type": "function", "function": {"name": "mcp__fs__read", "description": "MCP read"}}));
    discovery.observe(&defs, "round").unwrap().await.unwrap();

    let all = skald_session::catalog_with_known(&catalog, &store).await;
    let names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
    let once = |n: &str| names.iter().filter(|x| **x == n).count();
    assert_eq!(once("read_file"), 1, "registry tools are not duplicated");
    assert_eq!(once("send_voice_message"), 1);
    let voice = all
        .built_in
        .iter()
        .find(|t| t.name == "send_voice_message")
        .unwrap();
    assert_eq!(voice.kind, skald_protocol::ToolKind::Discovered);
    assert_eq!(
        all.mcp.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["mcp__fs__read"]
    );
}
