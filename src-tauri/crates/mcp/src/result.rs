//! A `tools/call` result as Skald keeps it: text for the model, the other
//! content blocks (images, resource links, embedded resources, structured
//! content) as [`ContentBlock`]s. Read from the result's JSON, so every
//! protocol version's spelling of a block is handled in one place.

use rmcp::model::CallToolResult;
use serde_json::Value;
use skald_core_api::{ContentBlock, ToolOutput};

use crate::McpError;

/// `isError: true` is a failed call whose text the model reads.
pub(crate) fn to_output(result: &CallToolResult) -> Result<ToolOutput, McpError> {
    let v = serde_json::to_value(result).map_err(|e| McpError::Call(e.to_string()))?;
    let out = output_from_json(&v);
    if v.get("isError").and_then(Value::as_bool) == Some(true) {
        let msg = if out.text.is_empty() {
            "the tool reported an error without a message".to_string()
        } else {
            out.text_for_model(false)
        };
        return Err(McpError::ToolFailed(msg));
    }
    Ok(out)
}

/// The blocks of a result's JSON (`content`, `structuredContent`).
pub fn output_from_json(v: &Value) -> ToolOutput {
    let mut texts: Vec<String> = Vec::new();
    let mut out = ToolOutput::default();
    for block in v
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let s = |k: &str| block.get(k).and_then(Value::as_str).map(str::to_string);
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(s("text").unwrap_or_default()),
            Some("image") => out.blocks.push(ContentBlock::Image {
                mime: s("mimeType").unwrap_or_else(|| "image/png".into()),
                data_base64: s("data").unwrap_or_default(),
            }),
            Some("audio") => texts.push(format!(
                "[audio: {}]",
                s("mimeType").unwrap_or_else(|| "audio".into())
            )),
            Some("resource_link") => out.blocks.push(ContentBlock::ResourceLink {
                uri: s("uri").unwrap_or_default(),
                name: s("name"),
                mime: s("mimeType"),
            }),
            Some("resource") => {
                let r = block.get("resource").cloned().unwrap_or(Value::Null);
                let uri = r.get("uri").and_then(Value::as_str).unwrap_or_default();
                let mime = r.get("mimeType").and_then(Value::as_str);
                let blob = r.get("blob").and_then(Value::as_str);
                match (r.get("text").and_then(Value::as_str), blob, mime) {
                    // Embedded text is what the model needs to read.
                    (Some(text), _, _) => texts.push(format!("[resource {uri}]\n{text}")),
                    // An embedded image is an image, wherever it came from.
                    (None, Some(data), Some(m)) if m.starts_with("image/") => {
                        out.blocks.push(ContentBlock::Image {
                            mime: m.to_string(),
                            data_base64: data.to_string(),
                        });
                    }
                    _ => out.blocks.push(ContentBlock::ResourceLink {
                        uri: uri.to_string(),
                        name: None,
                        mime: mime.map(str::to_string),
                    }),
                }
            }
            _ => out.blocks.push(ContentBlock::Json {
                value: block.clone(),
            }),
        }
    }
    if let Some(sc) = v.get("structuredContent").filter(|s| !s.is_null()) {
        // Servers usually repeat structured content as text; keep the JSON
        // as a block only when the text does not already say it.
        let as_text = sc.to_string();
        let said = texts.iter().any(|t| {
            serde_json::from_str::<Value>(t).ok().as_ref() == Some(sc) || t.contains(&as_text)
        });
        if !said {
            out.blocks.push(ContentBlock::Json { value: sc.clone() });
        }
    }
    out.text = texts.join("\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_are_kept_and_structured_content_not_doubled() {
        let v = json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
                {"type": "resource", "resource": {"uri": "test://r", "text": "inside"}}
            ],
            "structuredContent": {"n": 1}
        });
        let out = output_from_json(&v);
        assert_eq!(out.text, "hello\n[resource test://r]\ninside");
        assert_eq!(out.blocks.len(), 3);
        assert!(matches!(out.blocks[0], ContentBlock::Image { .. }));
        assert_eq!(
            out.blocks[2],
            ContentBlock::Json {
                value: json!({"n": 1})
            }
        );
        let blob = json!({"content": [
            {"type": "resource", "resource": {"uri": "test://i", "mimeType": "image/gif", "blob": "R0lG"}},
            {"type": "resource", "resource": {"uri": "test://z", "mimeType": "application/gzip", "blob": "H4s"}}
        ]});
        let out = output_from_json(&blob);
        assert_eq!(
            out.blocks,
            [
                ContentBlock::Image {
                    mime: "image/gif".into(),
                    data_base64: "R0lG".into()
                },
                ContentBlock::ResourceLink {
                    uri: "test://z".into(),
                    name: None,
                    mime: Some("application/gzip".into())
                }
            ]
        );
        let v = json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}});
        assert!(output_from_json(&v).blocks.is_empty());
    }
}
