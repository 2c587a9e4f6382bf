//! Turns that went wrong or that the person wants again: a cut stream kept
//! as an incomplete answer (never sent back as finished), retries announced,
//! a failed turn kept with its error and retried, the last answer
//! regenerated, the last message edited, a message sent with no provider kept.

use std::sync::Arc;

use skald_llm::{LlmError, Message, ScriptedTurn, StreamEvent};
use skald_protocol::{ChatRole, IncompleteCause, SessionEvent, TurnOutcome};
use skald_session::{
    ChatSessionHandler, DefaultProviderResolver, RecordingSink, SessionError, SessionParams, notes,
};
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::*;

fn broken() -> LlmError {
    LlmError::StreamBroken {
        provider: "fake".into(),
        message: "connection reset".into(),
    }
}

fn users(req: &skald_llm::ChatRequest) -> Vec<String> {
    req.messages
        .iter()
        .filter_map(|m| match m {
            Message::User { content } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

fn assistants(req: &skald_llm::ChatRequest) -> Vec<String> {
    req.messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_stream_cut_mid_way_is_kept_incomplete_and_not_sent_back_as_finished() {
    let e = env([
        ScriptedTurn::new().text("The answer is").error(broken()),
        ScriptedTurn::text_reply("Sorry, 42."),
    ])
    .await;
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = e
        .handler
        .send_message(&sid, "What is it?", &sink)
        .await
        .unwrap();
    assert!(
        matches!(&outcome, TurnOutcome::Failed { message } if message.contains("connection reset"))
    );

    let history = e.handler.history(&sid).await.unwrap();
    let answer = history.last().unwrap();
    assert_eq!(answer.role, ChatRole::Assistant);
    assert_eq!(answer.content, "The answer is");
    assert!(answer.incomplete);
    assert!(
        answer
            .error
            .as_deref()
            .unwrap()
            .contains("connection reset")
    );
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::MessageIncomplete { message_id, .. } if *message_id == answer.id
    )));

    e.handler
        .send_message(&sid, "Go on", &RecordingSink::new())
        .await
        .unwrap();
    let sent = assistants(&e.request(1));
    assert_eq!(sent.len(), 1);
    assert!(sent[0].starts_with("The answer is"), "{sent:?}");
    assert!(sent[0].contains(notes::INCOMPLETE_ANSWER), "{sent:?}");
}

/// Why an answer is incomplete is stored with it: a later retry, which
/// clears the session's errors, never turns an older cut answer into one
/// the person stopped (for the model or for the chat).
#[tokio::test]
async fn a_cut_answer_stays_cut_after_a_later_retry_clears_the_errors() {
    let e = env([
        ScriptedTurn::new().text("The answer is").error(broken()),
        ScriptedTurn::new().error(broken()),
        ScriptedTurn::text_reply("Sorry, 42."),
    ])
    .await;
    let sid = e.session().await;
    let sink = RecordingSink::new();
    for text in ["What is it?", "Go on"] {
        let outcome = e.handler.send_message(&sid, text, &sink).await.unwrap();
        assert!(matches!(outcome, TurnOutcome::Failed { .. }), "{outcome:?}");
    }
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::MessageIncomplete { cause: IncompleteCause::Cut { error }, .. }
            if error.contains("connection reset")
    )));
    let outcome = e
        .handler
        .retry_turn(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    // The retry's request says the old answer was cut by the connection.
    let sent = assistants(&e.request(2));
    assert!(sent[0].starts_with("The answer is"), "{sent:?}");
    assert!(sent[0].contains(notes::INCOMPLETE_ANSWER), "{sent:?}");
    assert!(!sent[0].contains(notes::STOPPED_ANSWER), "{sent:?}");
    // The history still says so, though its error is cleared.
    let history = e.handler.history(&sid).await.unwrap();
    let cut = history
        .iter()
        .find(|m| m.content == "The answer is")
        .unwrap();
    assert!(cut.error.is_none());
    assert!(cut.incomplete);
    assert!(
        matches!(&cut.incomplete_cause, Some(IncompleteCause::Cut { error }) if error.contains("connection reset")),
        "{:?}",
        cut.incomplete_cause
    );
}

