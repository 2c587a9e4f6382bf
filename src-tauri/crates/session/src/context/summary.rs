//! Summaries of the oldest turns: where to cut (only at a person's message,
//! never past the last one), the request that asks the session's own model
//! for the summary, and the stored row as the UI shows it.

use futures_util::StreamExt;
use skald_core_api::CancellationToken;
use skald_llm::{ChatRequest, Message, ResponseAccumulator, StreamEvent};
use skald_protocol::SummaryView;
use skald_store::{MessageRow, NewSummary, Role, Store, SummaryRow};

use super::{budget, tokens};
use crate::assemble::tool_calls_of;
use crate::error::SessionError;
use crate::provider::ResolvedModel;

/// What the summariser is told.
const SUMMARY_PROMPT: &str = "You summarise the earlier part of a conversation between a \
person and an AI agent that uses tools, so the agent can continue the work without it. \
Write a compact summary: the person's goals and requests, decisions made, facts learned \
(file paths, names, numbers, errors), what the agent did with its tools and the results \
that still matter, and what was left open. Write plain text, no preamble.";

/// Each tool result in the transcript is cut to this many characters.
const RESULT_CHARS: usize = 600;

/// Where a conversation may be cut: before each of the person's messages
/// after the first, up to and including the last one (which is never
/// covered). Indices into `rows`; covering `rows[..i]`.
pub(crate) fn cut_points(rows: &[MessageRow]) -> Vec<usize> {
    rows.iter()
        .enumerate()
        .filter(|(i, r)| *i > 0 && r.role == Role::User)
        .map(|(i, _)| i)
        .collect()
}

/// How long the stand-in text may be (tokens): an eighth of the budget, at
/// least 128.
pub(crate) fn allowance(window: u32) -> u32 {
    (budget(window) / 8).max(128)
}

/// The message that stands in for the covered turns in a request.
pub(crate) fn stand_in(content: &str) -> Message {
    Message::system(format!(
        "Summary of the earlier conversation (the messages it covers are not repeated \
         below):\n\n{content}"
    ))
}

/// The covered rows as a transcript, cut to about `max_chars` (the head and
/// the tail kept, the middle left out with a note).
fn transcript(previous: Option<&str>, rows: &[MessageRow], max_chars: usize) -> String {
    let mut out = String::new();
    if let Some(p) = previous {
        out.push_str("Summary of what came before:\n");
        out.push_str(p);
        out.push_str("\n\n");
    }
    for r in rows {
        match r.role {
            Role::User => out.push_str(&format!("Person: {}\n\n", r.content)),
            Role::System => out.push_str(&format!("Note: {}\n\n", r.content)),
            Role::Assistant => {
                if !r.content.is_empty() {
                    out.push_str(&format!("Agent: {}\n\n", r.content));
                }
                for c in tool_calls_of(r) {
                    out.push_str(&format!("Agent called {}({})\n\n", c.name, c.arguments));
                }
            }
            Role::Tool => {
                let text = match r.content.char_indices().nth(RESULT_CHARS) {
                    Some((i, _)) => format!("{}… [cut]", &r.content[..i]),
                    None => r.content.clone(),
                };
                out.push_str(&format!("Tool result: {text}\n\n"));
            }
        }
    }
    if out.len() <= max_chars {
        return out;
    }
    let half = max_chars / 2;
    let head_end = (0..=half)
        .rev()
        .find(|i| out.is_char_boundary(*i))
        .unwrap_or(0);
    let tail_start = (out.len() - half..out.len())
        .find(|i| out.is_char_boundary(*i))
        .unwrap_or(out.len());
    format!(
        "{}\n[… {} characters left out …]\n{}",
        &out[..head_end],
        tail_start - head_end,
        &out[tail_start..]
    )
}

/// Estimated tokens of the rows (for the summary's record).
pub(crate) fn rows_tokens(rows: &[MessageRow]) -> u32 {
    rows.iter()
        .map(|r| {
            let calls = r.tool_calls.as_ref().map_or(0, |v| v.to_string().len());
            tokens(r.content.len() + calls).saturating_add(super::PER_MESSAGE)
        })
        .fold(0, u32::saturating_add)
}

/// What is summarised and where it is stored.
pub(crate) struct Summarise<'a> {
    pub store: &'a Store,
    pub session_id: &'a str,
    pub frame_id: i64,
    pub model: &'a ResolvedModel,
    /// The context window (the summariser's request must fit it too).
    pub window: Option<u32>,
    pub previous: Option<&'a SummaryRow>,
    /// The rows it covers, oldest first (not empty).
    pub rows: &'a [MessageRow],
    pub manual: bool,
}

/// Asks the model for the summary and stores it.
pub(crate) async fn summarise(
    s: Summarise<'_>,
    cancel: CancellationToken,
) -> Result<SummaryRow, SessionError> {
    let (Some(first), Some(last)) = (s.rows.first(), s.rows.last()) else {
        return Err(SessionError::NothingToDo(
            "nothing to summarise: the conversation has only its last turn".into(),
        ));
    };
    let max_chars = s
        .window
        .map_or(200_000, |w| {
            (budget(w).saturating_sub(allowance(w) + 200) as usize) * 4
        })
        .max(2_000);
    let request = ChatRequest {
        model: s.model.model.clone(),
        system: Some(SUMMARY_PROMPT.to_string()),
        messages: vec![Message::user(transcript(
            s.previous.map(|p| p.content.as_str()),
            s.rows,
            max_chars,
        ))],
        tools: Vec::new(),
        max_tokens: s.window.map(allowance),
        temperature: None,
        reasoning: None,
    };
    let mut acc = ResponseAccumulator::new();
    let mut stream = s.model.provider.stream(&request);
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => {
                return Err(SessionError::NothingToDo("stopped while summarising".into()));
            }
            next = stream.next() => next,
        };
        match next {
            None => break,
            Some(Err(e)) => return Err(SessionError::Llm(e)),
            Some(Ok(StreamEvent::Retrying { .. })) => {}
            Some(Ok(e)) => acc.push(&e),
        }
    }
    let text = acc.finish().text.trim().to_string();
    if text.is_empty() {
        return Err(SessionError::NothingToDo(
            "the model returned an empty summary".into(),
        ));
    }
    let covered =
        rows_tokens(s.rows).saturating_add(s.previous.map_or(0, |p| tokens(p.content.len())));
    let row = s
        .store
        .summaries()
        .add(&NewSummary {
            session_id: s.session_id.to_string(),
            stack_id: Some(s.frame_id),
            content: text,
            first_message_id: s.previous.map_or(first.id, |p| p.first_message_id),
            last_message_id: last.id,
            message_count: i64::try_from(s.rows.len()).unwrap_or(i64::MAX)
                + s.previous.map_or(0, |p| p.message_count),
            covered_tokens: i64::from(covered),
            manual: s.manual,
        })
        .await?;
    Ok(row)
}

/// A stored summary as the UI shows it.
pub(crate) fn view(row: &SummaryRow) -> SummaryView {
    SummaryView {
        id: row.id,
        content: row.content.clone(),
        first_message_id: row.first_message_id,
        last_message_id: row.last_message_id,
        message_count: u32::try_from(row.message_count).unwrap_or(0),
        covered_tokens: u32::try_from(row.covered_tokens).unwrap_or(0),
        manual: row.manual,
        created_at: row.created_at,
    }
}
