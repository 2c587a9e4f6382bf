//! Every request is managed, whatever the model: its window learned from
//! the endpoint (an OpenAI-compatible model list, Ollama's `/api/show`) once
//! per model, else the default; and the estimate calibrated by the prompt
//! tokens the provider reported, so compaction happens when the real count
//! says so — not when the four-characters-a-token guess does.

use std::sync::Arc;

use skald_llm::{LlmProvider, Ollama, OpenAiCompatible, ScriptedTurn, StopReason};
use skald_llm_mock::{MockServer, Reply, sse_text};
use skald_protocol::SessionEvent;
use skald_session::{ChatSessionHandler, DEFAULT_CONTEXT_WINDOW, FixedProvider, RecordingSink};
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::*;

/// `(estimated, window)` of the last `ContextUsage` the sink saw.
fn usage(sink: &RecordingSink) -> (u32, u32) {
    sink.events()
        .iter()
        .rev()
        .find_map(|e| match e {
            SessionEvent::ContextUsage {
                estimated_tokens,
                context_window,
                ..
            } => Some((*estimated_tokens, *context_window)),
            _ => None,
        })
        .expect("a ContextUsage event")
}

/// A handler on `e`'s store asking `model` through `provider`.
fn handler_with(e: &Env, provider: Arc<dyn LlmProvider>, model: &str) -> ChatSessionHandler {
    ChatSessionHandler::new(
        e.store.clone(),
        Arc::new(builtin_registry(&BuiltinDeps::default())),
        Arc::new(FixedProvider::new(provider, model)),
        e.dir.path().canonicalize().unwrap().join("agents"),
    )
}

#[tokio::test]
async fn an_unknown_models_window_comes_from_the_endpoints_model_list_asked_once() {
    let e = env([]).await;
    let mock = MockServer::builder()
        .models(["my-own-model", "other"])
        .context_window("my-own-model", 50_000)
        .replies([sse_text("One."), sse_text("Two.")])
        .start()
        .unwrap();
    let client = OpenAiCompatible::new(mock.base_url(), Some("k".into())).unwrap();
    let h = handler_with(&e, Arc::new(client), "my-own-model");
    let sid = new_session(&h, &e.workdir).await;
    for text in ["first", "second"] {
        let sink = RecordingSink::new();
        h.send_message(&sid, text, &sink).await.unwrap();
        assert_eq!(usage(&sink).1, 50_000);
    }
    let lists = mock
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with("/models"))
        .count();
    assert_eq!(lists, 1, "asked once, then cached");
    assert_eq!(mock.bodies().len(), 2);
}

#[tokio::test]
async fn an_ollama_models_window_comes_from_api_show() {
    let e = env([]).await;
    let mock = MockServer::builder()
        .models(["qwen-local"])
        .context_window("qwen-local", 12_288)
        .replies([Reply::ndjson(skald_llm_mock::ollama::text("Hi."))])
        .start()
        .unwrap();
    let h = handler_with(&e, Arc::new(Ollama::new(mock.url()).unwrap()), "qwen-local");
    let sid = new_session(&h, &e.workdir).await;
    let sink = RecordingSink::new();
    h.send_message(&sid, "hello", &sink).await.unwrap();
    assert_eq!(usage(&sink).1, 12_288);
    let shows: Vec<_> = mock
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/show")
        .collect();
    assert_eq!(shows.len(), 1);
    assert_eq!(shows[0].body["model"], "qwen-local");
}

