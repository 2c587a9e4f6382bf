//! Which LLM answers a turn: [`ProviderResolver`] turns "this model, or the
//! default" into a ready client. [`FixedProvider`] serves tests and benches;
//! [`DefaultProviderResolver`] is what the app and the CLI use: providers and
//! models stored in the DB (keys from the secrets store), then the usual
//! environment variables, then an Ollama detected on 127.0.0.1:11434.
//!
//! Resolution never runs a tool or writes to the store.

use std::sync::Arc;

use skald_core_api::BoxFuture;
use skald_llm::{
    Anthropic, LlmProvider, Ollama, OpenAiCompatible, ProviderConfig, ReasoningEffort,
    ollama_models,
};
use skald_store::{ModelRef, ProviderKind, ProviderRow, Store};

use crate::env_models::env_model_choice;
use crate::error::SessionError;

/// A client and the model name to ask it for.
#[derive(Clone)]
pub struct ResolvedModel {
    pub provider: Arc<dyn LlmProvider>,
    /// Which provider this is, as a chat's model pick names it: a stored
    /// provider's id, `env:KIND` for an environment endpoint.
    pub provider_id: String,
    pub model: String,
    /// The model's reasoning setting (`models.reasoning`); `None`: the provider's default.
    pub reasoning: Option<ReasoningEffort>,
}

impl std::fmt::Debug for ResolvedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedModel")
            .field("provider", &self.provider_id)
            .field("model", &self.model)
            .field("reasoning", &self.reasoning)
            .finish()
    }
}

/// Picks the provider and model of a turn. `model` is the caller's explicit
/// choice (`--model NAME`, the model picker); `None` means the default.
pub trait ProviderResolver: Send + Sync {
    fn resolve<'a>(
        &'a self,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<ResolvedModel, SessionError>>;

    /// A chat's own pick: that provider's model. Resolvers that know one
    /// provider only ask it for the model by name.
    fn resolve_pick<'a>(
        &'a self,
        pick: &'a ModelRef,
    ) -> BoxFuture<'a, Result<ResolvedModel, SessionError>> {
        self.resolve(Some(&pick.model))
    }
}

/// The provider id of an environment endpoint of `kind`.
pub fn env_provider_id(kind: ProviderKind) -> String {
    format!("env:{}", kind.as_str())
}

/// Always the same client; the model is the caller's choice or a default.
pub struct FixedProvider {
    provider: Arc<dyn LlmProvider>,
    model: String,
    reasoning: Option<ReasoningEffort>,
}

impl FixedProvider {
    pub fn new(provider: Arc<dyn LlmProvider>, default_model: impl Into<String>) -> Self {
        Self {
            provider,
            model: default_model.into(),
            reasoning: None,
        }
    }

    /// Gives the model a reasoning setting, as a stored model's would.
    pub fn with_reasoning(mut self, reasoning: Option<ReasoningEffort>) -> Self {
        self.reasoning = reasoning;
        self
    }
}

impl ProviderResolver for FixedProvider {
    fn resolve<'a>(
        &'a self,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<ResolvedModel, SessionError>> {
        Box::pin(std::future::ready(Ok(ResolvedModel {
            provider_id: self.provider.name().to_string(),
            provider: self.provider.clone(),
            model: model.unwrap_or(&self.model).to_string(),
            reasoning: self.reasoning,
        })))
    }
}

/// Providers from the DB, then the environment, then a local Ollama.
///
/// With `model`: a DB provider listing that model; else an environment
/// provider (Anthropic for `claude*` names when configured, else
/// OpenAI-compatible, else Ollama); else the first enabled DB provider; else a
/// detected Ollama. Without: the DB default model, else the first model of
/// the first enabled DB provider, else the model picked for an environment
/// endpoint ([`crate::set_env_model`]).
pub struct DefaultProviderResolver {
    store: Store,
    env: ProviderConfig,
    ollama_probe: Option<String>,
}

impl DefaultProviderResolver {
    /// Reads the environment now ([`ProviderConfig::from_env`]) and probes
    /// Ollama at its default address when nothing else is configured.
    pub fn new(store: Store) -> Self {
        Self::with_env(store, ProviderConfig::from_env())
    }

