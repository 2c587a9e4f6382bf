//! Stored providers and their models, the environment's endpoints, and the
//! local Ollama offer: what the Settings page and `skald models` show and
//! change. The provider kind is one enum (`skald_protocol::ProviderKind`)
//! from the form through the store to the endpoint list.

use std::time::Instant;

use skald_llm::{ModelApi, ProviderConfig};
use skald_protocol::{
    EnvEndpointView, LocalOllamaView, ModelView, NewProviderInput, ProviderEditInput, ProviderKind,
    ProviderTestView, ProviderView, ReasoningSetting,
};
use skald_store::{NewModel, NewProvider, ProviderRow, Store, StoreError};

use super::ServiceError;
use crate::EnvModelChoice;

/// Provider settings report every store failure as storage trouble (the
/// form's own checks come first).
fn storage(e: StoreError) -> ServiceError {
    ServiceError::Storage(e.to_string())
}

/// Every stored provider with its models.
pub async fn list(store: &Store) -> Result<Vec<ProviderView>, ServiceError> {
    let mut out = Vec::new();
    let images = store
        .settings()
        .get(SEND_IMAGES_SETTING)
        .await
        .map_err(storage)?;
    for p in store.providers().list().await.map_err(storage)? {
        let client = client_name(p.kind, &p.id);
        let models = store
            .providers()
            .list_models(&p.id)
            .await
            .map_err(storage)?
            .into_iter()
            .map(|m| ModelView {
                id: m.id,
                send_images: images
                    .as_ref()
                    .and_then(|v| v.get(send_images_key(client, &m.name)))
                    .and_then(serde_json::Value::as_bool),
                name: m.name,
                is_default: m.is_default,
                reasoning: m.reasoning.as_deref().and_then(ReasoningSetting::parse),
            })
            .collect();
        out.push(ProviderView {
            id: p.id,
            kind: p.kind,
            name: p.name,
            base_url: p.base_url,
            has_api_key: p.api_key_secret.is_some(),
            enabled: p.enabled,
            models,
        });
    }
    Ok(out)
}

/// Adds a provider with one model and makes that model the default. The
/// API key goes to the secrets store; the id is the name's slug, made
/// unique.
pub async fn add(store: &Store, input: NewProviderInput) -> Result<ProviderView, ServiceError> {
    let model = input.model.trim();
    if model.is_empty() {
        return Err(ServiceError::invalid("a model name is required"));
    }
    check_base_url(input.base_url.as_deref())?;
    let taken: Vec<String> = store
        .providers()
        .list()
        .await
        .map_err(storage)?
        .into_iter()
        .map(|p| p.id)
        .collect();
    let base = slug(&input.name);
    let id = (1..)
        .map(|n| {
            if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            }
        })
        .find(|c| !taken.contains(c))
        .unwrap_or(base);
    let api_key_secret = match input.api_key.as_deref().map(str::trim) {
        Some(key) if !key.is_empty() => {
            let name = format!("provider.{id}.api_key");
            store.secrets().set(&name, key).await.map_err(storage)?;
            Some(name)
        }
        _ => None,
    };
    store
        .providers()
        .create(&NewProvider {
            id: id.clone(),
            kind: input.kind,
            name: input.name.trim().to_string(),
            base_url: input.base_url.clone(),
            api_key_secret,
            enabled: true,
        })
        .await
        .map_err(storage)?;
    let m = store
        .providers()
        .add_model(&NewModel {
            provider_id: id.clone(),
            name: model.to_string(),
            context_window: None,
        })
        .await
        .map_err(storage)?;
    store
        .providers()
        .set_default_model(m.id)
        .await
        .map_err(storage)?;
    list(store)
        .await?
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| ServiceError::Internal("the new provider vanished".to_string()))
}

pub async fn set_default_model(store: &Store, model_id: i64) -> Result<(), ServiceError> {
    store
        .providers()
        .set_default_model(model_id)
        .await
        .map_err(storage)
}

