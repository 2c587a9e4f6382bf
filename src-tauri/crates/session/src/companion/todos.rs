//! `write_todos(todos)`: the calling agent's private checklist. Stateless,
//! as the spec has it: the agent re-sends the whole list with statuses on
//! every call and the formatted checklist is the result, so it lives only in
//! that agent's own history (a sub-agent's list never reaches its caller).
//! The UI reads each frame's latest call for its Todos panel.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skald_core_api::{
    ToolCategory, ToolDescriptionLength, ToolError, ToolPresentation, ToolResult, TypedTool,
};
use skald_tools::tool_names as tn;

/// Most items in one list.
pub const MAX_TODOS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Todo {
    /// What to do, one line.
    pub content: String,
    /// `pending`, `in_progress` (at most one item) or `completed`.
    pub status: TodoStatus,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteTodosInput {
    /// The whole list, in order, every time.
    pub todos: Vec<Todo>,
}

/// The private checklist tool; the same for every frame.
#[derive(Clone)]
pub struct WriteTodos;

/// The todos of a stored `write_todos` call's arguments, if well formed.
pub fn parse_todos(args: &Value) -> Option<Vec<Todo>> {
    serde_json::from_value::<WriteTodosInput>(args.clone())
        .ok()
        .map(|i| i.todos)
}

fn check(todos: &[Todo]) -> Result<(), String> {
    if todos.len() > MAX_TODOS {
        return Err(format!(
            "{} todos; a list holds at most {MAX_TODOS}",
            todos.len()
        ));
    }
    if let Some(n) = todos.iter().position(|t| t.content.trim().is_empty()) {
        return Err(format!("todo {} has empty content", n + 1));
    }
    let active: Vec<usize> = todos
        .iter()
        .enumerate()
        .filter(|(_, t)| t.status == TodoStatus::InProgress)
        .map(|(i, _)| i + 1)
        .collect();
    if active.len() > 1 {
        let list: Vec<String> = active.iter().map(usize::to_string).collect();
        return Err(format!(
            "at most one todo may be in_progress; todos {} all are. Mark the others pending or completed",
            list.join(", ")
        ));
    }
    Ok(())
}

/// The checklist as the agent (and the card) reads it.
pub fn format_todos(todos: &[Todo]) -> String {
    if todos.is_empty() {
        return "Todo list cleared.".to_string();
    }
    let done = todos
        .iter()
        .filter(|t| t.status == TodoStatus::Completed)
        .count();
    let mut out = format!("Todos ({done}/{} completed):\n", todos.len());
    for t in todos {
        let mark = match t.status {
            TodoStatus::Pending => "[ ]",
            TodoStatus::InProgress => "[~]",
            TodoStatus::Completed => "[x]",
        };
        out.push_str(mark);
        out.push(' ');
        out.push_str(t.content.trim());
        if t.status == TodoStatus::InProgress {
            out.push_str(" (in progress)");
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}

impl TypedTool for WriteTodos {
    type Input = WriteTodosInput;

    fn name(&self) -> &str {
        tn::WRITE_TODOS
    }

    fn description(&self) -> &str {
        "Keeps your private todo list for multi-step work. Send the WHOLE list every time, in \
         order, each item with a status: pending, in_progress (at most one) or completed. Only \
         you see it (not sub-agents, not your caller); the person sees your progress."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    /// The Todos panel reads the calls of tools presented as todo lists.
    fn presentation(&self) -> ToolPresentation {
        ToolPresentation::Todos
    }

    fn validate(&self, input: &WriteTodosInput) -> Result<(), ToolError> {
        check(&input.todos).map_err(|r| self.invalid(r))
    }

    fn run(&self, input: WriteTodosInput) -> ToolResult {
        Ok(format_todos(&input.todos))
    }

    fn run_async(&self, input: WriteTodosInput) -> skald_core_api::BoxFuture<'static, ToolResult> {
        // Pure formatting: no need for the blocking pool.
        Box::pin(std::future::ready(Ok(format_todos(&input.todos))))
    }

    fn describe(&self, args: &Value, _length: ToolDescriptionLength) -> String {
        match parse_todos(args) {
            Some(todos) if !todos.is_empty() => {
                let done = todos
                    .iter()
                    .filter(|t| t.status == TodoStatus::Completed)
                    .count();
                format!("{} ({done}/{} done)", tn::WRITE_TODOS, todos.len())
            }
            _ => tn::WRITE_TODOS.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use skald_core_api::Tool;

    #[test]
    fn formats_progress_and_refuses_two_in_progress() {
        let tool: &dyn Tool = &WriteTodos;
        let ok = json!({"todos": [
            {"content": "read", "status": "completed"},
            {"content": "write", "status": "in_progress"},
            {"content": "test", "status": "pending"}
        ]});
        assert_eq!(
            tool.execute(ok.clone()).unwrap(),
            "Todos (1/3 completed):\n[x] read\n[~] write (in progress)\n[ ] test"
        );
        assert_eq!(
            tool.describe(&ok, ToolDescriptionLength::Short),
            "write_todos (1/3 done)"
        );
        let two = json!({"todos": [
            {"content": "a", "status": "in_progress"},
            {"content": "b", "status": "in_progress"}
        ]});
        let e = tool.check_args(&two).unwrap_err().to_string();
        assert!(
            e.contains("at most one todo may be in_progress; todos 1, 2"),
            "{e}"
        );
        let unknown = json!({"todos": [{"content": "a", "status": "doing"}]});
        let e = tool.check_args(&unknown).unwrap_err().to_string();
        assert!(e.contains("doing") && e.contains("in_progress"), "{e}");
    }
}
