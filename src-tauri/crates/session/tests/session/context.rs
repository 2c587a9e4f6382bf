//! Context management with a small window reported by the scripted provider:
//! old tool results are trimmed first, then the oldest turns summarised (the
//! summary stored and sent in their place from then on), and the person's
//! last message is never cut — a turn that cannot fit fails, saying so.

use serde_json::json;
use skald_llm::{ChatRequest, Message, ScriptedTurn};
use skald_protocol::{ChatRole, SessionEvent, TurnOutcome};
use skald_session::{RecordingSink, SessionError};

use crate::common::*;

/// The estimate the session reported for its last request (with a window so
/// large that nothing is trimmed).
fn last_estimate(sink: &RecordingSink) -> u32 {
    sink.events()
        .iter()
        .rev()
        .find_map(|e| match e {
            SessionEvent::ContextUsage {
                estimated_tokens, ..
            } => Some(*estimated_tokens),
            _ => None,
        })
        .expect("a ContextUsage event")
}

/// A window whose budget (four fifths of it) is `budget` tokens.
fn window_with_budget(budget: u32) -> u32 {
    budget * 5 / 4 + 1
}

fn all_text(req: &ChatRequest) -> String {
    serde_json::to_string(&req.messages).unwrap()
}

fn summaries_in(req: &ChatRequest) -> Vec<&str> {
    req.messages
        .iter()
        .filter_map(|m| match m {
            Message::System { content } if content.starts_with("Summary of the earlier") => {
                Some(content.as_str())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn old_tool_results_are_trimmed_first_and_nothing_is_summarised_when_that_suffices() {
    let e = env([
        ScriptedTurn::tool_reply("c1", "read_file", json!({"path": "big.txt"}).to_string()),
        ScriptedTurn::text_reply("It is a long file."),
        ScriptedTurn::text_reply("You're welcome."),
    ])
    .await;
    std::fs::write(e.path("big.txt"), "a line of the big file\n".repeat(600)).unwrap();
    let sid = e.session().await;
    e.fake.set_context_window(Some(10_000_000));
    let sink = RecordingSink::new();
    e.handler
        .send_message(&sid, "Read big.txt", &sink)
        .await
        .unwrap();
    let full = last_estimate(&sink);

    // Now the window holds all but ~1,000 tokens of it: the 13,800-character
    // result (about 3,450 tokens) has to go, nothing else.
    e.fake
        .set_context_window(Some(window_with_budget(full - 1000)));
    let sink = RecordingSink::new();
    let outcome = e.handler.send_message(&sid, "Thanks", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    let req = e.request(2);
    let results: Vec<&str> = req
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 1);
    assert!(
        results[0].starts_with("[Old tool result trimmed to fit the context window"),
        "{}",
        results[0]
    );
    assert!(summaries_in(&req).is_empty(), "no summary needed");
    assert_eq!(e.fake.requests().len(), 3, "no summary request was made");
    assert!(
        e.store
            .summaries()
            .list_for_session(&sid)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(has_event(&sink, |ev| matches!(
        ev,
        SessionEvent::ContextUsage {
            trimmed_tool_results: 1,
            ..
        }
    )));
    // The stored result is untouched: only the request was trimmed.
    let rows = e.tool_rows(&sid).await;
    assert!(rows[0].result.as_deref().unwrap().len() > 13_000);
    // Both the person's messages went out whole.
    let text = all_text(&req);
    assert!(text.contains("Read big.txt") && text.contains("Thanks"));
}

#[tokio::test]
async fn the_oldest_turns_are_summarised_stored_and_sent_in_their_place_from_then_on() {
    let long = |w: &str| format!("{w} ").repeat(2400);
    let e = env([
        ScriptedTurn::text_reply(long("apples")),
        ScriptedTurn::text_reply(long("pears")),
    ])
    .await;
    let sid = e.session().await;
    e.fake.set_context_window(Some(10_000_000));
    let sink = RecordingSink::new();
    e.handler
        .send_message(&sid, "Tell me about APPLES", &sink)
        .await
        .unwrap();
    e.handler
        .send_message(&sid, "Tell me about PEARS", &sink)
        .await
        .unwrap();
    let two_turns = last_estimate(&sink);

    // About 4,000 tokens per answer; a window that holds the last two
    // turns with a summary, not all three.
    e.fake
        .set_context_window(Some(window_with_budget(two_turns + 2500)));
    e.fake.push_turn(ScriptedTurn::text_reply(
        "SUMMARY: the person asked about apples; the agent described them at length.",
    ));
    e.fake
        .push_turn(ScriptedTurn::text_reply("Plums are stone fruit."));
    let sink = RecordingSink::new();
    let outcome = e
        .handler
        .send_message(&sid, "And PLUMS?", &sink)
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);

    // The summariser got the oldest turn, not the one being answered.
    let asked = e.request(2);
    assert!(asked.system.as_deref().unwrap().contains("summarise"));
    assert!(asked.tools.is_empty());
    let transcript = all_text(&asked);
    assert!(transcript.contains("Tell me about APPLES"), "{transcript}");
    assert!(!transcript.contains("And PLUMS?"));

    // The answer's request: the summary in place of that turn, the rest whole.
    let req = e.request(3);
    let text = all_text(&req);
    assert_eq!(summaries_in(&req).len(), 1);
    assert!(summaries_in(&req)[0].contains("SUMMARY: the person asked about apples"));
    assert!(
        !text.contains("Tell me about APPLES"),
        "the covered turn is gone"
    );
    assert!(text.contains("Tell me about PEARS") && text.contains("And PLUMS?"));
    assert!(
        matches!(req.messages.last(), Some(Message::User { content }) if content == "And PLUMS?")
    );

    // Stored, announced, and a divider in the history after what it covers.
    let stored = e.store.summaries().list_for_session(&sid).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert!(!stored[0].manual);
    assert_eq!(stored[0].message_count, 2);
    let announced = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::ContextSummarized { summary, .. } => Some(summary),
            _ => None,
        })
        .expect("ContextSummarized");
    assert_eq!(announced.id, stored[0].id);
    let history = e.handler.history(&sid).await.unwrap();
    let at = history.iter().position(|m| m.summary.is_some()).unwrap();
    assert_eq!(history[at].role, ChatRole::System);
    assert!(history[at].content.starts_with("SUMMARY:"));
    assert_eq!(
        history[at - 1].content,
        long("apples"),
        "right after the covered answer"
    );
    assert_eq!(history[at + 1].content, "Tell me about PEARS");
    assert_eq!(history.len(), 7, "every message is still shown");

    // The next turn uses the stored summary without asking for a new one.
    e.fake.push_turn(ScriptedTurn::text_reply("Cherries too."));
    e.handler
        .send_message(&sid, "Cherries?", &RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(e.fake.requests().len(), 5, "no second summary request");
    let next = e.request(4);
    assert!(summaries_in(&next)[0].contains("SUMMARY: the person asked about apples"));
    assert!(!all_text(&next).contains("Tell me about APPLES"));
}

#[tokio::test]
async fn a_last_message_too_big_for_the_window_fails_the_turn_and_is_kept_whole() {
    let e = env([]).await;
    let sid = e.session().await;
    e.fake.set_context_window(Some(10_000_000));
    // Measure what an empty conversation costs (system prompt and tools).
    e.fake.push_turn(ScriptedTurn::text_reply("hi"));
    let sink = RecordingSink::new();
    e.handler.send_message(&sid, "hi", &sink).await.unwrap();
    let base = last_estimate(&sink);

    e.fake
        .set_context_window(Some(window_with_budget(base + 500)));
    let huge = "word ".repeat(4000);
    let sink = RecordingSink::new();
    let outcome = e.handler.send_message(&sid, &huge, &sink).await.unwrap();
    let TurnOutcome::Failed { message } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains("does not fit the model's context window"),
        "{message}"
    );
    assert!(message.contains("shorten the last message"), "{message}");
    // Nothing was sent: no summary could make room, and the message is never cut.
    assert_eq!(e.fake.requests().len(), 1);
    let history = e.handler.history(&sid).await.unwrap();
    let last = history.iter().rev().find(|m| m.summary.is_none()).unwrap();
    assert_eq!(last.content, huge, "kept whole");
    assert!(last.error.as_deref().unwrap().contains("context window"));
}

#[tokio::test]
async fn compact_summarises_all_but_the_last_turn_on_request() {
    let e = env([
        ScriptedTurn::text_reply("Answer one."),
        ScriptedTurn::text_reply("Answer two."),
        ScriptedTurn::text_reply("SUMMARY of turn one."),
        ScriptedTurn::text_reply("Answer three."),
    ])
    .await;
    let sid = e.session().await;
    let err = e.handler.compact(&sid).await.unwrap_err();
    assert!(matches!(err, SessionError::NothingToDo(_)), "{err}");
    for text in ["First question", "Second question"] {
        e.handler
            .send_message(&sid, text, &RecordingSink::new())
            .await
            .unwrap();
    }
    let mut bus = e.handler.subscribe_all();
    let view = e.handler.compact(&sid).await.unwrap();
    assert!(view.manual);
    assert_eq!(view.content, "SUMMARY of turn one.");
    assert_eq!(view.message_count, 2);
    assert!(all_text(&e.request(2)).contains("First question"));
    assert!(!all_text(&e.request(2)).contains("Second question"));
    assert!(matches!(
        bus.try_recv(),
        Ok(SessionEvent::ContextSummarized { summary, .. }) if summary == view
    ));

    e.handler
        .send_message(&sid, "Third question", &RecordingSink::new())
        .await
        .unwrap();
    let req = e.request(3);
    let text = all_text(&req);
    assert_eq!(summaries_in(&req).len(), 1);
    assert!(!text.contains("First question"));
    assert!(text.contains("Second question") && text.contains("Third question"));
}
