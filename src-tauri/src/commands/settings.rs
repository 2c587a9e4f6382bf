//! Provider settings: thin calls into `skald_session::services::providers`.

use skald_protocol::{
    EnvEndpointView, IpcError, LocalOllamaView, NewProviderInput, ProviderEditInput, ProviderKind,
    ProviderTestView, ProviderView, ReasoningSetting,
};
use skald_session::services::providers;

use crate::AppState;

#[tauri::command]
pub async fn list_providers(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<ProviderView>, IpcError> {
    Ok(providers::list(&state.store).await?)
}

/// Adds a provider with one model and makes that model the default.
#[tauri::command]
pub async fn add_provider(
    state: tauri::State<'_, AppState>,
    input: NewProviderInput,
) -> Result<ProviderView, IpcError> {
    Ok(providers::add(&state.store, input).await?)
}

#[tauri::command]
pub async fn set_default_model(
    state: tauri::State<'_, AppState>,
    model_id: i64,
) -> Result<(), IpcError> {
    Ok(providers::set_default_model(&state.store, model_id).await?)
}

/// How much a model should reason; `None` leaves it to the provider.
#[tauri::command]
pub async fn set_model_reasoning(
    state: tauri::State<'_, AppState>,
    model_id: i64,
    reasoning: Option<ReasoningSetting>,
) -> Result<(), IpcError> {
    Ok(providers::set_model_reasoning(&state.store, model_id, reasoning).await?)
}

/// Whether images in tool results are sent to a model; `None` leaves it to
/// the provider (sent when it takes images).
#[tauri::command]
pub async fn set_model_send_images(
    state: tauri::State<'_, AppState>,
    model_id: i64,
    on: Option<bool>,
) -> Result<(), IpcError> {
    Ok(providers::set_model_send_images(&state.store, model_id, on).await?)
}

/// An Ollama answering at its default address, to offer on the Settings page.
#[tauri::command]
pub async fn local_ollama() -> Result<Option<LocalOllamaView>, IpcError> {
    Ok(providers::local_ollama().await)
}

/// The endpoints the environment configures, each with the models it lists.
#[tauri::command]
pub async fn env_endpoints(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<EnvEndpointView>, IpcError> {
    let env = skald_llm::ProviderConfig::from_env();
    Ok(providers::env_endpoints(&state.store, &env).await?)
}

/// Remembers the model to use with an environment endpoint.
#[tauri::command]
pub async fn set_env_model(
    state: tauri::State<'_, AppState>,
    kind: ProviderKind,
    model: String,
) -> Result<(), IpcError> {
    Ok(providers::set_env_model(&state.store, kind, &model).await?)
}

/// Changes a stored provider (a blank key keeps the stored one).
#[tauri::command]
pub async fn edit_provider(
    state: tauri::State<'_, AppState>,
    id: String,
    input: ProviderEditInput,
) -> Result<ProviderView, IpcError> {
    Ok(providers::edit(&state.store, &id, input).await?)
}

/// Deletes a provider with its models and key; `false`: there was none.
#[tauri::command]
pub async fn delete_provider(
    state: tauri::State<'_, AppState>,
    id: String,
) -> Result<bool, IpcError> {
    Ok(providers::delete(&state.store, &id).await?)
}

/// Asks a stored provider's endpoint for its models (Test connection).
#[tauri::command]
pub async fn test_provider(
    state: tauri::State<'_, AppState>,
    id: String,
) -> Result<ProviderTestView, IpcError> {
    let env = skald_llm::ProviderConfig::from_env();
    Ok(providers::test(&state.store, &id, &env).await?)
}

/// Asks an endpoint not saved yet for its models (the add form's Discover).
#[tauri::command]
pub async fn probe_provider(
    kind: ProviderKind,
    base_url: Option<String>,
    api_key: Option<String>,
) -> ProviderTestView {
    let env = skald_llm::ProviderConfig::from_env();
    providers::probe(kind, base_url.as_deref(), api_key.as_deref(), &env).await
}

/// Makes `model` (added if new) the default, with this provider.
#[tauri::command]
pub async fn use_provider_model(
    state: tauri::State<'_, AppState>,
    id: String,
    model: String,
) -> Result<ProviderView, IpcError> {
    Ok(providers::use_model(&state.store, &id, &model, true).await?)
}
