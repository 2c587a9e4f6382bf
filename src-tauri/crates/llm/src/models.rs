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
    let body = fetch_json(
        provider,
        client.get(&url).headers(headers).timeout(LIST_TIMEOUT),
        &format!("the model list at {url}"),
    )
    .await?;
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

/// Asking for one model's window happens before a turn's first request:
/// give up quickly and manage the turn with the default window instead.
const WINDOW_TIMEOUT: Duration = Duration::from_secs(5);

/// What the endpoint says `model`'s context window is, in tokens:
/// - OpenAI-compatible: its entry in `GET {base_url}/models`, read from
///   `context_length` (OpenRouter, LM Studio), `context_window` (Groq),
///   `max_model_len` (vLLM), `max_context_length`, or OpenRouter's
///   `top_provider.context_length`;
/// - Ollama: `POST {base_url}/api/show`, the Modelfile's `num_ctx` when set
///   (what the server runs with), else `model_info`'s `*.context_length`;
/// - Anthropic lists no windows (the table of known models has them).
///
/// `Ok(None)`: the endpoint answered but does not say.
pub async fn model_context_window(
    api: ModelApi,
    base_url: &str,
    api_key: Option<&str>,
    model: &str,
) -> Result<Option<u32>, LlmError> {
    let provider = api.provider();
    let client = http_client(base_url)?;
    let request = match api {
        ModelApi::Anthropic => return Ok(None),
        ModelApi::OpenAi => {
            let mut r = client.get(join_url(base_url, "models"));
            if let Some(key) = api_key {
                let (n, v) = header("authorization", &format!("Bearer {key}"))?;
                r = r.header(n, v);
            }
            r
        }
        ModelApi::Ollama => client
            .post(join_url(base_url, "api/show"))
            .header("content-type", "application/json")
            .body(serde_json::json!({ "model": model }).to_string()),
    };
    let body = fetch_json(
        provider,
        request.timeout(WINDOW_TIMEOUT),
        "the model details",
    )
    .await?;
    Ok(match api {
        ModelApi::OpenAi => listed_window(&body, model),
        ModelApi::Ollama => ollama_window(&body),
        ModelApi::Anthropic => None,
    })
}

/// Sends `request` and reads its answer as JSON: an unreachable endpoint or
/// a refused request gives its error, a body that is not JSON says `what`
/// it was meant to be.
async fn fetch_json(
    provider: &str,
    request: reqwest::RequestBuilder,
    what: &str,
) -> Result<Value, LlmError> {
    let network = |e: reqwest::Error| LlmError::Network {
        provider: provider.to_owned(),
        message: error_chain(&e),
    };
    let response = request.send().await.map_err(network)?;
    if !response.status().is_success() {
        return Err(http_error(provider, response).await);
    }
    let bytes = response.bytes().await.map_err(network)?;
    serde_json::from_slice(&bytes).map_err(|e| LlmError::Decode {
        provider: provider.to_owned(),
        message: format!("{what} is not JSON: {e}"),
    })
}

fn positive(v: Option<&Value>) -> Option<u32> {
    v.and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// `model`'s window in an OpenAI-style list (`{"data": [{"id": …}]}`).
fn listed_window(list: &Value, model: &str) -> Option<u32> {
    let entry = list
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))?;
    [
        "context_length",
        "context_window",
        "max_model_len",
        "max_context_length",
    ]
    .iter()
    .find_map(|k| positive(entry.get(*k)))
    .or_else(|| positive(entry.pointer("/top_provider/context_length")))
}

/// The window in an Ollama `/api/show` answer.
fn ollama_window(show: &Value) -> Option<u32> {
    let num_ctx = show
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(|p| {
            p.lines().find_map(|l| {
                let mut words = l.split_whitespace();
                (words.next() == Some("num_ctx"))
                    .then(|| words.next()?.parse::<u32>().ok())
                    .flatten()
            })
        })
        .filter(|n| *n > 0);
    num_ctx.or_else(|| {
        show.get("model_info")?
            .as_object()?
            .iter()
            .find(|(k, _)| k.ends_with(".context_length"))
            .and_then(|(_, v)| positive(Some(v)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_servers_field_for_the_window_is_read() {
        let list = json!({"data": [
            {"id": "other", "context_length": 1},
            {"id": "router/m", "context_length": 200000},
            {"id": "groq-m", "context_window": 131072},
            {"id": "vllm-m", "max_model_len": 32768},
            {"id": "lms-m", "max_context_length": 8192},
            {"id": "top", "top_provider": {"context_length": 65536}},
            {"id": "plain"}
        ]});
        assert_eq!(listed_window(&list, "router/m"), Some(200_000));
        assert_eq!(listed_window(&list, "groq-m"), Some(131_072));
        assert_eq!(listed_window(&list, "vllm-m"), Some(32_768));
        assert_eq!(listed_window(&list, "lms-m"), Some(8_192));
        assert_eq!(listed_window(&list, "top"), Some(65_536));
        assert_eq!(listed_window(&list, "plain"), None);
        assert_eq!(listed_window(&list, "absent"), None);
    }

    #[test]
    fn ollama_prefers_the_modelfiles_num_ctx_to_the_trained_length() {
        let info =
            json!({"model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}});
        assert_eq!(ollama_window(&info), Some(40_960));
        let mut set = info.clone();
        set["parameters"] = json!("stop \"<|im_end|>\"\nnum_ctx 16384\ntemperature 0.6");
        assert_eq!(ollama_window(&set), Some(16_384));
        assert_eq!(ollama_window(&json!({"model_info": {}})), None);
    }
}
