//! Listing an endpoint's models, in the shapes the providers document.

use serde_json::json;
use skald_llm::{LlmError, ModelApi, list_models};

use skald_llm_mock::{MockServer, Reply};

fn json_reply(body: serde_json::Value) -> Reply {
    Reply::stream("application/json", body.to_string())
}

#[tokio::test]
async fn openai_compatible_lists_data_ids_with_the_bearer_key() {
    // The shape of OpenAI's `GET /v1/models` (also OpenRouter's, vLLM's, llama.cpp's).
    let server = MockServer::raw([json_reply(json!({
        "object": "list",
        "data": [
            {"id": "gpt-4o-mini", "object": "model", "created": 1721172741, "owned_by": "system"},
            {"id": "o3-mini", "object": "model", "created": 1737146383, "owned_by": "system"},
            {"id": "gpt-4o-mini", "object": "model", "created": 1721172741, "owned_by": "system"}
        ]
    }))])
    .unwrap();
    let base = format!("{}/v1", server.url());
    let models = list_models(ModelApi::OpenAi, &base, Some("sk-test"))
        .await
        .unwrap();
    assert_eq!(models, ["gpt-4o-mini", "o3-mini"]);
    let req = &server.requests()[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(req.header("authorization"), Some("Bearer sk-test"));
}

#[tokio::test]
async fn anthropic_lists_with_its_key_and_version_headers() {
    let server = MockServer::raw([json_reply(json!({
        "data": [
            {"type": "model", "id": "claude-sonnet-4-20250514", "display_name": "Claude Sonnet 4", "created_at": "2025-05-22T00:00:00Z"},
            {"type": "model", "id": "claude-3-5-haiku-20241022", "display_name": "Claude Haiku 3.5", "created_at": "2024-10-22T00:00:00Z"}
        ],
        "has_more": false,
        "first_id": "claude-sonnet-4-20250514",
        "last_id": "claude-3-5-haiku-20241022"
    }))])
    .unwrap();
    let models = list_models(ModelApi::Anthropic, server.url(), Some("sk-ant"))
        .await
        .unwrap();
    assert_eq!(
        models,
        ["claude-sonnet-4-20250514", "claude-3-5-haiku-20241022"]
    );
    let req = &server.requests()[0];
    assert!(req.path.starts_with("/v1/models"), "{}", req.path);
    assert_eq!(req.header("x-api-key"), Some("sk-ant"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn ollama_lists_pulled_model_names() {
    let server = MockServer::raw([json_reply(json!({
        "models": [
            {"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 2019393189, "digest": "a80c4f17acd5"},
            {"name": "qwen3:8b", "model": "qwen3:8b", "size": 5225388164u64, "digest": "500a1f067a9f"}
        ]
    }))])
    .unwrap();
    let models = list_models(ModelApi::Ollama, server.url(), None)
        .await
        .unwrap();
    assert_eq!(models, ["llama3.2:latest", "qwen3:8b"]);
    assert_eq!(server.requests()[0].path, "/api/tags");
}

#[tokio::test]
async fn a_refused_key_a_wrong_url_and_nothing_listening_say_so() {
    let server = MockServer::raw([
        Reply::error(401, json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})),
        // A web page where the API should be: the base URL is wrong.
        Reply::stream("application/json", r#"{"ok":true}"#),
    ])
    .unwrap();
    let base = format!("{}/v1", server.url());
    let e = list_models(ModelApi::OpenAi, &base, Some("bad"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Http { status: 401, .. }), "{e}");
    assert!(e.to_string().contains("Incorrect API key"), "{e}");
    let e = list_models(ModelApi::OpenAi, &base, None)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("check the base URL"), "{e}");
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let e = list_models(ModelApi::OpenAi, &url, None).await.unwrap_err();
    assert!(matches!(e, LlmError::Network { .. }), "{e}");
}
