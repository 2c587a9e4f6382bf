//! [`ToolDef`]: what the model is offered for one tool — its name, what it
//! is for, and the JSON Schema of its arguments. Typed, so the driver, the
//! visibility filter and discovery pass definitions around without reaching
//! into provider-shaped JSON; providers turn it into their own wire shape.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One tool definition as offered to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    /// A JSON Schema object (`{"type":"object","properties":…}`).
    pub parameters: Value,
}

impl ToolDef {
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
        }
    }

    /// The OpenAI function-calling shape (`{"type":"function","function":…}`).
    pub fn to_openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            }
        })
    }

    /// Reads either the OpenAI shape or a bare `{name, description,
    /// parameters}`; `None` without a name.
    pub fn from_openai(v: &Value) -> Option<Self> {
        let f = v.get("function").unwrap_or(v);
        let name = f.get("name")?.as_str()?.to_string();
        Some(Self {
            name,
            description: f
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            parameters: f
                .get("parameters")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
        })
    }
}

/// The name and description of a definition, whether typed or still the
/// OpenAI-shaped JSON a test or an import holds, so filters and discovery
/// take either without a conversion.
pub trait DefView {
    fn def_name(&self) -> Option<&str>;
    fn def_description(&self) -> Option<&str>;
}

impl DefView for ToolDef {
    fn def_name(&self) -> Option<&str> {
        Some(&self.name)
    }
    fn def_description(&self) -> Option<&str> {
        Some(&self.description)
    }
}

impl DefView for Value {
    fn def_name(&self) -> Option<&str> {
        self.get("function")
            .unwrap_or(self)
            .get("name")
            .and_then(Value::as_str)
    }
    fn def_description(&self) -> Option<&str> {
        self.get("function")
            .unwrap_or(self)
            .get("description")
            .and_then(Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_shape_round_trips() {
        let d = ToolDef::new("read_file", "Read a file", json!({"type": "object"}));
        let v = d.to_openai();
        assert_eq!(v["function"]["name"], "read_file");
        assert_eq!(ToolDef::from_openai(&v), Some(d.clone()));
        let bare = json!({"name": "read_file", "description": "Read a file", "parameters": {"type": "object"}});
        assert_eq!(ToolDef::from_openai(&bare), Some(d));
        assert_eq!(ToolDef::from_openai(&json!({"type": "function"})), None);
    }
}