    /// With an explicit environment configuration (tests).
    pub fn with_env(store: Store, env: ProviderConfig) -> Self {
        Self {
            store,
            env,
            ollama_probe: Some(Ollama::DEFAULT_BASE_URL.to_string()),
        }
    }

    /// Where to look for an unconfigured Ollama; `None` turns detection off.
    pub fn with_ollama_probe(mut self, base_url: Option<String>) -> Self {
        self.ollama_probe = base_url;
        self
    }

    async fn resolve_inner(&self, model: Option<&str>) -> Result<ResolvedModel, SessionError> {
        let repo = self.store.providers();
        let providers: Vec<ProviderRow> = repo
            .list()
            .await?
            .into_iter()
            .filter(|p| p.enabled)
            .collect();

        match model {
            Some(name) => {
                for p in &providers {
                    if let Some(m) = repo
                        .list_models(&p.id)
                        .await?
                        .into_iter()
                        .find(|m| m.name == name)
                    {
                        return Ok(with_setting(self.row_client(p, name).await?, &m));
                    }
                }
                if let Some(r) = self.env_client(name)? {
                    return Ok(r);
                }
                if let Some(p) = providers.first() {
                    return self.row_client(p, name).await;
                }
            }
            None => {
                if let Some(m) = repo.default_model().await?
                    && let Some(p) = providers.iter().find(|p| p.id == m.provider_id)
                {
                    return Ok(with_setting(self.row_client(p, &m.name).await?, &m));
                }
                for p in &providers {
                    if let Some(m) = repo.list_models(&p.id).await?.first() {
                        return Ok(with_setting(self.row_client(p, &m.name).await?, m));
                    }
                }
                if let Some(choice) = env_model_choice(&self.store).await?
                    && let Some(r) = self.env_client_of(choice.kind, &choice.model)?
                {
                    return Ok(r);
                }
                if !providers.is_empty() || !self.env.is_empty() {
                    return Err(SessionError::NoProvider(
                        "no model chosen: pick one in Settings (it lists the models your \
                         endpoint offers; `skald models` does too), or pass --model NAME"
                            .into(),
                    ));
                }
            }
        }

        if providers.is_empty()
            && self.env.is_empty()
            && let Some(url) = &self.ollama_probe
            && let Some(pulled) = ollama_models(url).await
        {
            // Nothing configured but a local Ollama: use it, with the model
            // asked for, else the first one it has pulled.
            let name = match (model, pulled.first()) {
                (Some(name), _) => name.to_string(),
                (None, Some(first)) => first.clone(),
                (None, None) => {
                    return Err(SessionError::NoProvider(format!(
                        "an Ollama server answers at {url} but has no model yet: pull one \
                         (`ollama pull qwen3`), or add another provider in Settings"
                    )));
                }
            };
            return Ok(ResolvedModel {
                provider: Arc::new(Ollama::new(url.clone())?),
                provider_id: env_provider_id(ProviderKind::Ollama),
                model: name,
                reasoning: None,
            });
        }
        Err(SessionError::NoProvider(
            "nothing is configured: add a provider in Settings, or set OPENAI_BASE_URL and \
             OPENAI_API_KEY (or ANTHROPIC_API_KEY, or OLLAMA_HOST), or run Ollama locally"
                .into(),
        ))
    }

    fn env_client(&self, model: &str) -> Result<Option<ResolvedModel>, SessionError> {
        let kind = match (&self.env.openai, &self.env.anthropic) {
            (Some(_), Some(_)) if model.starts_with("claude") => ProviderKind::Anthropic,
            (None, Some(_)) => ProviderKind::Anthropic,
            (Some(_), _) => ProviderKind::OpenAi,
            (None, None) => ProviderKind::Ollama,
        };
        self.env_client_of(kind, model)
    }

    /// The environment endpoint of `kind` asked for `model`, if the
    /// environment still configures it.
    fn env_client_of(
        &self,
        kind: ProviderKind,
        model: &str,
    ) -> Result<Option<ResolvedModel>, SessionError> {
        let provider: Arc<dyn LlmProvider> = match kind {
            ProviderKind::OpenAi => match &self.env.openai {
                Some(o) => Arc::new(OpenAiCompatible::new(
                    o.base_url.clone(),
                    o.api_key.clone(),
                )?),
                None => return Ok(None),
            },
            ProviderKind::Anthropic => match &self.env.anthropic {
                Some(a) => Arc::new(Anthropic::new(a.base_url.clone(), a.api_key.clone())?),
                None => return Ok(None),
            },
            ProviderKind::Ollama => match &self.env.ollama {
                Some(o) => Arc::new(Ollama::new(o.base_url.clone())?),
                None => return Ok(None),
            },
        };
        Ok(Some(ResolvedModel {
            provider,
            provider_id: env_provider_id(kind),
            model: model.to_string(),
            reasoning: None,
        }))
    }

