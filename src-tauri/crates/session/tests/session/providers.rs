//! Provider resolution: DB providers and secrets, the environment, nothing.

use std::collections::HashMap;

use skald_llm::{ProviderConfig, ReasoningEffort};
use skald_llm_mock::{MockServer, Reply};
use skald_session::{DefaultProviderResolver, ProviderResolver, SessionError};
use skald_store::{NewModel, NewProvider, ProviderKind, Store};

fn env_config(vars: &[(&str, &str)]) -> ProviderConfig {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect();
    ProviderConfig::from_lookup(|k| map.get(k).cloned())
}

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    (dir, store)
}

#[tokio::test]
async fn nothing_configured_is_a_clear_error() {
    let (_d, store) = store().await;
    let r = DefaultProviderResolver::with_env(store, env_config(&[]))
        // A closed port: no Ollama there.
        .with_ollama_probe(Some("http://127.0.0.1:9".into()));
    let err = r.resolve(Some("m")).await.unwrap_err();
    assert!(matches!(err, SessionError::NoProvider(_)), "{err}");
    assert!(err.to_string().contains("OPENAI_BASE_URL"), "{err}");
}

#[tokio::test]
async fn env_openai_with_a_model_needs_nothing_else() {
    let (_d, store) = store().await;
    let env = env_config(&[
        ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
        ("OPENAI_API_KEY", "k"),
    ]);
    let r = DefaultProviderResolver::with_env(store, env).with_ollama_probe(None);
    let m = r.resolve(Some("gpt-x")).await.unwrap();
    assert_eq!(m.model, "gpt-x");
    assert_eq!(m.provider.name(), "openai");
    let err = r.resolve(None).await.unwrap_err();
    assert!(err.to_string().contains("--model"), "{err}");
}

#[tokio::test]
async fn env_prefers_anthropic_for_claude_models() {
    let (_d, store) = store().await;
    let env = env_config(&[
        ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
        ("ANTHROPIC_API_KEY", "ak"),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:2"),
    ]);
    let r = DefaultProviderResolver::with_env(store, env).with_ollama_probe(None);
    assert_eq!(
        r.resolve(Some("claude-x")).await.unwrap().provider.name(),
        "anthropic"
    );
    assert_eq!(
        r.resolve(Some("gpt-x")).await.unwrap().provider.name(),
        "openai"
    );
}

#[tokio::test]
async fn db_providers_and_the_default_model_win() {
    let (_d, store) = store().await;
    store
        .secrets()
        .set("router-key", "sk-secret")
        .await
        .unwrap();
    store
        .providers()
        .create(&NewProvider {
            id: "router".into(),
            kind: ProviderKind::OpenAi,
            name: "Router".into(),
            base_url: Some("http://127.0.0.1:3/v1".into()),
            api_key_secret: Some("router-key".into()),
            enabled: true,
        })
        .await
        .unwrap();
    let m = store
        .providers()
        .add_model(&NewModel {
            provider_id: "router".into(),
            name: "big".into(),
            context_window: None,
        })
        .await
        .unwrap();
    let env = env_config(&[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]);
    let r = DefaultProviderResolver::with_env(store.clone(), env).with_ollama_probe(None);
    // First model of the first provider, then the explicit default.
    assert_eq!(r.resolve(None).await.unwrap().model, "big");
    store.providers().set_default_model(m.id).await.unwrap();
    let d = r.resolve(None).await.unwrap();
    assert_eq!((d.provider.name(), d.model.as_str()), ("router", "big"));
    // A model the DB lists goes to its provider; others to the environment.
    assert_eq!(
        r.resolve(Some("big")).await.unwrap().provider.name(),
        "router"
    );
    assert_eq!(
        r.resolve(Some("other")).await.unwrap().provider.name(),
        "openai"
    );
    // The model's reasoning setting comes with it, whichever way it was chosen.
    assert_eq!(r.resolve(None).await.unwrap().reasoning, None);
    store
        .providers()
        .set_reasoning(m.id, Some("low"))
        .await
        .unwrap();
    assert_eq!(
        r.resolve(None).await.unwrap().reasoning,
        Some(ReasoningEffort::Low)
    );
    assert_eq!(
        r.resolve(Some("big")).await.unwrap().reasoning,
        Some(ReasoningEffort::Low)
    );
    assert_eq!(r.resolve(Some("other")).await.unwrap().reasoning, None);

    // An Anthropic provider without any key is refused clearly.
    store
        .providers()
        .create(&NewProvider {
            id: "claude".into(),
            kind: ProviderKind::Anthropic,
            name: "Claude".into(),
            base_url: None,
            api_key_secret: None,
            enabled: true,
        })
        .await
        .unwrap();
    store
        .providers()
        .add_model(&NewModel {
            provider_id: "claude".into(),
            name: "sonnet".into(),
            context_window: None,
        })
        .await
        .unwrap();
    let err = r.resolve(Some("sonnet")).await.unwrap_err();
    assert!(err.to_string().contains("has no API key"), "{err}");
}