#[tokio::test]
async fn retry_notices_reach_the_event_stream_and_the_bus() {
    let e = env([ScriptedTurn::new()
        .event(StreamEvent::Retrying {
            attempt: 2,
            max_attempts: 5,
            delay_ms: 3000,
            reason: "rate limited".into(),
            detail: "openai: HTTP 429: slow down".into(),
        })
        .text("Done.")
        .done(skald_llm::StopReason::EndTurn)])
    .await;
    let sid = e.session().await;
    let mut bus = e.handler.subscribe_all();
    let sink = RecordingSink::new();
    e.handler.send_message(&sid, "hi", &sink).await.unwrap();
    let retry = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
                ..
            } => Some(skald_session::retry_line(
                &reason,
                delay_ms,
                attempt,
                max_attempts,
            )),
            _ => None,
        })
        .expect("a Retrying event");
    assert_eq!(retry, "rate limited, retrying in 3 s, attempt 2 of 5");
    let mut on_bus = false;
    while let Ok(ev) = bus.try_recv() {
        on_bus |= matches!(ev, SessionEvent::Retrying { .. });
    }
    assert!(on_bus, "windows following the session see it too");
}

#[tokio::test]
async fn a_failed_turn_keeps_its_error_and_retry_runs_it_again() {
    let e = env([
        ScriptedTurn::new().error(LlmError::Http {
            provider: "fake".into(),
            status: 503,
            message: "overloaded".into(),
            retry_after: None,
        }),
        ScriptedTurn::new().text("Half an ans").error(broken()),
        ScriptedTurn::text_reply("A whole answer."),
    ])
    .await;
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "Question", &RecordingSink::new())
        .await
        .unwrap();
    assert!(matches!(outcome, TurnOutcome::Failed { .. }));
    let history = e.handler.history(&sid).await.unwrap();
    assert_eq!(history.len(), 1, "the question stays");
    assert!(history[0].error.as_deref().unwrap().contains("503"));

    // Retry: the same question asked again, not stored twice; it fails mid-way.
    let outcome = e
        .handler
        .retry_turn(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert!(matches!(outcome, TurnOutcome::Failed { .. }));
    assert_eq!(users(&e.request(1)), ["Question"]);
    // Retry again: the cut answer is dropped, not sent back.
    let sink = RecordingSink::new();
    let outcome = e.handler.retry_turn(&sid, &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let req = e.request(2);
    assert_eq!(users(&req), ["Question"]);
    assert!(assistants(&req).is_empty(), "{:?}", assistants(&req));
    assert!(matches!(
        sink.events().first(),
        Some(SessionEvent::TurnStarted { .. })
    ));

    let history = e.handler.history(&sid).await.unwrap();
    let shown: Vec<(&str, bool)> = history
        .iter()
        .map(|m| (m.content.as_str(), m.error.is_some()))
        .collect();
    assert_eq!(shown, [("Question", false), ("A whole answer.", false)]);
    let err = e
        .handler
        .retry_turn(&sid, RecordingSink::new())
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::NothingToDo(_)), "{err}");
}

#[tokio::test]
async fn regenerate_drops_the_last_answer_and_asks_again() {
    let e = env([
        ScriptedTurn::text_reply("First try."),
        ScriptedTurn::text_reply("Second try."),
    ])
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "Say something", &RecordingSink::new())
        .await
        .unwrap();
    let outcome = e
        .handler
        .regenerate(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_eq!(
        e.request(1).messages,
        e.request(0).messages,
        "asked the same again"
    );
    let contents: Vec<String> = e
        .handler
        .history(&sid)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(contents, ["Say something", "Second try."]);
}

#[tokio::test]
async fn edit_replaces_the_last_message_and_what_followed() {
    let e = env([
        ScriptedTurn::text_reply("One."),
        ScriptedTurn::text_reply("Answer to the typo."),
        ScriptedTurn::text_reply("Answer to the fix."),
    ])
    .await;
    let sid = e.session().await;
    for text in ["First", "Secnod"] {
        e.handler
            .send_message(&sid, text, &RecordingSink::new())
            .await
            .unwrap();
    }
    let outcome = e
        .handler
        .edit_last_message(&sid, "Second", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let req = e.request(2);
    assert_eq!(users(&req), ["First", "Second"]);
    assert_eq!(assistants(&req), ["One."]);
    let contents: Vec<String> = e
        .handler
        .history(&sid)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(contents, ["First", "One.", "Second", "Answer to the fix."]);
}

/// A handler on `e`'s store that finds no provider at all (no environment,
/// no stored provider, no Ollama).
fn without_provider(e: &Env) -> ChatSessionHandler {
    let nothing = DefaultProviderResolver::with_env(
        e.store.clone(),
        skald_llm::ProviderConfig::from_lookup(|_| None),
    )
    .with_ollama_probe(Some("http://127.0.0.1:9".into()));
    let agents = e.dir.path().canonicalize().unwrap().join("agents");
    ChatSessionHandler::new(
        e.store.clone(),
        Arc::new(builtin_registry(&BuiltinDeps::default())),
        Arc::new(nothing),
        agents,
    )
}

#[tokio::test]
async fn an_edit_with_no_provider_keeps_the_edited_text_unsent_for_retry() {
    let e = env([
        ScriptedTurn::text_reply("Answer to the typo."),
        ScriptedTurn::text_reply("Answer to the fix."),
    ])
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "Secnod", &RecordingSink::new())
        .await
        .unwrap();
    let err = without_provider(&e)
        .edit_last_message(&sid, "Second", RecordingSink::new())
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::NoProvider(_)), "{err}");
    // The edited text replaced the old message and its answer, kept unsent
    // with why.
    let history = e.handler.history(&sid).await.unwrap();
    let texts: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["Second"]);
    assert_eq!(history[0].role, ChatRole::User);
    assert!(
        history[0]
            .error
            .as_deref()
            .is_some_and(|e| e.contains("no LLM provider")),
        "{:?}",
        history[0].error
    );
    // Once there is a provider, Retry sends the edited text.
    let outcome = e
        .handler
        .retry_turn(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_eq!(users(&e.request(1)), ["Second"]);
}

