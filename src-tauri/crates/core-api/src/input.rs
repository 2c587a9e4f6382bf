//! Typed tool inputs: the JSON schema offered to the model is generated from
//! the same struct the arguments are parsed into, so they cannot disagree.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ToolError;

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
    serde_json::from_value(args).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_string(),
        reason: e.to_string(),
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
    }

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
    fn parse_reports_missing_wrong_type_and_unknown_fields() {
        let e = parse_args::<Input>("t", json!({})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid arguments for t: missing field `path`"
        );
        let e = parse_args::<Input>("t", json!({"path": 3})).unwrap_err();
        assert!(e.to_string().contains("invalid type: integer `3`"), "{e}");
        let e = parse_args::<Input>("t", json!({"path": "a", "nope": 1})).unwrap_err();
        assert!(e.to_string().contains("unknown field `nope`"), "{e}");
        let e = parse_args::<Input>("t", json!([1])).unwrap_err();
        assert!(
            e.to_string()
                .contains("expected a JSON object, got an array")
        );
        assert!(e.is_invalid_arguments());
    }

    #[test]
    fn parse_accepts_valid_and_null_means_empty() {
        let ok = parse_args::<Input>("t", json!({"path": "a", "limit": 5})).unwrap();
        assert_eq!(
            ok,
            Input {
                path: "a".into(),
                limit: Some(5)
            }
        );
        assert!(parse_args::<Input>("t", Value::Null).is_err());
    }
}
