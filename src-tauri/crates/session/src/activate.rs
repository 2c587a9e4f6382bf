//! `activate_tools({"groups": [...]})`: the lazy tool groups. An MCP
//! server's tools — and the built-in Config group (`config`) — reach the
//! model only once activated, from the next round on. The grant is stored
//! per session for the root agent and per stack frame for a sub-agent
//! (`session_mcp_grants` / `stack_mcp_grants`), so it survives restarts and
//! a sub-agent's grants die with its frame.
//!
//! What can be activated comes from a [`GroupLister`] the host supplies
//! (the MCP manager's enabled servers); `config` always can.

use std::collections::BTreeSet;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, Tool, ToolCategory, ToolDescriptionLength, ToolError, ToolName, ToolResult,
    input_schema, parse_args,
};
use skald_store::Store;
use skald_tools::tool_names as tn;

use crate::interface::{FrameContext, InterfaceTools};

/// One group the model may activate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGroup {
    pub name: String,
    /// What it is for, shown in the diagnostic for unknown names.
    pub description: String,
}

/// Lists the groups that can be activated now (not counting `config`).
pub trait GroupLister: Send + Sync {
    fn groups(&self) -> Vec<ToolGroup>;
}

impl<F> GroupLister for F
where
    F: Fn() -> Vec<ToolGroup> + Send + Sync,
{
    fn groups(&self) -> Vec<ToolGroup> {
        self()
    }
}

/// The MCP servers that can be activated, each as a group.
impl GroupLister for skald_mcp::McpManager {
    fn groups(&self) -> Vec<ToolGroup> {
        skald_mcp::McpManager::groups(self)
            .into_iter()
            .map(|(name, description)| ToolGroup { name, description })
            .collect()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ActivateInput {
    /// Group names: an MCP server's name, or `config` for the built-in
    /// configuration tools.
    groups: Vec<String>,
}

/// The factory registered on the handler
/// ([`with_interface_tools`](crate::ChatSessionHandler::with_interface_tools)).
pub struct ActivateTools {
    lister: Arc<dyn GroupLister>,
}

impl ActivateTools {
    pub fn new(lister: Arc<dyn GroupLister>) -> Self {
        Self { lister }
    }
}

impl InterfaceTools for ActivateTools {
    fn tool_groups(&self) -> Option<Vec<ToolGroup>> {
        Some(self.lister.groups())
    }

    fn build(&self, frame: &FrameContext) -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(Activate {
            lister: self.lister.clone(),
            store: frame.store.clone(),
            session_id: frame.session_id.clone(),
            frame_id: frame.frame_id,
            depth: frame.depth,
        })]
    }
}

struct Activate {
    lister: Arc<dyn GroupLister>,
    store: Store,
    session_id: String,
    frame_id: i64,
    depth: u32,
}

const DESCRIPTION: &str = "Activates tool groups: an MCP server's tools, or `config` for the built-in configuration tools. Their tools are offered from the next round on.";

impl Activate {
    fn available(&self) -> Vec<ToolGroup> {
        let mut groups = vec![ToolGroup {
            name: tn::CONFIG_GROUP.to_string(),
            description: "Skald's configuration tools".to_string(),
        }];
        groups.extend(self.lister.groups());
        groups
    }

    async fn activate(&self, input: ActivateInput) -> ToolResult {
        let available = self.available();
        let known: BTreeSet<&str> = available.iter().map(|g| g.name.as_str()).collect();
        let (mut ok, mut unknown) = (Vec::new(), Vec::new());
        for g in &input.groups {
            // `mcp__everything__*` or one of its tools' names names the server.
            let name = ToolName::parse(g.as_str())
                .mcp_server()
                .map_or_else(|| g.clone(), str::to_string);
            if known.contains(name.as_str()) {
                ok.push(name);
            } else {
                unknown.push(g.clone());
            }
        }
        ok.sort();
        ok.dedup();
        let grants = self.store.grants();
        for name in &ok {
            let r = if self.depth == 0 {
                grants.grant_session(&self.session_id, name).await
            } else {
                grants.grant_frame(self.frame_id, name).await
            };
            r.map_err(|e| ToolError::failed(format!("cannot store the grant: {e}")))?;
        }
        if !unknown.is_empty() {
            let list = available
                .iter()
                .map(|g| {
                    if g.description.is_empty() {
                        g.name.clone()
                    } else {
                        format!("{} ({})", g.name, g.description)
                    }
                })
                .collect::<Vec<_>>()
                .join(", ");
            let msg = format!(
                "unknown group(s): {}. Can be activated: {list}",
                unknown.join(", ")
            );
            if ok.is_empty() {
                return Err(ToolError::failed(msg));
            }
            return Ok(format!(
                "Activated: {}. Their tools are offered from the next round on. Also: {msg}",
                ok.join(", ")
            ));
        }
        Ok(format!(
            "Activated: {}. Their tools are offered from the next round on.",
            ok.join(", ")
        ))
    }
}

