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

/// A server answering like an OpenAI-compatible `/models`, recording each
/// request's head so a test can see the path and key it got.
async fn recording_models_server() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut buf = [0u8; 4096];
            let n = socket.read(&mut buf).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_lowercase();
            let authorised = head.contains("authorization: bearer sk-right");
            log.lock().unwrap().push(head);
            let (status, body) = if authorised {
                (
                    "200 OK",
                    r#"{"object":"list","data":[{"id":"m-small"},{"id":"m-large"}]}"#,
                )
            } else {
                ("401 Unauthorized", r#"{"error":{"message":"bad key"}}"#)
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(reply.as_bytes()).await;
        }
    });
    (url, seen)
}

fn new_openai(
    name: &str,
    base_url: &str,
    key: &str,
    model: &str,
) -> skald_protocol::NewProviderInput {
    skald_protocol::NewProviderInput {
        kind: ProviderKind::OpenAi,
        name: name.into(),
        base_url: Some(base_url.into()),
        api_key: Some(key.into()),
        model: model.into(),
    }
}

/// Issue 10: providers can be edited (the key kept unless replaced or
/// cleared), tested against their endpoint, and deleted with their key.
#[tokio::test]
async fn a_provider_is_edited_tested_and_deleted_with_its_key() {
    use skald_protocol::ProviderEditInput;
    use skald_session::services::providers;
    let (_d, store) = store().await;
    let env = env_config(&[]);
    let (url, seen) = recording_models_server().await;
    let base = format!("{url}/v1");
    let p = providers::add(&store, new_openai("Lab", &base, "sk-wrong", "m-small"))
        .await
        .unwrap();

    // The wrong key: a real request to /v1/models, refused, and said so.
    let t = providers::test(&store, &p.id, &env).await.unwrap();
    assert!(!t.ok, "{t:?}");
    assert!(t.error.as_deref().unwrap_or("").contains("401"), "{t:?}");
    assert!(
        seen.lock().unwrap()[0].starts_with("get /v1/models"),
        "{:?}",
        seen.lock().unwrap()
    );

    // Edit: a new name and key; a blank key later keeps it.
    let edit = |name: &str, key: Option<&str>, model: &str| ProviderEditInput {
        name: name.into(),
        base_url: Some(base.clone()),
        api_key: key.map(Into::into),
        clear_api_key: false,
        model: model.into(),
    };
    let v = providers::edit(&store, &p.id, edit("Lab 2", Some("sk-right"), "m-large"))
        .await
        .unwrap();
    assert_eq!(v.id, p.id, "the id (and so its sessions) stays");
    assert_eq!(v.name, "Lab 2");
    let default: Vec<&str> = v
        .models
        .iter()
        .filter(|m| m.is_default)
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(
        default,
        ["m-large"],
        "the provider held the default, so the new model takes it"
    );
    let v = providers::edit(&store, &p.id, edit("Lab 2", Some("  "), "m-large"))
        .await
        .unwrap();
    assert!(v.has_api_key);
    let t = providers::test(&store, &p.id, &env).await.unwrap();
    assert!(t.ok, "{t:?}");
    assert_eq!(t.models, ["m-small", "m-large"]);
    assert_eq!(t.base_url, base);

    // Bad input is refused and changes nothing.
    let bad = providers::edit(
        &store,
        &p.id,
        ProviderEditInput {
            base_url: Some("ftp://x".into()),
            ..edit("Lab 2", None, "m")
        },
    )
    .await
    .unwrap_err();
    assert!(bad.to_string().contains("http"), "{bad}");
    assert!(
        providers::edit(&store, "nope", edit("x", None, "m"))
            .await
            .is_err()
    );

    // Clearing the key, then deleting: the secret goes with the provider.
    let v = providers::edit(
        &store,
        &p.id,
        ProviderEditInput {
            clear_api_key: true,
            ..edit("Lab 2", None, "m-large")
        },
    )
    .await
    .unwrap();
    assert!(!v.has_api_key);
    providers::edit(&store, &p.id, edit("Lab 2", Some("sk-right"), "m-large"))
        .await
        .unwrap();
    assert!(providers::delete(&store, &p.id).await.unwrap());
    assert!(!providers::delete(&store, &p.id).await.unwrap());
    assert!(providers::list(&store).await.unwrap().is_empty());
    assert!(store.secrets().list_names().await.unwrap().is_empty());
}

