//! Provider resolution: DB providers and secrets, the environment, nothing.

use std::collections::HashMap;

use skald_llm::ProviderConfig;
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