impl Tool for Activate {
    fn name(&self) -> &str {
        tn::ACTIVATE_TOOLS
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters_schema(&self) -> Value {
        input_schema::<ActivateInput>()
    }

    fn describe(&self, args: &Value, _length: ToolDescriptionLength) -> String {
        let groups: Vec<&str> = args["groups"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        format!("activate_tools {}", groups.join(", "))
    }

    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        parse_args::<ActivateInput>(self.name(), args.clone()).map(|_| ())
    }

    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let input = parse_args::<ActivateInput>(self.name(), args)?;
            self.activate(input).await
        })
    }

    /// Introspection, not Config: it must stay offered while the Config
    /// group is not granted, or nothing could grant it.
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
}

/// The MCP servers a round may offer: the session's grants for the root
/// agent, the frame's for a sub-agent, and the servers marked always-on.
pub(crate) async fn granted(
    store: &Store,
    session_id: &str,
    frame_id: i64,
    depth: u32,
) -> Result<BTreeSet<String>, skald_store::StoreError> {
    let names = if depth == 0 {
        store.grants().list_session(session_id).await?
    } else {
        store.grants().list_frame(frame_id).await?
    };
    let mut out: BTreeSet<String> = names.into_iter().collect();
    out.extend(always_on(store, Some(session_id)).await?);
    Ok(out)
}

/// The setting listing MCP servers whose tools every session is offered
/// without `activate_tools` (a JSON array of names); a session adds its
/// own under `mcp.always_on:<session id>`.
pub const ALWAYS_ON_SETTING: &str = "mcp.always_on";

fn always_on_key(session_id: Option<&str>) -> String {
    match session_id {
        Some(id) => format!("{ALWAYS_ON_SETTING}:{id}"),
        None => ALWAYS_ON_SETTING.to_string(),
    }
}

async fn names_at(store: &Store, key: &str) -> Result<Vec<String>, skald_store::StoreError> {
    Ok(store
        .settings()
        .get(key)
        .await?
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        // `config` is never always-on: granting it stays a visible step.
        .filter(|n| n != tn::CONFIG_GROUP)
        .collect())
}

/// Always-on servers for `session_id` (the global ones and its own), or
/// the global ones alone.
pub async fn always_on(
    store: &Store,
    session_id: Option<&str>,
) -> Result<BTreeSet<String>, skald_store::StoreError> {
    let mut out: BTreeSet<String> = names_at(store, ALWAYS_ON_SETTING)
        .await?
        .into_iter()
        .collect();
    if let Some(id) = session_id {
        out.extend(names_at(store, &always_on_key(Some(id))).await?);
    }
    Ok(out)
}

/// Marks `servers` always-on for one session, or for every session.
pub async fn set_always_on(
    store: &Store,
    session_id: Option<&str>,
    servers: &[String],
) -> Result<(), skald_store::StoreError> {
    let mut names: Vec<&str> = servers
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty() && *s != tn::CONFIG_GROUP)
        .collect();
    names.sort_unstable();
    names.dedup();
    store
        .settings()
        .set(&always_on_key(session_id), &serde_json::json!(names))
        .await
}

/// `<!-- MCP_LIST -->`: the enabled servers, what they are for, their tool
/// counts, and how to get their tools.
pub(crate) fn mcp_list(groups: &[ToolGroup], always: &BTreeSet<String>) -> String {
    if groups.is_empty() {
        return "(no MCP servers are registered)".to_string();
    }
    let mut out = String::new();
    for g in groups {
        let on = if always.contains(&g.name) {
            " (always on)"
        } else {
            ""
        };
        let about = if g.description.is_empty() {
            "connecting".to_string()
        } else {
            g.description.clone()
        };
        out.push_str(&format!("- `{}`{on}: {about}\n", g.name));
    }
    out.push_str(
        "A server's tools (`mcp__<server>__<tool>`) are offered once you call \
         activate_tools({\"groups\": [\"<server>\"]}); always-on servers' tools are offered already.",
    );
    out
}
