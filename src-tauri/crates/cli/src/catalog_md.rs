//! Text renderings of the catalogue: a plain listing for terminals and the
//! Markdown table that docs/tools.md embeds (and a test keeps in sync).

use std::sync::Arc;

use skald_protocol::{AllTools, ToolInfo, ToolKind};
use skald_tools::{ToolCatalog, ToolRegistry};

/// The catalogue `skald tools` lists: the registry, then the tools the
/// CLI's sessions build (as each declares itself, so a new one is listed
/// without a table to keep). The session driver needs a database; a
/// throwaway one backs it, so listing never creates or reads the person's
/// (and the Markdown table never depends on their MCP servers).
pub async fn catalogue(registry: Arc<ToolRegistry>) -> Result<ToolCatalog, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let store = skald_store::Store::open(dir.path())
        .await
        .map_err(|e| e.to_string())?;
    let mcp = skald_mcp::McpManager::new(None, None);
    let handler =
        crate::chat::session_handler(&store, registry.clone(), &mcp, dir.path().join("agents"));
    let synthetic = handler.synthetic_tools();
    drop(handler);
    mcp.shutdown();
    store.close().await;
    Ok(ToolCatalog::new(registry).with_synthetic(synthetic))
}

/// Markers around the generated table in docs/tools.md (only the drift test
/// reads them; `make docs` blesses through it).
#[cfg(test)]
pub const BEGIN: &str = "<!-- BEGIN GENERATED: skald tools --markdown -->";
#[cfg(test)]
pub const END: &str = "<!-- END GENERATED -->";

fn kind(t: &ToolInfo) -> &'static str {
    match t.kind {
        ToolKind::Registry => "built-in",
        ToolKind::Synthetic => "synthetic",
        ToolKind::Mcp => "MCP",
        ToolKind::Discovered => "discovered",
    }
}

fn visibility(t: &ToolInfo) -> &'static str {
    match (t.sub_agents_only, t.root_agent_only) {
        (true, false) => "sub-agents only",
        (false, true) => "root agent only",
        (false, false) => "all agents",
        (true, true) => "none (misconfigured)",
    }
}

fn category(t: &ToolInfo) -> &'static str {
    t.category.map_or("—", |c| c.as_str())
}

/// The first sentence (or line) of a description: enough for a table cell.
fn first_sentence(description: &str) -> &str {
    let line = description.lines().next().unwrap_or("");
    match line.find(". ") {
        Some(i) => &line[..=i],
        None => line,
    }
}

/// The catalogue as a Markdown table, one row per tool.
pub fn markdown_table(all: &AllTools) -> String {
    let mut out = String::from(
        "| Tool | Kind | Category | Visible to | Description |\n|---|---|---|---|---|\n",
    );
    for t in all.iter() {
        let desc = first_sentence(&t.description).replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            t.name,
            kind(t),
            category(t),
            visibility(t),
            desc
        ));
    }
    out
}

/// `name  category  kind  description` lines for a terminal.
pub fn plain_listing(all: &AllTools) -> String {
    let width = all.iter().map(|t| t.name.len()).max().unwrap_or(0);
    all.iter()
        .map(|t| {
            format!(
                "{:width$}  {:13}  {:9}  {}",
                t.name,
                category(t),
                kind(t),
                t.description.lines().next().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use skald_tools::{BuiltinDeps, builtin_registry};

    async fn generated() -> String {
        let registry = Arc::new(builtin_registry(&BuiltinDeps::default()));
        markdown_table(&catalogue(registry).await.unwrap().list_all())
    }

    /// docs/tools.md embeds `skald tools --markdown`; this fails on drift.
    /// `SKALD_BLESS=1` rewrites the generated block instead.
    #[tokio::test]
    async fn docs_tools_md_catalogue_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../docs/tools.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let start = doc.find(BEGIN).expect("BEGIN marker in docs/tools.md") + BEGIN.len();
        let end = doc.find(END).expect("END marker in docs/tools.md");
        let current = doc[start..end].trim();
        let expected = generated().await;
        if std::env::var_os("SKALD_BLESS").is_some() {
            let new = format!("{}\n{}\n{}", &doc[..start], expected.trim(), &doc[end..]);
            std::fs::write(&path, new).unwrap();
            return;
        }
        assert!(
            current == expected.trim(),
            "docs/tools.md catalogue is stale: run `make docs` (SKALD_BLESS=1) and commit"
        );
    }

    #[test]
    fn table_has_a_row_per_tool_and_escapes_pipes() {
        let all = AllTools {
            built_in: vec![ToolInfo {
                name: "x".into(),
                description: "a | b. More words.\nsecond line".into(),
                category: None,
                kind: ToolKind::Synthetic,
                sub_agents_only: true,
                root_agent_only: false,
            }],
            mcp: vec![],
        };
        let md = markdown_table(&all);
        assert_eq!(md.lines().count(), 3);
        assert!(
            md.contains("| `x` | synthetic | — | sub-agents only | a \\| b. |"),
            "{md}"
        );
    }
}
