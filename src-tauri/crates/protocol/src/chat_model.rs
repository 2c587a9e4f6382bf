//! A chat's own model: what the chat header's switcher offers and shows.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One model a chat can ask: a provider's id, its display name and the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoiceView {
    /// The provider's id (`env:openai`, `env:anthropic`, `env:ollama` for an
    /// endpoint set up through environment variables).
    pub provider: String,
    /// How the person knows the provider ("OpenRouter", "environment (OpenAI)").
    pub provider_name: String,
    /// The model name as the provider knows it.
    pub model: String,
}

/// The models a chat may switch to, its own pick and the default it
/// follows without one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatModelsView {
    /// The chat's own model; `None`: it follows the default.
    pub chosen: Option<ModelChoiceView>,
    /// What a chat without its own pick asks, when one is set up.
    pub default: Option<ModelChoiceView>,
    /// Every model of every enabled provider: the stored ones and what each
    /// endpoint lists now.
    pub options: Vec<ModelChoiceView>,
    /// Providers whose list could not be read now ("work: connection refused").
    pub errors: Vec<String>,
}