/// How much a model should reason; `None` leaves it to the provider.
pub async fn set_model_reasoning(
    store: &Store,
    model_id: i64,
    reasoning: Option<ReasoningSetting>,
) -> Result<(), ServiceError> {
    store
        .providers()
        .set_reasoning(model_id, reasoning.map(ReasoningSetting::as_str))
        .await
        .map_err(storage)
}

fn check_base_url(url: Option<&str>) -> Result<(), ServiceError> {
    match url {
        Some(u) if !(u.starts_with("http://") || u.starts_with("https://")) => Err(
            ServiceError::invalid("the base URL must start with http:// or https://"),
        ),
        _ => Ok(()),
    }
}

fn blank_to_none(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

async fn row(store: &Store, id: &str) -> Result<ProviderRow, ServiceError> {
    store
        .providers()
        .get(id)
        .await
        .map_err(storage)?
        .ok_or_else(|| ServiceError::NotFound(format!("no provider `{id}`")))
}

async fn view(store: &Store, id: &str) -> Result<ProviderView, ServiceError> {
    list(store)
        .await?
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| ServiceError::NotFound(format!("no provider `{id}`")))
}

/// Changes a provider's name, base URL, key and model. A blank key keeps the
/// stored one (the form never shows it); `clear_api_key` forgets it.
pub async fn edit(
    store: &Store,
    id: &str,
    input: ProviderEditInput,
) -> Result<ProviderView, ServiceError> {
    let model = input.model.trim();
    if model.is_empty() {
        return Err(ServiceError::invalid("a model name is required"));
    }
    let base_url = blank_to_none(input.base_url.as_deref());
    check_base_url(base_url.as_deref())?;
    let old = row(store, id).await?;
    let name = match input.name.trim() {
        "" => old.name.clone(),
        n => n.to_string(),
    };
    let mut api_key_secret = old.api_key_secret.clone();
    if let Some(key) = blank_to_none(input.api_key.as_deref()) {
        let secret = format!("provider.{id}.api_key");
        store.secrets().set(&secret, &key).await.map_err(storage)?;
        api_key_secret = Some(secret);
    } else if input.clear_api_key {
        if let Some(secret) = &old.api_key_secret {
            store.secrets().delete(secret).await.map_err(storage)?;
        }
        api_key_secret = None;
    }
    store
        .providers()
        .update(&NewProvider {
            id: id.to_string(),
            kind: old.kind,
            name,
            base_url,
            api_key_secret,
            enabled: old.enabled,
        })
        .await
        .map_err(storage)?;
    use_model(store, id, model, false).await
}

/// Adds `model` to the provider if it lacks it; makes it the default when
/// `always`, or when this provider holds the default, or nothing does.
pub async fn use_model(
    store: &Store,
    id: &str,
    model: &str,
    always: bool,
) -> Result<ProviderView, ServiceError> {
    let model = model.trim();
    if model.is_empty() {
        return Err(ServiceError::invalid("a model name is required"));
    }
    let repo = store.providers();
    let models = repo.list_models(id).await.map_err(storage)?;
    let holds_default = models.iter().any(|m| m.is_default);
    let chosen = match models.into_iter().find(|m| m.name == model) {
        Some(m) => m,
        None => repo
            .add_model(&NewModel {
                provider_id: id.to_string(),
                name: model.to_string(),
                context_window: None,
            })
            .await
            .map_err(storage)?,
    };
    let nothing_default = repo.default_model().await.map_err(storage)?.is_none();
    if always || holds_default || nothing_default {
        repo.set_default_model(chosen.id).await.map_err(storage)?;
    }
    view(store, id).await
}

/// Deletes a provider, its models and its stored key. `false`: there was none.
pub async fn delete(store: &Store, id: &str) -> Result<bool, ServiceError> {
    let Some(old) = store.providers().get(id).await.map_err(storage)? else {
        return Ok(false);
    };
    let gone = store.providers().delete(id).await.map_err(storage)?;
    if let Some(secret) = &old.api_key_secret {
        store.secrets().delete(secret).await.map_err(storage)?;
    }
    Ok(gone)
}

