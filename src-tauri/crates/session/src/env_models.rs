//! Providers set up through the environment only (`OPENAI_BASE_URL` +
//! `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `OLLAMA_HOST`) name no model. The
//! app and the CLI offer what each such endpoint lists and remember the
//! person's pick in the settings table, so a turn needs no `--model`.

use serde::{Deserialize, Serialize};
use skald_llm::{ModelApi, ProviderConfig, list_models};
use skald_store::{ProviderKind, Store};

use crate::error::SessionError;

/// The settings key of the remembered pick.
pub const ENV_MODEL_SETTING: &str = "providers.environment.model";

/// The model picked for an environment endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvModelChoice {
    pub kind: ProviderKind,
    pub model: String,
}

/// One endpoint the environment configures, with what it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvEndpoint {
    pub kind: ProviderKind,
    pub base_url: String,
    pub has_api_key: bool,
    /// The endpoint's models, or why they could not be listed.
    pub models: Result<Vec<String>, String>,
    /// The remembered pick, when it is this endpoint's.
    pub chosen: Option<String>,
}

/// The endpoints `env` configures, each asked for its models (concurrently).
pub async fn env_endpoints(
    store: &Store,
    env: &ProviderConfig,
) -> Result<Vec<EnvEndpoint>, SessionError> {
    let chosen = env_model_choice(store).await?;
    let mut wanted: Vec<(ProviderKind, ModelApi, String, Option<String>)> = Vec::new();
    if let Some(o) = &env.openai {
        wanted.push((
            ProviderKind::OpenAi,
            ModelApi::OpenAi,
            o.base_url.clone(),
            o.api_key.clone(),
        ));
    }
    if let Some(a) = &env.anthropic {
        wanted.push((
            ProviderKind::Anthropic,
            ModelApi::Anthropic,
            a.base_url.clone(),
            Some(a.api_key.clone()),
        ));
    }
    if let Some(o) = &env.ollama {
        wanted.push((
            ProviderKind::Ollama,
            ModelApi::Ollama,
            o.base_url.clone(),
            None,
        ));
    }
    let listed = futures_util::future::join_all(
        wanted
            .iter()
            .map(|(_, api, url, key)| list_models(*api, url, key.as_deref())),
    )
    .await;
    Ok(wanted
        .into_iter()
        .zip(listed)
        .map(|((kind, _, base_url, key), models)| EnvEndpoint {
            kind,
            base_url,
            has_api_key: key.is_some(),
            models: models.map_err(|e| e.to_string()),
            chosen: chosen
                .as_ref()
                .filter(|c| c.kind == kind)
                .map(|c| c.model.clone()),
        })
        .collect())
}

/// The remembered pick, if any (a value this version cannot read counts as none).
pub async fn env_model_choice(store: &Store) -> Result<Option<EnvModelChoice>, SessionError> {
    let value = store.settings().get(ENV_MODEL_SETTING).await?;
    Ok(value.and_then(|v| serde_json::from_value(v).ok()))
}

/// Remembers `choice` for turns that name no model.
pub async fn set_env_model(store: &Store, choice: &EnvModelChoice) -> Result<(), SessionError> {
    if choice.model.trim().is_empty() {
        return Err(SessionError::InvalidInput(
            "a model name is required".into(),
        ));
    }
    let value =
        serde_json::to_value(choice).map_err(|e| SessionError::InvalidInput(e.to_string()))?;
    store.settings().set(ENV_MODEL_SETTING, &value).await?;
    Ok(())
}
