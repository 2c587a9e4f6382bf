//! The models an endpoint offers, for the person to pick from: OpenAI's
//! `GET /models` (also served by OpenRouter, vLLM, llama.cpp, LM Studio,
//! Groq, …), Anthropic's `GET /v1/models`, Ollama's `GET /api/tags`.
//! Without this, a provider set up through the environment alone has no
//! model to choose and every turn fails.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use crate::error::LlmError;
use crate::transport::{error_chain, header, http_client, http_error, join_url};

/// Listing is interactive (a Settings page waits for it): give up sooner
/// than a chat request would.
const LIST_TIMEOUT: Duration = Duration::from_secs(10);

/// Which listing API an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelApi {
    /// `{base_url}/models` with a bearer key; `base_url` includes `/v1`.
    OpenAi,
    /// `{base_url}/v1/models` with `x-api-key`.
    Anthropic,
    /// `{base_url}/api/tags`.
    Ollama,
}

impl ModelApi {
    /// Whether the API takes images in tool results: Anthropic inside `tool_result`,
    /// OpenAI-compatible as a user message after the results; Ollama's chat API has no
    /// image input for tool messages, so its models get a note in words.
    pub fn accepts_tool_images(self) -> bool {
        match self {
            ModelApi::OpenAi | ModelApi::Anthropic => true,
            ModelApi::Ollama => false,
        }
    }

    fn provider(self) -> &'static str {
        match self {
            ModelApi::OpenAi => "openai",
            ModelApi::Anthropic => "anthropic",
            ModelApi::Ollama => "ollama",
        }
    }
}

/// The model ids `base_url` lists, in the endpoint's order (duplicates
/// dropped). An endpoint that answers but lists nothing gives an empty list;
/// one that cannot be reached or refuses the key gives its error.
pub async fn list_models(
    api: ModelApi,
    base_url: &str,
    api_key: Option<&str>,
) -> Result<Vec<String>, LlmError> {
    let provider = api.provider();
    let client = http_client(base_url)?;
    let mut headers = HeaderMap::new();
    let (url, list_key, id_key) = match api {
        ModelApi::OpenAi => {
            if let Some(key) = api_key {
                let (n, v) = header("authorization", &format!("Bearer {key}"))?;
                headers.insert(n, v);
            }
            (join_url(base_url, "models"), "data", "id")
        }
        ModelApi::Anthropic => {
            if let Some(key) = api_key {
                let (n, v) = header("x-api-key", key)?;
                headers.insert(n, v);
            }
            headers.insert(
                "anthropic-version",
                HeaderValue::from_static(crate::anthropic::Anthropic::DEFAULT_VERSION),
            );
            (join_url(base_url, "v1/models?limit=1000"), "data", "id")
        }
        ModelApi::Ollama => (join_url(base_url, "api/tags"), "models", "name"),
    };
    let response = client
        .get(&url)
        .headers(headers)
        .timeout(LIST_TIMEOUT)
        .send()
        .await
        .map_err(|e| LlmError::Network {
            provider: provider.to_owned(),
            message: error_chain(&e),
        })?;
    if !response.status().is_success() {
        return Err(http_error(provider, response).await);
    }
    let bytes = response.bytes().await.map_err(|e| LlmError::Network {
        provider: provider.to_owned(),
        message: error_chain(&e),
    })?;
    let body: Value = serde_json::from_slice(&bytes).map_err(|e| LlmError::Decode {
        provider: provider.to_owned(),
        message: format!("the model list at {url} is not JSON: {e}"),
    })?;
    let Some(items) = body.get(list_key).and_then(Value::as_array) else {
        return Err(LlmError::Decode {
            provider: provider.to_owned(),
            message: format!("the answer of {url} has no `{list_key}` list — check the base URL"),
        });
    };
    let mut names: Vec<String> = Vec::new();
    for name in items
        .iter()
        .filter_map(|m| m.get(id_key).and_then(Value::as_str))
    {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}
