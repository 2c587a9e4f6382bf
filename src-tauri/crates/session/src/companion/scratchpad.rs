//! `update_scratchpad(key, value)`: one entry of the session's shared
//! scratchpad (persisted; an empty value deletes the key), and the block
//! every agent of the session reads it in, right after its static prompt.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, TypedTool,
    truncate_label,
};
use skald_store::{ScratchpadEntry, Store};
use skald_tools::tool_names as tn;

/// Longest key, in characters.
pub const MAX_KEY_CHARS: usize = 100;
/// Largest value, in bytes: the block rides along in every request.
pub const MAX_VALUE_BYTES: usize = 16 * 1024;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateScratchpadInput {
    /// The entry's name (e.g. `plan`, `open_questions`).
    pub key: String,
    /// Its new text; an empty value deletes the entry.
    pub value: String,
}

/// Writes one scratchpad entry of the session it was built for.
#[derive(Clone)]
pub struct UpdateScratchpad {
    store: Store,
    session_id: String,
}

impl UpdateScratchpad {
    pub fn new(store: Store, session_id: String) -> Self {
        Self { store, session_id }
    }
}

impl TypedTool for UpdateScratchpad {
    type Input = UpdateScratchpadInput;

    fn name(&self) -> &str {
        tn::UPDATE_SCRATCHPAD
    }

    fn description(&self) -> &str {
        "Writes one entry of this session's shared scratchpad: a blackboard every agent of the \
         session (you, sub-agents, their tasks) sees at the top of each request, and the person \
         sees and may edit. Use it for facts, decisions and plans others need; an empty value \
         deletes the key."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    fn validate(&self, input: &UpdateScratchpadInput) -> Result<(), ToolError> {
        let key = input.key.trim();
        if key.is_empty() {
            return Err(self.invalid("key is empty: name the entry"));
        }
        if key.chars().count() > MAX_KEY_CHARS {
            return Err(self.invalid(format!("key is longer than {MAX_KEY_CHARS} characters")));
        }
        if key.chars().any(char::is_control) {
            return Err(self.invalid("key contains control characters"));
        }
        if input.value.len() > MAX_VALUE_BYTES {
            return Err(self.invalid(format!(
                "value is {} bytes; an entry holds at most {MAX_VALUE_BYTES}",
                input.value.len()
            )));
        }
        Ok(())
    }

    fn run_async(&self, input: UpdateScratchpadInput) -> BoxFuture<'static, ToolResult> {
        let (store, sid) = (self.store.clone(), self.session_id.clone());
        Box::pin(async move {
            let key = input.key.trim().to_string();
            let repo = store.scratchpad();
            let failed = |e: skald_store::StoreError| {
                ToolError::Failed(format!("the scratchpad could not be written: {e}"))
            };
            if input.value.trim().is_empty() {
                let existed = repo.remove_entry(&sid, &key).await.map_err(failed)?;
                return Ok(if existed {
                    format!("Removed `{key}` from the scratchpad.")
                } else {
                    format!("The scratchpad has no `{key}`; nothing removed.")
                });
            }
            repo.set_entry(&sid, &key, &input.value)
                .await
                .map_err(failed)?;
            Ok(format!(
                "Scratchpad `{key}` saved; every agent of the session sees it from its next request."
            ))
        })
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let key = args.get("key").and_then(Value::as_str).unwrap_or("").trim();
        let deleting = args
            .get("value")
            .and_then(Value::as_str)
            .is_some_and(|v| v.trim().is_empty());
        let label = match (key.is_empty(), deleting) {
            (true, _) => tn::UPDATE_SCRATCHPAD.to_string(),
            (false, true) => format!("{} `{key}` (delete)", tn::UPDATE_SCRATCHPAD),
            (false, false) => format!("{} `{key}`", tn::UPDATE_SCRATCHPAD),
        };
        truncate_label(&label, length.max_chars())
    }
}

/// The scratchpad as the block after the static prompt; `None` when empty.
pub fn scratchpad_block(entries: &[ScratchpadEntry]) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let mut out = String::from(
        "<scratchpad>\nThe session's shared scratchpad: every agent of this session sees it, \
         and the person may edit it. Change it with update_scratchpad.\n",
    );
    for e in entries {
        out.push_str("\n## ");
        out.push_str(&e.key);
        out.push('\n');
        out.push_str(e.value.trim_end());
        out.push('\n');
    }
    out.push_str("</scratchpad>");
    Some(out)
}