/// A model no setting, endpoint or table knows is managed with the default
/// window: a history beyond it is summarised, not sent whole.
#[tokio::test]
async fn a_model_nothing_knows_is_managed_with_the_default_window() {
    let e = env([
        ScriptedTurn::text_reply("Noted."),
        ScriptedTurn::text_reply("SUMMARY: a long paste about apples."),
        ScriptedTurn::text_reply("Noted too."),
    ])
    .await;
    let sid = e.session().await;
    // Each paste alone fits the default window; both together do not.
    let paste = |w: &str| format!("{w} ").repeat(DEFAULT_CONTEXT_WINDOW as usize * 4 / 2 / 7);
    let sink = RecordingSink::new();
    e.handler
        .send_message(&sid, &paste("apples"), &sink)
        .await
        .unwrap();
    assert_eq!(usage(&sink).1, DEFAULT_CONTEXT_WINDOW);
    e.handler
        .send_message(&sid, &paste("pears!"), &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(e.fake.requests().len(), 3, "a summary was asked for");
    let sent = serde_json::to_string(&e.request(2).messages).unwrap();
    assert!(sent.contains("SUMMARY: a long paste about apples."));
    assert!(!sent.contains("apples apples"), "the old paste is not sent");
    assert!(sent.contains("pears! pears!"));
}

/// The answer to the first message, with long text so that a summary of the
/// turn frees room; `reported`: the prompt tokens the provider counted.
fn first_answer(reported: Option<u64>) -> ScriptedTurn {
    let t = ScriptedTurn::new().text("apples ".repeat(3400));
    match reported {
        Some(n) => t.usage(n, 10).done(StopReason::EndTurn),
        None => t.done(StopReason::EndTurn),
    }
}

/// The plain estimate of turn 2 and the calibrated one, for a provider that
/// counted `delta` tokens more than the estimate of turn 1's request.
/// Leaves the session with turn 1 (its answer carrying the report) and turn
/// 2's message; `regenerate` asks turn 2 again.
async fn two_turns(e: &Env, sid: &str, delta: i64) -> (u32, u32) {
    e.fake.set_context_window(Some(10_000_000));
    let sink = RecordingSink::new();
    e.fake.push_turn(first_answer(None));
    e.handler
        .send_message(sid, "Tell me about apples", &sink)
        .await
        .unwrap();
    let (first, _) = usage(&sink);
    // The same request again, now with the provider's count.
    let reported = u64::try_from(i64::from(first) + delta).unwrap();
    e.fake.push_turn(first_answer(Some(reported)));
    e.handler
        .regenerate(sid, RecordingSink::new())
        .await
        .unwrap();
    e.fake.push_turn(ScriptedTurn::text_reply("Ok."));
    let sink = RecordingSink::new();
    e.handler
        .send_message(sid, "And pears?", &sink)
        .await
        .unwrap();
    let (calibrated, _) = usage(&sink);
    let plain = u32::try_from(i64::from(calibrated) - delta).unwrap();
    (plain, calibrated)
}

fn window_with_budget(budget: u32) -> u32 {
    budget * 5 / 4 + 1
}

#[tokio::test]
async fn a_provider_counting_more_than_the_estimate_triggers_compaction_the_estimate_would_not() {
    let e = env([]).await;
    let sid = e.session().await;
    let (plain, calibrated) = two_turns(&e, &sid, 3000).await;
    // Between the two: the plain estimate fits, the real count does not.
    let budget = plain + 1500;
    assert!(plain < budget && calibrated > budget);
    e.fake.set_context_window(Some(window_with_budget(budget)));
    e.fake
        .push_turn(ScriptedTurn::text_reply("SUMMARY: apples were discussed."));
    e.fake.push_turn(ScriptedTurn::text_reply("Pears, then."));
    let asked = e.fake.requests().len();
    e.handler
        .regenerate(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(e.fake.requests().len(), asked + 2, "summary, then the turn");
    let sent = serde_json::to_string(&e.request(asked + 1).messages).unwrap();
    assert!(sent.contains("SUMMARY: apples were discussed."), "{sent}");
    assert!(!sent.contains("apples apples"));
    assert_eq!(
        e.store
            .summaries()
            .list_for_session(&sid)
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn a_provider_counting_less_than_the_estimate_keeps_a_history_the_estimate_would_compact() {
    let e = env([]).await;
    let sid = e.session().await;
    let (plain, calibrated) = two_turns(&e, &sid, -2000).await;
    // Between the two: the plain estimate is over, the real count within.
    let budget = plain - 1000;
    assert!(plain > budget && calibrated < budget);
    e.fake.set_context_window(Some(window_with_budget(budget)));
    e.fake.push_turn(ScriptedTurn::text_reply("Pears, then."));
    let asked = e.fake.requests().len();
    let sink = RecordingSink::new();
    e.handler.regenerate(&sid, &sink).await.unwrap();
    assert_eq!(e.fake.requests().len(), asked + 1, "no summary was asked");
    let sent = serde_json::to_string(&e.request(asked).messages).unwrap();
    assert!(sent.contains("apples apples") && sent.contains("And pears?"));
    assert!(
        e.store
            .summaries()
            .list_for_session(&sid)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        usage(&sink).0,
        calibrated,
        "the reported size is the calibrated one"
    );
}
