//! A chat's own model: what the chat header's switcher lists, and the pick
//! it stores on the session. The next turn of that chat asks the picked
//! model ([`crate::ProviderResolver::resolve_pick`]); other chats keep the
//! default.

use skald_llm::ProviderConfig;
use skald_protocol::{ChatModelsView, ModelChoiceView, ProviderKind};
use skald_store::{ModelRef, ProviderRow, Store};

use super::ServiceError;
use crate::env_models::{env_endpoints, env_model_choice};
use crate::provider::env_provider_id;

/// The models `session_id` may switch to: each enabled provider's stored
/// models and what its endpoint lists now (asked side by side), then the
/// environment's endpoints; with the chat's pick and the default.
pub async fn list(
    store: &Store,
    env: &ProviderConfig,
    session_id: &str,
) -> Result<ChatModelsView, ServiceError> {
    let session = session(store, session_id).await?;
    let providers: Vec<ProviderRow> = store
        .providers()
        .list()
        .await?
        .into_iter()
        .filter(|p| p.enabled)
        .collect();
    let listed = futures_util::future::join_all(
        providers
            .iter()
            .map(|p| super::providers::test(store, &p.id, env)),
    )
    .await;
    let mut options = Vec::new();
    let mut errors = Vec::new();
    for (p, live) in providers.iter().zip(listed) {
        let mut names: Vec<String> = store
            .providers()
            .list_models(&p.id)
            .await?
            .into_iter()
            .map(|m| m.name)
            .collect();
        match live {
            Ok(t) if t.ok => names.extend(t.models),
            Ok(t) => errors.push(format!("{}: {}", p.name, t.error.unwrap_or_default())),
            Err(e) => errors.push(format!("{}: {e}", p.name)),
        }
        dedup_keep_order(&mut names);
        options.extend(names.into_iter().map(|model| ModelChoiceView {
            provider: p.id.clone(),
            provider_name: p.name.clone(),
            model,
        }));
    }
    for e in env_endpoints(store, env).await? {
        match e.models {
            Ok(models) => options.extend(models.into_iter().map(|model| ModelChoiceView {
                provider: env_provider_id(e.kind),
                provider_name: env_name(e.kind),
                model,
            })),
            Err(why) => errors.push(format!("{}: {why}", env_name(e.kind))),
        }
    }
    let default = default_choice(store, &providers).await?;
    Ok(ChatModelsView {
        chosen: session.model.map(|m| choice_of(&providers, m)),
        default,
        options,
        errors,
    })
}

/// Gives `session_id` its own model (`None`: back to the default). The
/// provider must be a stored one or an environment endpoint; the model is
/// taken as named (a model the endpoint does not list fails at the turn,
/// with the provider's own words).
pub async fn set(
    store: &Store,
    session_id: &str,
    pick: Option<(String, String)>,
) -> Result<Option<ModelChoiceView>, ServiceError> {
    session(store, session_id).await?;
    let Some((provider, model)) = pick else {
        store.sessions().set_model(session_id, None).await?;
        return Ok(None);
    };
    let model = model.trim().to_string();
    if model.is_empty() {
        return Err(ServiceError::invalid("a model name is required"));
    }
    let providers = store.providers().list().await?;
    let known = match provider.strip_prefix("env:") {
        Some(kind) => ProviderKind::parse(kind).is_some(),
        None => providers.iter().any(|p| p.id == provider),
    };
    if !known {
        return Err(ServiceError::invalid(format!(
            "no provider `{provider}`: pick one Settings lists"
        )));
    }
    let pick = ModelRef { provider, model };
    store.sessions().set_model(session_id, Some(&pick)).await?;
    Ok(Some(choice_of(&providers, pick)))
}

async fn session(store: &Store, id: &str) -> Result<skald_store::SessionRow, ServiceError> {
    store
        .sessions()
        .get(id)
        .await?
        .ok_or_else(|| ServiceError::NotFound(format!("no session {id}")))
}

/// What a chat with no pick of its own asks, as the resolver picks it
/// (the stored default, else the first stored model, else the model picked
/// for an environment endpoint), without building a client.
async fn default_choice(
    store: &Store,
    providers: &[ProviderRow],
) -> Result<Option<ModelChoiceView>, ServiceError> {
    let repo = store.providers();
    if let Some(m) = repo.default_model().await?
        && let Some(p) = providers.iter().find(|p| p.id == m.provider_id)
    {
        return Ok(Some(choice(p, m.name)));
    }
    for p in providers {
        if let Some(m) = repo.list_models(&p.id).await?.into_iter().next() {
            return Ok(Some(choice(p, m.name)));
        }
    }
    Ok(env_model_choice(store).await?.map(|c| ModelChoiceView {
        provider: env_provider_id(c.kind),
        provider_name: env_name(c.kind),
        model: c.model,
    }))
}

fn choice(p: &ProviderRow, model: String) -> ModelChoiceView {
    ModelChoiceView {
        provider: p.id.clone(),
        provider_name: p.name.clone(),
        model,
    }
}

fn choice_of(providers: &[ProviderRow], m: ModelRef) -> ModelChoiceView {
    let provider_name = match m.provider.strip_prefix("env:").map(ProviderKind::parse) {
        Some(Some(kind)) => env_name(kind),
        _ => providers
            .iter()
            .find(|p| p.id == m.provider)
            .map_or_else(|| m.provider.clone(), |p| p.name.clone()),
    };
    ModelChoiceView {
        provider: m.provider,
        provider_name,
        model: m.model,
    }
}

fn env_name(kind: ProviderKind) -> String {
    let what = match kind {
        ProviderKind::OpenAi => "OpenAI-compatible",
        ProviderKind::Anthropic => "Anthropic",
        ProviderKind::Ollama => "Ollama",
    };
    format!("environment ({what})")
}

fn dedup_keep_order(names: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_go_and_the_order_stays() {
        let mut v = vec![
            "b".to_string(),
            "a".into(),
            "b".into(),
            "c".into(),
            "a".into(),
        ];
        dedup_keep_order(&mut v);
        assert_eq!(v, ["b", "a", "c"]);
    }
}
