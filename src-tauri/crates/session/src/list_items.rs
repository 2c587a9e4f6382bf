//! `list_items`: what the agent can look up about Skald's own setup. Only
//! `type: "agents"` exists so far (cron jobs, MCP servers and plugins join
//! with their features): every chat and task agent with its description and,
//! when set, how to call it. System agents are wired by the runtime and not
//! listed. Built by the session (it reads the agent catalogue when called).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skald_core_api::{ToolCategory, ToolDescriptionLength, ToolResult, TypedTool};
use skald_tools::tool_names as tn;

use crate::agents::{AgentDirs, AgentType};

/// What to list.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ItemType {
    /// The agents: chat agents people talk to and task agents `execute_task` dispatches.
    Agents,
}

/// Arguments of `list_items`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListItemsInput {
    /// What to list.
    #[serde(rename = "type")]
    kind: ItemType,
}

/// The `list_items` tool.
#[derive(Clone)]
pub(crate) struct ListItems {
    agents: AgentDirs,
}

impl ListItems {
    pub(crate) fn new(agents: AgentDirs) -> Self {
        Self { agents }
    }
}

impl TypedTool for ListItems {
    type Input = ListItemsInput;

    fn name(&self) -> &str {
        tn::LIST_ITEMS
    }

    fn description(&self) -> &str {
        "List parts of Skald's own setup as JSON. `type: \"agents\"`: every agent with its id, \
         name, type (`chat` or `task`), description and, when set, instructions on how to call \
         it; task agents are the ones `execute_task` can hand work to."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    fn describe(&self, args: &Value, _length: ToolDescriptionLength) -> String {
        match args.get("type").and_then(Value::as_str) {
            Some(t) => format!("{} {t}", tn::LIST_ITEMS),
            None => tn::LIST_ITEMS.to_string(),
        }
    }

    fn run(&self, input: ListItemsInput) -> ToolResult {
        match input.kind {
            ItemType::Agents => {
                let catalog = self.agents.catalog();
                let items: Vec<Value> = catalog
                    .agents()
                    .filter(|a| a.meta.kind != AgentType::System)
                    .map(|a| {
                        let mut v = json!({
                            "id": a.id,
                            "name": a.meta.name,
                            "type": a.meta.kind.as_str(),
                            "description": a.meta.description,
                        });
                        if let Some(i) = a.meta.instructions.as_deref().filter(|i| !i.is_empty()) {
                            v["instructions"] = json!(i);
                        }
                        v
                    })
                    .collect();
                Ok(serde_json::to_string_pretty(&json!({ "agents": items }))
                    .unwrap_or_else(|_| "{}".to_string()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use skald_core_api::Tool;

    #[tokio::test]
    async fn lists_chat_and_task_agents_not_system_ones() {
        let d = tempfile::tempdir().unwrap();
        let hidden = d.path().join("tic");
        std::fs::create_dir_all(&hidden).unwrap();
        std::fs::write(hidden.join("AGENT.md"), "x").unwrap();
        std::fs::write(
            hidden.join("meta.json"),
            r#"{"name": "TIC", "description": "internal", "type": "system"}"#,
        )
        .unwrap();
        let tool = ListItems::new(AgentDirs(vec![d.path().to_path_buf()]));
        let out = tool.execute_async(json!({"type": "agents"})).await.unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let ids: Vec<&str> = v["agents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "code-explorer",
                "main",
                "project-coordinator",
                "researcher",
                "software-engineer",
                "spec-writer"
            ]
        );
        let se = &v["agents"][4];
        assert_eq!(se["type"], "task");
        assert!(se["instructions"].as_str().unwrap().contains("verify"));
        assert!(v["agents"][1].get("instructions").is_none());
        assert!(tool.check_args(&json!({"type": "cron"})).is_err());
        assert_eq!(
            Tool::describe(
                &tool,
                &json!({"type": "agents"}),
                ToolDescriptionLength::Short
            ),
            "list_items agents"
        );
    }
}