fn api(kind: ProviderKind) -> ModelApi {
    match kind {
        ProviderKind::OpenAi => ModelApi::OpenAi,
        ProviderKind::Anthropic => ModelApi::Anthropic,
        ProviderKind::Ollama => ModelApi::Ollama,
    }
}

/// Where a provider of `kind` without a base URL sends requests: the
/// environment's endpoint, else the kind's public default (what the
/// resolver does).
pub fn default_base_url(kind: ProviderKind, env: &ProviderConfig) -> String {
    match kind {
        ProviderKind::OpenAi => env.openai.as_ref().map(|e| e.base_url.clone()),
        ProviderKind::Anthropic => env.anthropic.as_ref().map(|e| e.base_url.clone()),
        ProviderKind::Ollama => env.ollama.as_ref().map(|e| e.base_url.clone()),
    }
    .unwrap_or_else(|| {
        match kind {
            ProviderKind::OpenAi => skald_llm::OpenAiCompatible::DEFAULT_BASE_URL,
            ProviderKind::Anthropic => skald_llm::Anthropic::DEFAULT_BASE_URL,
            ProviderKind::Ollama => skald_llm::Ollama::DEFAULT_BASE_URL,
        }
        .to_string()
    })
}

fn env_key(kind: ProviderKind, env: &ProviderConfig) -> Option<String> {
    match kind {
        ProviderKind::OpenAi => env.openai.as_ref().and_then(|e| e.api_key.clone()),
        ProviderKind::Anthropic => env.anthropic.as_ref().map(|e| e.api_key.clone()),
        ProviderKind::Ollama => None,
    }
}

/// Asks an endpoint for its model list: a real request, the one `skald
/// models` makes, so "OK" means the URL and key work.
pub async fn probe(
    kind: ProviderKind,
    base_url: Option<&str>,
    api_key: Option<&str>,
    env: &ProviderConfig,
) -> ProviderTestView {
    let base_url = blank_to_none(base_url).unwrap_or_else(|| default_base_url(kind, env));
    let key = blank_to_none(api_key).or_else(|| env_key(kind, env));
    let started = Instant::now();
    let listed = skald_llm::list_models(api(kind), &base_url, key.as_deref()).await;
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (ok, models, error) = match listed {
        Ok(models) => (true, models, None),
        Err(e) => (false, Vec::new(), Some(e.to_string())),
    };
    ProviderTestView {
        base_url,
        ok,
        models,
        error,
        elapsed_ms,
    }
}

/// "Test connection" for a stored provider: its URL and stored key.
pub async fn test(
    store: &Store,
    id: &str,
    env: &ProviderConfig,
) -> Result<ProviderTestView, ServiceError> {
    let p = row(store, id).await?;
    let key = match &p.api_key_secret {
        Some(secret) => store.secrets().get(secret).await.map_err(storage)?,
        None => None,
    };
    Ok(probe(p.kind, p.base_url.as_deref(), key.as_deref(), env).await)
}

/// `OpenRouter (EU)` → `openrouter-eu`.
pub fn slug(name: &str) -> String {
    let s: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let s = s
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if s.is_empty() {
        "provider".to_string()
    } else {
        s
    }
}

/// An Ollama answering at its default address, to offer on the Settings page.
pub async fn local_ollama() -> Option<LocalOllamaView> {
    let base_url = skald_llm::Ollama::DEFAULT_BASE_URL;
    skald_llm::ollama_models(base_url)
        .await
        .map(|models| LocalOllamaView {
            base_url: base_url.to_string(),
            models,
        })
}

