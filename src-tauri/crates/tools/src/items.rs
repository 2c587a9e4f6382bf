//! `list_items` and `toggle_item`: one tool each over every kind of item
//! Skald has (agents, cron jobs, MCP servers, later plugins). A feature
//! contributes an [`ItemSource`] for its kind instead of its own copy of the
//! tools, so the model sees one `list_items` whose `type` names every kind.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use skald_core_api::{
    BoxFuture, Tool, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, parse_args,
};

use crate::tool_names as tn;

/// One kind of item: how to list it and, if it can be, toggle one.
pub trait ItemSource: Send + Sync {
    /// The `type` of `list_items` / `kind` of `toggle_item` (`mcp`, `cron`).
    fn kind(&self) -> &str;

    /// One line on what the listing holds, for the tool's description.
    fn about(&self) -> &str;

    /// The items as JSON.
    fn list(&self) -> BoxFuture<'_, Result<Value, String>>;

    /// Whether `toggle_item` applies to this kind.
    fn toggles(&self) -> bool {
        false
    }

    /// Enables or disables the item named `name`; the message for the model.
    fn toggle<'a>(&'a self, name: &'a str, enabled: bool) -> BoxFuture<'a, Result<String, String>> {
        let _ = (name, enabled);
        let kind = self.kind().to_string();
        Box::pin(std::future::ready(Err(format!(
            "items of kind `{kind}` cannot be toggled"
        ))))
    }
}

fn kinds(sources: &[Arc<dyn ItemSource>], toggling: bool) -> Vec<String> {
    sources
        .iter()
        .filter(|s| !toggling || s.toggles())
        .map(|s| s.kind().to_string())
        .collect()
}

fn find<'a>(
    sources: &'a [Arc<dyn ItemSource>],
    tool: &str,
    kind: &str,
    toggling: bool,
) -> Result<&'a Arc<dyn ItemSource>, ToolError> {
    sources
        .iter()
        .find(|s| s.kind() == kind && (!toggling || s.toggles()))
        .ok_or_else(|| ToolError::InvalidArguments {
            tool: tool.to_string(),
            reason: format!(
                "unknown kind `{kind}`; one of: {}",
                kinds(sources, toggling).join(", ")
            ),
        })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListInput {
    #[serde(rename = "type")]
    kind: String,
}

/// `list_items(type)`.
pub struct ListItems {
    sources: Vec<Arc<dyn ItemSource>>,
    description: String,
}

impl ListItems {
    pub fn new(sources: Vec<Arc<dyn ItemSource>>) -> Self {
        let about: Vec<String> = sources
            .iter()
            .map(|s| format!("`{}`: {}", s.kind(), s.about()))
            .collect();
        let description = format!(
            "List parts of Skald's own setup as JSON, by type. {}",
            about.join(" ")
        );
        Self {
            sources,
            description,
        }
    }
}

