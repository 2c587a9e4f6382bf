//! A chat's own model (the chat header's switcher): the pick is stored on
//! the session, the next turn of that chat asks it through the real
//! resolver and client, other chats keep the default, and every answer
//! keeps the provider and model that wrote it.

use std::sync::Arc;

use skald_llm::ProviderConfig;
use skald_llm_mock::{MOCK_MODELS, MockServer, sse_text};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::services::chat_models;
use skald_session::{ChatSessionHandler, DefaultProviderResolver, NullSink, RecordingSink};
use skald_store::{ModelRef, NewModel, NewProvider, ProviderKind, Role, Store};
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::{env, new_session};

async fn provider(store: &Store, id: &str, name: &str, url: &str, model: &str) -> i64 {
    store
        .providers()
        .create(&NewProvider {
            id: id.into(),
            kind: ProviderKind::OpenAi,
            name: name.into(),
            base_url: Some(url.into()),
            api_key_secret: None,
            enabled: true,
        })
        .await
        .unwrap();
    store
        .providers()
        .add_model(&NewModel {
            provider_id: id.into(),
            name: model.into(),
            context_window: None,
        })
        .await
        .unwrap()
        .id
}

/// The last assistant message's `(provider, model)`.
async fn answered_by(store: &Store, sid: &str) -> Option<ModelRef> {
    store
        .history()
        .list_for_session(sid)
        .await
        .unwrap()
        .into_iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .and_then(|m| m.extras.model)
}