/// A local server answering every request with `body` as JSON (an Ollama's
/// `/api/tags` as far as the resolver is concerned).
fn tags_server(body: &'static str) -> MockServer {
    MockServer::builder()
        .no_models()
        .respond_with(move |_| Reply::stream("application/json", body))
        .start()
        .unwrap()
}

#[tokio::test]
async fn a_local_ollama_is_used_with_its_first_model_when_nothing_is_configured() {
    let (_d, store) = store().await;
    let server = tags_server(r#"{"models": [{"name": "qwen3:8b"}, {"name": "llama3.2"}]}"#);
    let r = DefaultProviderResolver::with_env(store, env_config(&[]))
        .with_ollama_probe(Some(server.url().to_owned()));
    let m = r.resolve(None).await.unwrap();
    assert_eq!(m.model, "qwen3:8b");
    assert_eq!(m.provider.name(), "ollama");
    // A model asked for by name wins.
    assert_eq!(r.resolve(Some("llama3.2")).await.unwrap().model, "llama3.2");
}

#[tokio::test]
async fn a_local_ollama_without_models_says_to_pull_one() {
    let (_d, store) = store().await;
    let server = tags_server(r#"{"models": []}"#);
    let r = DefaultProviderResolver::with_env(store, env_config(&[]))
        .with_ollama_probe(Some(server.url().to_owned()));
    let err = r.resolve(None).await.unwrap_err();
    assert!(err.to_string().contains("has no model yet"), "{err}");
    assert!(
        !err.to_string().contains("--model"),
        "no CLI wording in the app: {err}"
    );
}

/// Defect: set up through the environment only, every turn failed with "no
/// model chosen" and nothing offered one. The endpoint's list is offered and
/// the pick is remembered, in the same store a later process opens.
#[tokio::test]
async fn an_environment_endpoint_lists_its_models_and_remembers_the_pick() {
    use skald_session::{EnvModelChoice, env_endpoints, set_env_model};
    let (dir, store) = store().await;
    let models =
        tags_server(r#"{"object":"list","data":[{"id":"qwen-coder"},{"id":"llama-70b"}]}"#);
    let env = env_config(&[
        ("OPENAI_BASE_URL", models.base_url()),
        ("OPENAI_API_KEY", "k"),
    ]);
    let endpoints = env_endpoints(&store, &env).await.unwrap();
    assert_eq!(endpoints.len(), 1);
    assert_eq!(endpoints[0].kind, ProviderKind::OpenAi);
    assert_eq!(
        endpoints[0].models.as_deref(),
        Ok(&["qwen-coder".to_string(), "llama-70b".to_string()][..])
    );
    assert_eq!(endpoints[0].chosen, None);

    set_env_model(
        &store,
        &EnvModelChoice {
            kind: ProviderKind::OpenAi,
            model: "llama-70b".into(),
        },
    )
    .await
    .unwrap();
    // An empty pick is refused, and does not replace the one remembered.
    assert!(
        set_env_model(
            &store,
            &EnvModelChoice {
                kind: ProviderKind::OpenAi,
                model: " ".into()
            }
        )
        .await
        .is_err()
    );
    drop(store);
    let store = Store::open(dir.path()).await.unwrap();
    assert_eq!(
        env_endpoints(&store, &env).await.unwrap()[0]
            .chosen
            .as_deref(),
        Some("llama-70b")
    );
    let r = DefaultProviderResolver::with_env(store, env).with_ollama_probe(None);
    let m = r.resolve(None).await.unwrap();
    assert_eq!(
        (m.provider.name(), m.model.as_str()),
        ("openai", "llama-70b")
    );
}

#[tokio::test]
async fn an_unreachable_environment_endpoint_says_why_it_lists_nothing() {
    use skald_session::env_endpoints;
    let (_d, store) = store().await;
    let env = env_config(&[("OLLAMA_HOST", "http://127.0.0.1:9")]);
    let endpoints = env_endpoints(&store, &env).await.unwrap();
    let err = endpoints[0].models.as_ref().unwrap_err();
    assert!(err.contains("network error"), "{err}");
}