/// The endpoints `env` configures, each with the models it lists.
pub async fn env_endpoints(
    store: &Store,
    env: &ProviderConfig,
) -> Result<Vec<EnvEndpointView>, ServiceError> {
    let endpoints = crate::env_endpoints(store, env).await?;
    Ok(endpoints
        .into_iter()
        .map(|e| {
            let (models, error) = match e.models {
                Ok(m) => (m, None),
                Err(why) => (Vec::new(), Some(why)),
            };
            EnvEndpointView {
                kind: e.kind,
                base_url: e.base_url,
                has_api_key: e.has_api_key,
                models,
                error,
                chosen: e.chosen,
            }
        })
        .collect())
}

/// The setting that says, per provider and model, whether tool results'
/// images are sent to the model: `{"<provider>/<model>": false}` (absent:
/// yes, when the provider takes images).
pub const SEND_IMAGES_SETTING: &str = "llm.send_images";

fn send_images_key(provider: &str, model: &str) -> String {
    format!("{provider}/{model}")
}

/// Whether the person wants images sent to `model` of `provider` (the
/// client's name: `openai`, `openrouter`, a stored provider's name);
/// `None` when they did not say.
pub async fn send_images(
    store: &Store,
    provider: &str,
    model: &str,
) -> Result<Option<bool>, ServiceError> {
    let all = store
        .settings()
        .get(SEND_IMAGES_SETTING)
        .await
        .map_err(storage)?;
    Ok(all
        .as_ref()
        .and_then(|v| v.get(send_images_key(provider, model)))
        .and_then(serde_json::Value::as_bool))
}

/// Sends images of tool results to `model` of `provider` or not (`None`:
/// back to the default, yes when the provider takes them). Turn it off for a
/// text-only model whose server refuses images.
pub async fn set_send_images(
    store: &Store,
    provider: &str,
    model: &str,
    on: Option<bool>,
) -> Result<(), ServiceError> {
    let settings = store.settings();
    let mut all = match settings.get(SEND_IMAGES_SETTING).await.map_err(storage)? {
        Some(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    let key = send_images_key(provider, model);
    match on {
        Some(on) => {
            all.insert(key, serde_json::Value::Bool(on));
        }
        None => {
            all.remove(&key);
        }
    }
    settings
        .set(SEND_IMAGES_SETTING, &serde_json::Value::Object(all))
        .await
        .map_err(storage)
}

/// The name a stored provider's client goes by at run time (what
/// [`send_images`] is keyed by): an OpenAI-compatible endpoint is named by
/// its provider's id, the others by their kind.
pub(crate) fn client_name(kind: ProviderKind, id: &str) -> &str {
    match kind {
        ProviderKind::OpenAi => id,
        ProviderKind::Anthropic | ProviderKind::Ollama => kind.as_str(),
    }
}

/// [`set_send_images`] for stored model `model_id` (the Settings page).
pub async fn set_model_send_images(
    store: &Store,
    model_id: i64,
    on: Option<bool>,
) -> Result<(), ServiceError> {
    for p in store.providers().list().await.map_err(storage)? {
        let models = store
            .providers()
            .list_models(&p.id)
            .await
            .map_err(storage)?;
        if let Some(m) = models.into_iter().find(|m| m.id == model_id) {
            return set_send_images(store, client_name(p.kind, &p.id), &m.name, on).await;
        }
    }
    Err(ServiceError::invalid(format!(
        "there is no model {model_id}"
    )))
}

/// Remembers the model to use with an environment endpoint.
pub async fn set_env_model(
    store: &Store,
    kind: ProviderKind,
    model: &str,
) -> Result<(), ServiceError> {
    let choice = EnvModelChoice {
        kind,
        model: model.trim().to_string(),
    };
    Ok(crate::set_env_model(store, &choice).await?)
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slugs_are_lowercase_dashed_and_never_empty() {
        assert_eq!(slug("OpenRouter (EU)"), "openrouter-eu");
        assert_eq!(slug("  --  "), "provider");
        assert_eq!(slug("Local Ollama 2"), "local-ollama-2");
    }
}