#[tokio::test]
async fn a_message_sent_with_no_provider_is_kept_and_sent_by_retry_once_there_is_one() {
    let e = env([ScriptedTurn::text_reply("Now I can answer.")]).await;
    let without = without_provider(&e);
    let sid = without
        .create_session(SessionParams {
            working_dir: Some(e.workdir.clone()),
            ..SessionParams::default()
        })
        .await
        .unwrap()
        .id;
    let err = without
        .send_message(&sid, "Please keep this", RecordingSink::new())
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::NoProvider(_)), "{err}");
    let history = without.history(&sid).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].content, "Please keep this");
    assert!(
        history[0]
            .error
            .as_deref()
            .unwrap()
            .contains("no LLM provider")
    );

    // Once a provider is there (the same store, a handler with the scripted
    // one), Retry sends it.
    let outcome = e
        .handler
        .retry_turn(&sid, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    assert_eq!(users(&e.request(0)), ["Please keep this"]);
    let history = e.handler.history(&sid).await.unwrap();
    assert_eq!(history.len(), 2);
    assert!(history.iter().all(|m| m.error.is_none()));
}

/// Edit holds the session from reading the history, through the cut, to the
/// end of its new answer: a send tried at any moment in between is refused
/// as busy, and the history is exactly the edited conversation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_other_turn_starts_while_an_edit_cuts_and_resends() {
    let e = env([
        ScriptedTurn::text_reply("One."),
        ScriptedTurn::text_reply("Answer to the typo."),
        ScriptedTurn::text_reply("Answer to the fix.").delay(std::time::Duration::from_millis(300)),
        ScriptedTurn::text_reply("Only after the edit ended."),
    ])
    .await;
    let sid = e.session().await;
    for text in ["First", "Secnod"] {
        e.handler
            .send_message(&sid, text, &RecordingSink::new())
            .await
            .unwrap();
    }
    let (h, id) = (e.handler.clone(), sid.clone());
    let edit = tokio::spawn(async move {
        h.edit_last_message(&id, "Second", RecordingSink::new())
            .await
    });
    wait_until("the edit claims the session", || {
        e.handler.is_running(&sid) || edit.is_finished()
    })
    .await;
    let mut refused = 0;
    // The edit's task is marked finished a moment after it gives the session
    // back, so a send in that moment may run: it must then come after the
    // whole edited conversation, never inside it (checked below).
    let mut sent_after = false;
    while !edit.is_finished() {
        match e
            .handler
            .send_message(&sid, "Sent after", RecordingSink::new())
            .await
        {
            Err(SessionError::Busy(_) | SessionError::BusyElsewhere(_)) => refused += 1,
            Ok(_) => {
                sent_after = true;
                break;
            }
            other => panic!("unexpected answer to a send during the edit: {other:?}"),
        }
        tokio::task::yield_now().await;
    }
    assert!(refused > 0, "the edit ended before a send was tried");
    assert_eq!(edit.await.unwrap().unwrap(), TurnOutcome::Completed);
    let contents: Vec<String> = e
        .handler
        .history(&sid)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    let edited = ["First", "One.", "Second", "Answer to the fix."];
    if sent_after {
        assert_eq!(contents[..4], edited);
        assert_eq!(contents[4..], ["Sent after", "Only after the edit ended."]);
        assert_eq!(e.fake.requests().len(), 4);
    } else {
        assert_eq!(contents, edited);
        assert_eq!(e.fake.requests().len(), 3);
    }
}