impl Tool for ListItems {
    fn name(&self) -> &str {
        tn::LIST_ITEMS
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"type": {"type": "string", "enum": kinds(&self.sources, false),
                                    "description": "What to list."}},
            "required": ["type"],
            "additionalProperties": false,
        })
    }
    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        let i: ListInput = parse_args(tn::LIST_ITEMS, args.clone())?;
        find(&self.sources, tn::LIST_ITEMS, &i.kind, false).map(|_| ())
    }
    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let i: ListInput = parse_args(tn::LIST_ITEMS, args)?;
            let source = find(&self.sources, tn::LIST_ITEMS, &i.kind, false)?;
            let items = source.list().await.map_err(ToolError::Failed)?;
            let mut out = serde_json::Map::new();
            out.insert(i.kind, items);
            serde_json::to_string_pretty(&Value::Object(out))
                .map_err(|e| ToolError::failed(e.to_string()))
        })
    }
    fn describe(&self, args: &Value, _length: ToolDescriptionLength) -> String {
        match args.get("type").and_then(Value::as_str) {
            Some(t) => format!("{} {t}", tn::LIST_ITEMS),
            None => tn::LIST_ITEMS.to_string(),
        }
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToggleInput {
    kind: String,
    name: String,
    enabled: bool,
}

/// `toggle_item(kind, name, enabled)`.
pub struct ToggleItem {
    sources: Vec<Arc<dyn ItemSource>>,
    description: String,
}

impl ToggleItem {
    pub fn new(sources: Vec<Arc<dyn ItemSource>>) -> Self {
        let kinds = kinds(&sources, true)
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let description = format!(
            "Enables or disables an item (kind {kinds}); `name` as `list_items` shows it (a cron \
             job by its id or title; a disabled cron job is never due, a disabled MCP server is \
             disconnected)."
        );
        Self {
            sources,
            description,
        }
    }
}

impl Tool for ToggleItem {
    fn name(&self) -> &str {
        tn::TOGGLE_ITEM
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": kinds(&self.sources, true)},
                "name": {"type": "string"},
                "enabled": {"type": "boolean"},
            },
            "required": ["kind", "name", "enabled"],
            "additionalProperties": false,
        })
    }
    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        let i: ToggleInput = parse_args(tn::TOGGLE_ITEM, args.clone())?;
        find(&self.sources, tn::TOGGLE_ITEM, &i.kind, true).map(|_| ())
    }
    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let i: ToggleInput = parse_args(tn::TOGGLE_ITEM, args)?;
            let source = find(&self.sources, tn::TOGGLE_ITEM, &i.kind, true)?;
            source
                .toggle(&i.name, i.enabled)
                .await
                .map_err(ToolError::Failed)
        })
    }
    fn describe(&self, args: &Value, _length: ToolDescriptionLength) -> String {
        let kind = args.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = args.get("name").and_then(Value::as_str).unwrap_or("");
        let on = match args.get("enabled").and_then(Value::as_bool) {
            Some(true) => " on",
            Some(false) => " off",
            None => "",
        };
        format!("{} {kind} {name}{on}", tn::TOGGLE_ITEM)
            .trim_end()
            .to_string()
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Config
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    struct Fixed(&'static str, bool);
    impl ItemSource for Fixed {
        fn kind(&self) -> &str {
            self.0
        }
        fn about(&self) -> &str {
            "test items"
        }
        fn list(&self) -> BoxFuture<'_, Result<Value, String>> {
            Box::pin(std::future::ready(Ok(json!([{"name": "a"}]))))
        }
        fn toggles(&self) -> bool {
            self.1
        }
        fn toggle<'a>(
            &'a self,
            name: &'a str,
            enabled: bool,
        ) -> BoxFuture<'a, Result<String, String>> {
            Box::pin(std::future::ready(Ok(format!("{name} {enabled}"))))
        }
    }

    #[tokio::test]
    async fn one_tool_per_verb_over_every_kind() {
        let sources: Vec<Arc<dyn ItemSource>> = vec![
            Arc::new(Fixed("agents", false)),
            Arc::new(Fixed("cron", true)),
        ];
        let list = ListItems::new(sources.clone());
        assert_eq!(
            list.parameters_schema()["properties"]["type"]["enum"],
            json!(["agents", "cron"])
        );
        let out = list.execute_async(json!({"type": "cron"})).await.unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&out).unwrap(),
            json!({"cron": [{"name": "a"}]})
        );
        let e = list.check_args(&json!({"type": "plugins"})).unwrap_err();
        assert!(e.to_string().contains("one of: agents, cron"), "{e}");

        let toggle = ToggleItem::new(sources);
        assert_eq!(
            toggle.parameters_schema()["properties"]["kind"]["enum"],
            json!(["cron"])
        );
        assert!(
            toggle
                .check_args(&json!({"kind": "agents", "name": "x", "enabled": true}))
                .is_err()
        );
        let out = toggle
            .execute_async(json!({"kind": "cron", "name": "3", "enabled": false}))
            .await
            .unwrap();
        assert_eq!(out, "3 false");
    }
}
