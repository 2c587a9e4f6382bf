//! Provider settings: list, add (key into the secrets store), pick the model.

use skald_protocol::{
    EnvEndpointView, ErrorCode, IpcError, LocalOllamaView, ModelView, NewProviderInput,
    ProviderKindView, ProviderView, ReasoningSetting,
};
use skald_store::{NewModel, NewProvider, ProviderKind, Store, StoreError};

use crate::AppState;

fn storage(e: StoreError) -> IpcError {
    IpcError::new(ErrorCode::Storage, e.to_string())
}

fn kind_view(k: ProviderKind) -> ProviderKindView {
    match k {
        ProviderKind::OpenAi => ProviderKindView::Openai,
        ProviderKind::Anthropic => ProviderKindView::Anthropic,
        ProviderKind::Ollama => ProviderKindView::Ollama,
    }
}

fn kind_row(k: ProviderKindView) -> ProviderKind {
    match k {
        ProviderKindView::Openai => ProviderKind::OpenAi,
        ProviderKindView::Anthropic => ProviderKind::Anthropic,
        ProviderKindView::Ollama => ProviderKind::Ollama,
    }
}

async fn views(store: &Store) -> Result<Vec<ProviderView>, IpcError> {
    let mut out = Vec::new();
    for p in store.providers().list().await.map_err(storage)? {
        let models = store
            .providers()
            .list_models(&p.id)
            .await
            .map_err(storage)?
            .into_iter()
            .map(|m| ModelView {
                id: m.id,
                name: m.name,
                is_default: m.is_default,
                reasoning: m.reasoning.as_deref().and_then(ReasoningSetting::parse),
            })
            .collect();
        out.push(ProviderView {
            id: p.id,
            kind: kind_view(p.kind),
            name: p.name,
            base_url: p.base_url,
            has_api_key: p.api_key_secret.is_some(),
            enabled: p.enabled,
            models,
        });
    }
    Ok(out)
}

#[tauri::command]
pub async fn list_providers(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<ProviderView>, IpcError> {
    views(&state.store).await
}

/// Adds a provider with one model and makes that model the default.
#[tauri::command]
pub async fn add_provider(
    state: tauri::State<'_, AppState>,
    input: NewProviderInput,
) -> Result<ProviderView, IpcError> {
    let model = input.model.trim();
    if model.is_empty() {
        return Err(IpcError::new(
            ErrorCode::InvalidInput,
            "a model name is required",
        ));
    }
    if let Some(url) = &input.base_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(IpcError::new(
            ErrorCode::InvalidInput,
            "the base URL must start with http:// or https://",
        ));
    }
    let store = &state.store;
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
            kind: kind_row(input.kind),
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
    views(store)
        .await?
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| IpcError::new(ErrorCode::Internal, "the new provider vanished"))
}

#[tauri::command]
pub async fn set_default_model(
    state: tauri::State<'_, AppState>,
    model_id: i64,
) -> Result<(), IpcError> {
    state
        .store
        .providers()
        .set_default_model(model_id)
        .await
        .map_err(storage)
}

/// How much a model should reason; `None` leaves it to the provider.
#[tauri::command]
pub async fn set_model_reasoning(
    state: tauri::State<'_, AppState>,
    model_id: i64,
    reasoning: Option<ReasoningSetting>,
) -> Result<(), IpcError> {
    state
        .store
        .providers()
        .set_reasoning(model_id, reasoning.map(ReasoningSetting::as_str))
        .await
        .map_err(storage)
}

/// `OpenRouter (EU)` → `openrouter-eu`.
fn slug(name: &str) -> String {
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
#[tauri::command]
pub async fn local_ollama() -> Result<Option<LocalOllamaView>, IpcError> {
    let base_url = skald_llm::Ollama::DEFAULT_BASE_URL;
    Ok(skald_llm::ollama_models(base_url)
        .await
        .map(|models| LocalOllamaView {
            base_url: base_url.to_string(),
            models,
        }))
}

fn env_kind_view(k: skald_session::EnvKind) -> ProviderKindView {
    match k {
        skald_session::EnvKind::Openai => ProviderKindView::Openai,
        skald_session::EnvKind::Anthropic => ProviderKindView::Anthropic,
        skald_session::EnvKind::Ollama => ProviderKindView::Ollama,
    }
}

/// The endpoints the environment configures, each with the models it lists.
#[tauri::command]
pub async fn env_endpoints(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<EnvEndpointView>, IpcError> {
    let env = skald_llm::ProviderConfig::from_env();
    let endpoints = skald_session::env_endpoints(&state.store, &env)
        .await
        .map_err(|e| e.to_ipc())?;
    Ok(endpoints
        .into_iter()
        .map(|e| {
            let (models, error) = match e.models {
                Ok(m) => (m, None),
                Err(why) => (Vec::new(), Some(why)),
            };
            EnvEndpointView {
                kind: env_kind_view(e.kind),
                base_url: e.base_url,
                has_api_key: e.has_api_key,
                models,
                error,
                chosen: e.chosen,
            }
        })
        .collect())
}

/// Remembers the model to use with an environment endpoint.
#[tauri::command]
pub async fn set_env_model(
    state: tauri::State<'_, AppState>,
    kind: ProviderKindView,
    model: String,
) -> Result<(), IpcError> {
    let kind = match kind {
        ProviderKindView::Openai => skald_session::EnvKind::Openai,
        ProviderKindView::Anthropic => skald_session::EnvKind::Anthropic,
        ProviderKindView::Ollama => skald_session::EnvKind::Ollama,
    };
    let choice = skald_session::EnvModelChoice {
        kind,
        model: model.trim().to_string(),
    };
    skald_session::set_env_model(&state.store, &choice)
        .await
        .map_err(|e| e.to_ipc())
}