#[tokio::test]
async fn a_chat_s_own_model_is_asked_by_its_next_turn_only_and_named_on_each_answer() {
    let e = env([]).await;
    let mock = MockServer::start([
        sse_text("From beta."),
        sse_text("From alpha."),
        sse_text("Alpha again."),
    ])
    .unwrap();
    let default = provider(&e.store, "alpha", "Alpha", mock.base_url(), "alpha-small").await;
    e.store
        .providers()
        .set_default_model(default)
        .await
        .unwrap();
    provider(&e.store, "beta", "Beta", mock.base_url(), "beta-large").await;
    let no_env = ProviderConfig::from_lookup(|_| None);
    let resolver =
        DefaultProviderResolver::with_env(e.store.clone(), no_env.clone()).with_ollama_probe(None);
    let handler = ChatSessionHandler::new(
        e.store.clone(),
        Arc::new(builtin_registry(&BuiltinDeps::default())),
        Arc::new(resolver),
        e.dir.path().canonicalize().unwrap().join("agents"),
    );
    let switched = new_session(&handler, &e.workdir).await;
    let other = new_session(&handler, &e.workdir).await;

    // What the switcher lists: both providers' stored models and what the
    // endpoint lists, the default, and no pick yet.
    let listed = chat_models::list(&e.store, &no_env, &switched)
        .await
        .unwrap();
    let names: Vec<(&str, &str)> = listed
        .options
        .iter()
        .map(|o| (o.provider.as_str(), o.model.as_str()))
        .collect();
    for want in [
        ("alpha", "alpha-small"),
        ("beta", "beta-large"),
        ("beta", MOCK_MODELS[0]),
    ] {
        assert!(names.contains(&want), "{want:?} in {names:?}");
    }
    assert_eq!(listed.chosen, None);
    let d = listed.default.unwrap();
    assert_eq!(
        (d.provider.as_str(), d.model.as_str()),
        ("alpha", "alpha-small")
    );

    let chosen = chat_models::set(
        &e.store,
        &switched,
        Some(("beta".into(), " beta-large ".into())),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(chosen.provider_name, "Beta");
    assert_eq!(chosen.model, "beta-large");

    let sink = RecordingSink::new();
    let out = handler
        .send_message(&switched, "hello beta", &sink)
        .await
        .unwrap();
    assert_eq!(out, TurnOutcome::Completed);
    // The UI names the model on the answer while it streams: the request's
    // context event says which model it went to, before the first token.
    let events = sink.events();
    let first_token = events
        .iter()
        .position(|ev| matches!(ev, SessionEvent::TokenDelta { .. }))
        .expect("a token");
    let named = events[..first_token].iter().find_map(|ev| match ev {
        SessionEvent::ContextUsage { model, .. } => model.clone(),
        _ => None,
    });
    assert_eq!(named.as_deref(), Some("beta-large"));
    let out = handler
        .send_message(&other, "hello alpha", NullSink)
        .await
        .unwrap();
    assert_eq!(out, TurnOutcome::Completed);
    let models: Vec<String> = mock
        .bodies()
        .iter()
        .map(|b| b["model"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        models,
        ["beta-large", "alpha-small"],
        "what the endpoint was asked"
    );
    assert_eq!(
        answered_by(&e.store, &switched).await,
        Some(ModelRef {
            provider: "beta".into(),
            model: "beta-large".into()
        })
    );
    assert_eq!(
        answered_by(&e.store, &other).await,
        Some(ModelRef {
            provider: "alpha".into(),
            model: "alpha-small".into()
        })
    );
    // The history the UI reads names the model on the answer.
    let history = handler.history(&switched).await.unwrap();
    let answer = history.iter().rfind(|m| m.content == "From beta.").unwrap();
    assert_eq!(answer.model.as_deref(), Some("beta-large"));
    assert_eq!(answer.model_provider.as_deref(), Some("beta"));
    let listed = chat_models::list(&e.store, &no_env, &switched)
        .await
        .unwrap();
    assert_eq!(listed.chosen.map(|c| c.model), Some("beta-large".into()));

    // Back to the default: the chat follows it again.
    chat_models::set(&e.store, &switched, None).await.unwrap();
    handler
        .send_message(&switched, "and now?", NullSink)
        .await
        .unwrap();
    assert_eq!(mock.bodies()[2]["model"], "alpha-small");
}

#[tokio::test]
async fn a_pick_of_an_unknown_provider_or_no_model_is_refused() {
    let e = env([]).await;
    let sid = e.session().await;
    let err = chat_models::set(&e.store, &sid, Some(("nowhere".into(), "m".into())))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no provider `nowhere`"), "{err}");
    let err = chat_models::set(&e.store, &sid, Some(("env:openai".into(), "  ".into())))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("model name"), "{err}");
    let err = chat_models::set(&e.store, "no-such-chat", None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no session"), "{err}");
    // An environment endpoint is a provider too.
    let ok = chat_models::set(&e.store, &sid, Some(("env:openai".into(), "gpt-x".into())))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ok.provider_name, "environment (OpenAI-compatible)");
    assert_eq!(
        e.store
            .sessions()
            .get(&sid)
            .await
            .unwrap()
            .unwrap()
            .model
            .unwrap()
            .model,
        "gpt-x"
    );
}

#[tokio::test]
async fn a_pick_of_an_environment_endpoint_goes_there_and_a_removed_provider_gives_way() {
    use skald_session::ProviderResolver;
    let e = env([]).await;
    let env = ProviderConfig::from_lookup(|k| match k {
        "OPENAI_BASE_URL" => Some("http://127.0.0.1:1/v1".into()),
        "ANTHROPIC_API_KEY" => Some("k".into()),
        _ => None,
    });
    let r = DefaultProviderResolver::with_env(e.store.clone(), env).with_ollama_probe(None);
    let m = r
        .resolve_pick(&ModelRef {
            provider: "env:anthropic".into(),
            model: "gpt-looking-name".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        (m.provider_id.as_str(), m.provider.name()),
        ("env:anthropic", "anthropic")
    );
    // A provider since deleted: the model by name, wherever it resolves.
    let m = r
        .resolve_pick(&ModelRef {
            provider: "gone".into(),
            model: "gpt-x".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        (m.provider_id.as_str(), m.model.as_str()),
        ("env:openai", "gpt-x")
    );
}
