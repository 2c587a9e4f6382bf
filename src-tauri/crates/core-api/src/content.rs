//! Rich tool results: an outcome may carry content blocks besides its text
//! (an image a tool made, a link to a file it wrote, structured JSON), so
//! MCP results and generated files reach the card and the viewer intact.
//! The model always gets text; [`ToolOutput::text_for_model`] says in words
//! what a provider without image input cannot see.

use serde::{Deserialize, Serialize};
pub use skald_protocol::ContentBlock;

/// What a finished call produced: the text the model reads and any blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutput {
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<ContentBlock>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            blocks: Vec::new(),
        }
    }

    pub fn with_block(mut self, block: ContentBlock) -> Self {
        self.blocks.push(block);
        self
    }

    /// The text for a model; each block it cannot take as such is named in
    /// a line of its own (`[image: image/png, 12 KB]`, `[file: /x/out.svg]`).
    pub fn text_for_model(&self, accepts_images: bool) -> String {
        let mut out = self.text.clone();
        for b in &self.blocks {
            let note = match b {
                ContentBlock::Image { .. } if accepts_images => continue,
                ContentBlock::Image { mime, data_base64 } => {
                    format!("[image: {mime}, {} KB]", data_base64.len() * 3 / 4 / 1024)
                }
                ContentBlock::ResourceLink { uri, .. } => format!("[file: {uri}]"),
                ContentBlock::Json { value } => value.to_string(),
            };
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&note);
        }
        out
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_become_words_for_a_text_only_model() {
        let out = ToolOutput::text("made a chart")
            .with_block(ContentBlock::Image {
                mime: "image/png".into(),
                data_base64: "A".repeat(4096),
            })
            .with_block(ContentBlock::ResourceLink {
                uri: "/w/chart.svg".into(),
                name: None,
                mime: None,
            })
            .with_block(ContentBlock::Json {
                value: json!({"n": 1}),
            });
        assert_eq!(
            out.text_for_model(false),
            "made a chart\n[image: image/png, 3 KB]\n[file: /w/chart.svg]\n{\"n\":1}"
        );
        assert_eq!(
            out.text_for_model(true),
            "made a chart\n[file: /w/chart.svg]\n{\"n\":1}"
        );
        let v = serde_json::to_value(&out).unwrap();
        assert_eq!(v["blocks"][1]["type"], "resource_link");
        assert_eq!(serde_json::from_value::<ToolOutput>(v).unwrap(), out);
    }
}
