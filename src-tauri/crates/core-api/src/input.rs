//! Typed tool inputs: the JSON schema offered to the model is generated from
//! the same struct the arguments are parsed into, so they cannot disagree.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ToolError;
use crate::arg_error;

/// The JSON schema of an input type, in the shape LLM function calling wants
/// (`{"type":"object","properties":…,"required":…}`), without `$schema`/`title`
/// noise.
pub fn input_schema<T: JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft07().with(|s| {
        s.inline_subschemas = true;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(obj) = value.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
        obj.remove("definitions");
        obj.remove("$defs");
        obj.entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
    }
    value
}

/// Parses a tool's arguments into its input type. A violation is an
/// [`ToolError::InvalidArguments`] naming the field, never a panic.
/// `null` is read as "no arguments" (`{}`), which some models send.
pub fn parse_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    let args = match args {
        Value::Null => Value::Object(Default::default()),
        Value::Object(_) => args,
        other => {
            return Err(ToolError::InvalidArguments {
                tool: tool.to_string(),
                reason: format!("expected a JSON object, got {}", json_kind(&other)),
            });
        }
    };
    // From a reference so the input is still there to point into when the
    // message is written; the path is what serde_json alone does not give.
    serde_path_to_error::deserialize(&args).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_string(),
        reason: arg_error::describe(&e, &args),
    })
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// Input of a pretend tool.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Input {
        /// The file to read.
        path: String,
        #[serde(default)]
        limit: Option<u32>,
        #[serde(default)]
        start_line: Option<u64>,
        #[serde(default)]
        todos: Vec<Todo>,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Todo {
        content: String,
        status: Status,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Status {
        Pending,
        InProgress,
        Completed,
    }

    /// The reason `parse_args` gives for `args`, asserted to be one line.
    fn reason(args: Value) -> String {
        let e = parse_args::<Input>("t", args).unwrap_err();
        assert!(e.is_invalid_arguments(), "{e:?}");
        let ToolError::InvalidArguments { tool, reason } = e else {
            unreachable!()
        };
        assert_eq!(tool, "t");
        assert!(!reason.contains(['\n', '\r', '\0']), "{reason:?}");
        reason
    }

    const FIELDS: &str = "expected one of: path, limit, start_line, todos";

    #[test]
    fn schema_has_properties_required_and_doc_comments() {
        let s = input_schema::<Input>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["path"]));
        assert_eq!(s["properties"]["path"]["description"], "The file to read.");
        assert!(s.get("$schema").is_none());
        assert!(s.get("title").is_none());
    }

    #[test]
    fn the_message_keeps_the_tool_name() {
        let e = parse_args::<Input>("t", json!({})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid arguments for t: missing field `path`"
        );
    }

    #[test]
    fn wrong_types_name_the_field_and_both_kinds() {
        let cases = [
            (
                json!({"path": "a", "start_line": "5"}),
                "start_line: expected a number (integer ≥ 0), got a string",
            ),
            (json!({"path": 3}), "path: expected a string, got a number"),
            (json!({"path": null}), "path: expected a string, got null"),
            (
                json!({"path": ["a"]}),
                "path: expected a string, got an array",
            ),
            (
                json!({"path": {"a": 1}}),
                "path: expected a string, got an object",
            ),
            (
                json!({"path": true}),
                "path: expected a string, got a boolean",
            ),
            (
                json!({"path": "a", "start_line": 1.5}),
                "start_line: expected a number (integer ≥ 0), got a number with a fraction (1.5)",
            ),
            (
                json!({"path": "a", "todos": "x"}),
                "todos: expected an array, got a string",
            ),
        ];
        for (args, want) in cases {
            assert_eq!(reason(args), want);
        }
    }

    #[test]
    fn out_of_range_numbers_say_the_range_and_the_number() {
        assert_eq!(
            reason(json!({"path": "a", "start_line": -1})),
            "start_line: expected a number (integer ≥ 0), got -1"
        );
        assert_eq!(
            reason(json!({"path": "a", "limit": 5_000_000_000u64})),
            "limit: expected a number (integer 0 to 4294967295), got 5000000000"
        );
    }

    #[test]
    fn missing_and_unknown_fields_keep_serdes_names() {
        assert_eq!(reason(json!({})), "missing field `path`");
        assert_eq!(
            reason(json!({"path": "a", "nope": 1})),
            format!("unknown field `nope`; {FIELDS}")
        );
    }

    #[test]
    fn nested_fields_are_named_by_their_path() {
        let todo = json!({"content": "x", "status": "pending"});
        let with = |bad: Value| json!({"path": "a", "todos": [todo, todo, bad]});
        assert_eq!(
            reason(with(json!({"content": "x", "status": "finished"}))),
            "todos[2].status: expected one of \"pending\", \"in_progress\", \"completed\", \
             got \"finished\""
        );
        assert_eq!(
            reason(with(json!({"content": "x", "status": 2}))),
            "todos[2].status: expected a string, got a number"
        );
        assert_eq!(
            reason(with(json!({"content": "x"}))),
            "todos[2]: missing field `status`"
        );
        assert_eq!(
            reason(with(json!({"content": "x", "status": "pending", "due": 1}))),
            "todos[2]: unknown field `due`; expected one of: content, status"
        );
    }

    #[test]
    fn a_megabyte_value_is_not_echoed() {
        let big = "5".repeat(1 << 20);
        assert_eq!(
            reason(json!({"path": big, "start_line": big})),
            "start_line: expected a number (integer ≥ 0), got a string"
        );
        let cut = "5".repeat(60);
        let todos = json!([{"content": "x", "status": big}]);
        assert_eq!(
            reason(json!({"path": "a", "todos": todos})),
            format!(
                "todos[0].status: expected one of \"pending\", \"in_progress\", \"completed\", \
                 got \"{cut}\"… (1048576 characters)"
            )
        );
        let mut args = serde_json::Map::new();
        args.insert(big.clone(), json!(1));
        assert_eq!(
            reason(Value::Object(args)),
            format!("unknown field `{cut}… (1048576 characters)`; {FIELDS}")
        );
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        let mut args = serde_json::Map::new();
        args.insert("a\0b\r\nc\u{1b}[2J\u{202e}".into(), json!(1));
        assert_eq!(
            reason(Value::Object(args)),
            format!("unknown field `a\\0b\\r\\nc\\u{{1b}}[2J\\u{{202e}}`; {FIELDS}")
        );
        let todos = json!([{"content": "x", "status": "don\"e\0\r"}]);
        assert_eq!(
            reason(json!({"path": "a", "todos": todos})),
            "todos[0].status: expected one of \"pending\", \"in_progress\", \"completed\", \
             got \"don\\\"e\\0\\r\""
        );
    }

    #[test]
    fn a_non_object_is_refused_whole() {
        assert_eq!(reason(json!([1])), "expected a JSON object, got an array");
    }

    #[test]
    fn parse_accepts_valid_and_null_means_empty() {
        let ok = parse_args::<Input>("t", json!({"path": "a", "limit": 5})).unwrap();
        assert_eq!(
            ok,
            Input {
                path: "a".into(),
                limit: Some(5),
                start_line: None,
                todos: Vec::new(),
            }
        );
        assert_eq!(reason(Value::Null), "missing field `path`");
    }
}
