//! Provider settings as the Settings page shows and edits them. API keys go
//! in and never come back out: the UI only learns whether one is stored.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A provider's wire protocol — one enum for IPC, the `providers.kind`
/// column and the environment's endpoints (`openai`, `anthropic`, `ollama`
/// everywhere). Named `ProviderKindView` in the TypeScript bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(rename = "ProviderKindView")]
pub enum ProviderKind {
    /// OpenAI-compatible chat completions.
    OpenAi,
    /// Anthropic messages.
    Anthropic,
    /// Ollama.
    Ollama,
}

impl ProviderKind {
    pub const ALL: [Self; 3] = [Self::OpenAi, Self::Anthropic, Self::Ollama];

    /// The wire and column text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Ollama => "ollama",
        }
    }

    /// Parses the wire/column text; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider kind text that names none (a damaged row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProviderKind(pub String);

impl std::fmt::Display for UnknownProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown provider kind {:?}", self.0)
    }
}

impl std::error::Error for UnknownProviderKind {}

/// What the store decodes its text column with.
impl TryFrom<String> for ProviderKind {
    type Error = UnknownProviderKind;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s).ok_or(UnknownProviderKind(s))
    }
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
    /// Whether images in tool results are sent to it (`llm.send_images`);
    /// absent: sent when the provider takes images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub send_images: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    pub id: String,
    pub kind: ProviderKind,
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
    pub kind: ProviderKind,
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
    pub kind: ProviderKind,
    pub base_url: String,
    pub has_api_key: bool,
    pub models: Vec<String>,
    /// Why the models could not be listed (then `models` is empty).
    pub error: Option<String>,
    /// The model picked for it, remembered across launches.
    pub chosen: Option<String>,
}

/// What the Settings page's "edit provider" form sends. The kind stays as
/// it was added (a different protocol is a different provider).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderEditInput {
    pub name: String,
    /// `None`: the kind's default (or the environment's).
    pub base_url: Option<String>,
    /// `None` (or blank) keeps the stored key; see `clear_api_key`.
    pub api_key: Option<String>,
    /// Forgets the stored key (an endpoint that needs none).
    #[serde(default)]
    pub clear_api_key: bool,
    /// The model to use with it: added if new, made the default when this
    /// provider holds the default (or nothing does).
    pub model: String,
}

/// What "Test connection" found: the endpoint's model list, or why there
/// is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderTestView {
    /// The URL asked (the provider's base URL, or the default it falls back to).
    pub base_url: String,
    pub ok: bool,
    pub models: Vec<String>,
    pub error: Option<String>,
    #[ts(type = "number")]
    pub elapsed_ms: u64,
}
