//! The agent's MCP management tools: `register_mcp`, `delete_mcp`
//! (Config: offered once the `config` group is activated, like every Config
//! tool), and MCP servers as an [`ItemSource`] of the session's one
//! `list_items(type=mcp)` and `toggle_item(kind=mcp)`. They change the store and the running
//! [`McpManager`] together, so a registered server starts connecting at once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skald_core_api::{
    BoxFuture, Tool, ToolCategory, ToolError, ToolResult, ToolTraits, input_schema, parse_args,
};
use skald_store::Store;
use skald_tools::ItemSource;
use skald_tools::tool_names as tn;

use crate::config::{ServerConfig, Transport};
use crate::manager::McpManager;

/// `register_mcp` and `delete_mcp`, for a host's `with_interface_tools`
/// (listing and toggling go through [`items`]).
pub fn config_tools(manager: McpManager, store: Store) -> Vec<Arc<dyn Tool>> {
    let ctx = Ctx { manager, store };
    vec![Arc::new(Register(ctx.clone())), Arc::new(Delete(ctx))]
}

#[derive(Clone)]
struct Ctx {
    manager: McpManager,
    store: Store,
}

fn failed(e: impl std::fmt::Display) -> ToolError {
    ToolError::failed(e.to_string())
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RegisterInput {
    /// Letters, digits, `-`, `_`; its tools become `mcp__<name>__<tool>`.
    name: String,
    /// A stdio server's command (give this or `url`).
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    /// Environment of a stdio server; `${SECRET}` is filled from secrets.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// A streamable HTTP server's URL (give this or `command`).
    url: Option<String>,
    /// HTTP headers; `${SECRET}` is filled from secrets.
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// What the server is for.
    #[serde(default)]
    description: String,
    /// Per-call timeout in seconds (default 60).
    timeout_secs: Option<u64>,
}

struct Register(Ctx);

impl Tool for Register {
    fn name(&self) -> &str {
        tn::REGISTER_MCP
    }
    fn description(&self) -> &str {
        "Registers (or replaces) an MCP server: a stdio `command` with `args`/`env`, or a streamable HTTP `url` with `headers`. It starts connecting at once; activate it with activate_tools to use its tools."
    }
    fn parameters_schema(&self) -> Value {
        input_schema::<RegisterInput>()
    }
    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        parse_args::<RegisterInput>(self.name(), args.clone()).map(|_| ())
    }
    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let i = parse_args::<RegisterInput>(self.name(), args)?;
            let transport = match (i.command, i.url) {
                (Some(command), None) => Transport::Stdio {
                    command,
                    args: i.args,
                    env: i.env,
                    cwd: None,
                },
                (None, Some(url)) => Transport::Http {
                    url,
                    headers: i.headers,
                    client_id: None,
                },
                _ => return Err(ToolError::failed("give exactly one of `command` and `url`")),
            };
            let mut c = ServerConfig::new(&i.name, transport).with_description(i.description);
            if let Some(s) = i.timeout_secs {
                c = c.with_timeout(Duration::from_secs(s));
            }
            let row = c.to_row().map_err(failed)?;
            let new = self
                .0
                .store
                .mcp_servers()
                .upsert(&row)
                .await
                .map_err(failed)?;
            self.0.manager.put(c);
            Ok(format!(
                "{} MCP server `{}`; it is connecting. Activate it with activate_tools({{\"groups\": [\"{}\"]}}).",
                if new { "Registered" } else { "Replaced" },
                i.name,
                i.name
            ))
        })
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Config
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NameInput {
    /// The server's name.
    name: String,
}

struct Delete(Ctx);

impl Tool for Delete {
    fn name(&self) -> &str {
        tn::DELETE_MCP
    }
    fn description(&self) -> &str {
        "Permanently unregisters an MCP server and disconnects it (to switch one off for a while, use toggle_item)."
    }
    fn parameters_schema(&self) -> Value {
        input_schema::<NameInput>()
    }
    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        parse_args::<NameInput>(self.name(), args.clone()).map(|_| ())
    }
    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let i = parse_args::<NameInput>(self.name(), args)?;
            let existed = self
                .0
                .store
                .mcp_servers()
                .delete(&i.name)
                .await
                .map_err(failed)?;
            self.0.manager.remove(&i.name);
            if existed {
                Ok(format!("Deleted MCP server `{}`.", i.name))
            } else {
                Err(ToolError::failed(format!(
                    "no MCP server named `{}`",
                    i.name
                )))
            }
        })
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Config
    }
    fn traits(&self) -> ToolTraits {
        ToolTraits {
            destructive: true,
            ..ToolTraits::default()
        }
    }
}

/// MCP servers as items of `list_items(type=mcp)` and `toggle_item(kind=mcp)`
/// (the session's one copy of each tool).
pub fn items(manager: McpManager, store: Store) -> Arc<dyn ItemSource> {
    Arc::new(McpItems(Ctx { manager, store }))
}

struct McpItems(Ctx);

impl ItemSource for McpItems {
    fn kind(&self) -> &str {
        "mcp"
    }

    fn about(&self) -> &str {
        "the MCP servers with their status, description and tools."
    }

    fn list(&self) -> BoxFuture<'_, Result<Value, String>> {
        let m = &self.0.manager;
        let items: Vec<Value> = m
            .names()
            .into_iter()
            .filter_map(|n| m.config(&n))
            .map(|c| {
                let tools: Vec<String> = m.tools(&c.name).into_iter().map(|t| t.0).collect();
                json!({
                    "name": c.name,
                    "transport": c.transport.kind(),
                    "enabled": c.enabled,
                    "status": m.status(&c.name).map(|s| s.label()),
                    "description": c.description,
                    "tools": tools,
                })
            })
            .collect();
        Box::pin(std::future::ready(Ok(Value::Array(items))))
    }

    fn toggles(&self) -> bool {
        true
    }

    fn toggle<'a>(&'a self, name: &'a str, enabled: bool) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let repo = self.0.store.mcp_servers();
            let Some(row) = repo.get(name).await.map_err(|e| e.to_string())? else {
                return Err(format!("no MCP server named `{name}`"));
            };
            repo.set_enabled(name, enabled)
                .await
                .map_err(|e| e.to_string())?;
            let mut c = ServerConfig::from_row(&row).map_err(|e| e.to_string())?;
            c.enabled = enabled;
            self.0.manager.put(c);
            Ok(format!(
                "MCP server `{name}` {}.",
                if enabled { "enabled" } else { "disabled" }
            ))
        })
    }
}
