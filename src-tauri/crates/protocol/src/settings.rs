//! Provider settings as the Settings page shows and edits them. API keys go
//! in and never come back out: the UI only learns whether one is stored.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKindView {
    Openai,
    Anthropic,
    Ollama,
}

/// How much a model should reason, where its API lets a client say (Anthropic's thinking
/// budget, OpenAI-style reasoning effort, Ollama's `think`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningSetting {
    Off,
    Low,
    Medium,
    High,
}

impl ReasoningSetting {
    /// The stored text (`models.reasoning`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// Parses the stored text.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "off" => Some(Self::Off),
            "low" => Some(Self::Low),
            "medium" => Some(Self::Medium),
            "high" => Some(Self::High),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    #[ts(type = "number")]
    pub id: i64,
    pub name: String,
    pub is_default: bool,
    /// `None`: the provider's default.
    #[serde(default)]
    pub reasoning: Option<ReasoningSetting>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    pub id: String,
    pub kind: ProviderKindView,
    pub name: String,
    pub base_url: Option<String>,
    pub has_api_key: bool,
    pub enabled: bool,
    pub models: Vec<ModelView>,
}

/// What the "add provider" form sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NewProviderInput {
    pub kind: ProviderKindView,
    pub name: String,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    /// The model to add and make the default.
    pub model: String,
}

/// An Ollama server found on this machine at its default address, with the
/// models it has pulled: offered on the Settings page (and used on its own
/// when nothing else is configured).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LocalOllamaView {
    pub base_url: String,
    pub models: Vec<String>,
}

/// An endpoint the environment configures (`OPENAI_BASE_URL`,
/// `ANTHROPIC_API_KEY`, `OLLAMA_HOST`), with the models it lists, so the
/// person can pick one without adding a provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EnvEndpointView {
    pub kind: ProviderKindView,
    pub base_url: String,
    pub has_api_key: bool,
    pub models: Vec<String>,
    /// Why the models could not be listed (then `models` is empty).
    pub error: Option<String>,
    /// The model picked for it, remembered across launches.
    pub chosen: Option<String>,
}
