//! The non-text parts of a tool result, as cards show them and the store
//! keeps them: an image, a link to a file or URI, structured JSON.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One non-text part of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ContentBlock {
    /// Image bytes, base64 in JSON.
    Image { mime: String, data_base64: String },
    /// A file or URI the result points at (opens in the viewer).
    ResourceLink {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        mime: Option<String>,
    },
    /// Structured content.
    Json { value: serde_json::Value },
}