    /// A chat's own pick: the stored provider (or environment endpoint) it
    /// names, with that model. A provider since removed or disabled gives
    /// way to the model by name, so the chat still answers.
    async fn resolve_pick_inner(&self, pick: &ModelRef) -> Result<ResolvedModel, SessionError> {
        if let Some(kind) = pick.provider.strip_prefix("env:") {
            if let Some(kind) = ProviderKind::parse(kind)
                && let Some(r) = self.env_client_of(kind, &pick.model)?
            {
                return Ok(r);
            }
        } else if let Some(p) = self.store.providers().get(&pick.provider).await?
            && p.enabled
        {
            let listed = self.store.providers().list_models(&p.id).await?;
            let resolved = self.row_client(&p, &pick.model).await?;
            return Ok(match listed.iter().find(|m| m.name == pick.model) {
                Some(m) => with_setting(resolved, m),
                None => resolved,
            });
        }
        self.resolve_inner(Some(&pick.model)).await
    }

    /// The environment this resolver reads providers from.
    pub fn env(&self) -> &ProviderConfig {
        &self.env
    }

    async fn row_client(
        &self,
        p: &ProviderRow,
        model: &str,
    ) -> Result<ResolvedModel, SessionError> {
        let secret = match &p.api_key_secret {
            Some(name) => self.store.secrets().get(name).await?,
            None => None,
        };
        let provider: Arc<dyn LlmProvider> = match p.kind {
            ProviderKind::OpenAi => {
                let env = self.env.openai.as_ref();
                let base = p
                    .base_url
                    .clone()
                    .or_else(|| env.map(|e| e.base_url.clone()))
                    .unwrap_or_else(|| OpenAiCompatible::DEFAULT_BASE_URL.to_string());
                let key = secret.or_else(|| env.and_then(|e| e.api_key.clone()));
                Arc::new(OpenAiCompatible::new(base, key)?.with_name(p.id.clone()))
            }
            ProviderKind::Anthropic => {
                let env = self.env.anthropic.as_ref();
                let base = p
                    .base_url
                    .clone()
                    .or_else(|| env.map(|e| e.base_url.clone()))
                    .unwrap_or_else(|| Anthropic::DEFAULT_BASE_URL.to_string());
                let Some(key) = secret.or_else(|| env.map(|e| e.api_key.clone())) else {
                    return Err(SessionError::NoProvider(format!(
                        "provider `{}` has no API key: store one in its secret or set ANTHROPIC_API_KEY",
                        p.id
                    )));
                };
                Arc::new(Anthropic::new(base, key)?)
            }
            ProviderKind::Ollama => {
                let base = p
                    .base_url
                    .clone()
                    .or_else(|| self.env.ollama.as_ref().map(|e| e.base_url.clone()))
                    .unwrap_or_else(|| Ollama::DEFAULT_BASE_URL.to_string());
                Arc::new(Ollama::new(base)?)
            }
        };
        Ok(ResolvedModel {
            provider,
            provider_id: p.id.clone(),
            model: model.to_string(),
            reasoning: None,
        })
    }
}

/// A stored model's own settings applied to its client.
fn with_setting(mut resolved: ResolvedModel, m: &skald_store::ModelRow) -> ResolvedModel {
    resolved.reasoning = m.reasoning.as_deref().and_then(ReasoningEffort::parse);
    resolved
}

impl ProviderResolver for DefaultProviderResolver {
    fn resolve<'a>(
        &'a self,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<ResolvedModel, SessionError>> {
        Box::pin(self.resolve_inner(model))
    }

    fn resolve_pick<'a>(
        &'a self,
        pick: &'a ModelRef,
    ) -> BoxFuture<'a, Result<ResolvedModel, SessionError>> {
        Box::pin(self.resolve_pick_inner(pick))
    }
}