#[tokio::test]
async fn probing_an_endpoint_lists_its_models_or_says_why_not() {
    use skald_session::services::providers;
    let (url, _) = recording_models_server().await;
    let env = env_config(&[]);
    let t = providers::probe(
        ProviderKind::OpenAi,
        Some(&format!("{url}/v1")),
        Some("sk-right"),
        &env,
    )
    .await;
    assert_eq!((t.ok, t.models.len()), (true, 2), "{t:?}");
    let t = providers::probe(ProviderKind::Ollama, Some("http://127.0.0.1:9"), None, &env).await;
    assert!(!t.ok);
    assert!(
        t.error.as_deref().unwrap_or("").contains("network error"),
        "{t:?}"
    );
    // No base URL: the kind's default, or the environment's endpoint.
    let env = env_config(&[("OLLAMA_HOST", "http://127.0.0.1:9")]);
    let t = providers::probe(ProviderKind::Ollama, None, None, &env).await;
    assert_eq!(t.base_url, "http://127.0.0.1:9");
}

#[tokio::test]
async fn choosing_a_discovered_model_adds_it_and_makes_it_the_default() {
    use skald_session::services::providers;
    let (_d, store) = store().await;
    let a = providers::add(&store, new_openai("A", "http://127.0.0.1:9/v1", "k", "a1"))
        .await
        .unwrap();
    let b = providers::add(&store, new_openai("B", "http://127.0.0.1:9/v1", "k", "b1"))
        .await
        .unwrap();
    let v = providers::use_model(&store, &a.id, "a2", true)
        .await
        .unwrap();
    assert_eq!(v.models.len(), 2);
    assert!(v.models.iter().any(|m| m.name == "a2" && m.is_default));
    let b = providers::list(&store)
        .await
        .unwrap()
        .into_iter()
        .find(|p| p.id == b.id)
        .unwrap();
    assert!(
        b.models.iter().all(|m| !m.is_default),
        "one default across providers"
    );
    // Not asked to, a provider without the default does not take it.
    let b = providers::use_model(&store, &b.id, "b2", false)
        .await
        .unwrap();
    assert!(b.models.iter().all(|m| !m.is_default));
}

/// The Settings page's images picker: the setting is written under the
/// name the turn's client really has (a stored OpenAI-compatible provider is
/// named by its id), so what the turn reads is what the person chose, and
/// the provider list shows it per model.
#[tokio::test]
async fn images_per_stored_model_reach_the_name_the_turn_reads() {
    use skald_session::services::providers;
    let (_d, store) = store().await;
    let p = providers::add(
        &store,
        new_openai("Lab", "http://127.0.0.1:1/v1", "k", "m-text"),
    )
    .await
    .unwrap();
    let model = &p.models[0];
    providers::set_model_send_images(&store, model.id, Some(false))
        .await
        .unwrap();

    let r =
        DefaultProviderResolver::with_env(store.clone(), env_config(&[])).with_ollama_probe(None);
    let resolved = r.resolve(Some("m-text")).await.unwrap();
    assert_eq!(
        providers::send_images(&store, resolved.provider.name(), &resolved.model)
            .await
            .unwrap(),
        Some(false)
    );
    let listed = providers::list(&store).await.unwrap();
    assert_eq!(listed[0].models[0].send_images, Some(false));

    providers::set_model_send_images(&store, model.id, None)
        .await
        .unwrap();
    assert_eq!(
        providers::list(&store).await.unwrap()[0].models[0].send_images,
        None
    );
    assert!(
        providers::set_model_send_images(&store, 999, Some(true))
            .await
            .is_err()
    );
}
