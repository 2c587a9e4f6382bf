//! From stored rows to what the model and the UI see: the conversation of a
//! request (always well formed: every tool call answered right after its
//! assistant message) and the history with tool-call cards.
//!
//! Pure functions over rows; no I/O.

use std::collections::HashMap;

use serde_json::Value;
use skald_core_api::{ContentBlock, ToolDescriptionLength, ToolOutput};
use skald_llm::{Message, ReasoningPart, ToolCall};
use skald_protocol::{
    ChatMessage, ChatRole, IncompleteCause, ToolCallView, UsageView, WritePreview,
};
use skald_store::{AssistantExtras, Incomplete, MessageRow, MessageUsage, Role, ToolCallRow};
use skald_tools::CallLabels;

use crate::images::{FitCache, Fitted, ImagePolicy, RECENT_TURNS};
use crate::notes;

/// The tool calls stored on an assistant row (`[{id, name, arguments}]`).
pub(crate) fn tool_calls_of(row: &MessageRow) -> Vec<ToolCall> {
    match (&row.role, &row.tool_calls) {
        (Role::Assistant, Some(v)) => serde_json::from_value(v.clone()).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The reasoning stored on an assistant row. Parts this build does not know are skipped
/// (never sent back half-understood).
pub(crate) fn reasoning_of(row: &MessageRow) -> Vec<ReasoningPart> {
    match (&row.role, &row.extras.reasoning) {
        (Role::Assistant, Some(serde_json::Value::Array(parts))) => parts
            .iter()
            .filter_map(|p| serde_json::from_value(p.clone()).ok())
            .collect(),
        _ => Vec::new(),
    }
}

/// What `chat_history` keeps with an assistant message: its reasoning and usage.
pub(crate) fn extras_of(
    reasoning: &[ReasoningPart],
    usage: Option<skald_llm::Usage>,
) -> AssistantExtras {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    AssistantExtras {
        reasoning: (!reasoning.is_empty())
            .then(|| serde_json::to_value(reasoning).ok())
            .flatten(),
        usage: usage.map(|u| MessageUsage {
            input_tokens: n(u.input_tokens),
            output_tokens: n(u.output_tokens),
            cache_read_tokens: n(u.cache_read_tokens),
            cache_write_tokens: n(u.cache_write_tokens),
            reasoning_tokens: n(u.reasoning_tokens),
            cost_usd: u.cost_usd,
        }),
        incomplete: None,
        model: None,
    }
}

/// A stored usage as the UI shows it.
pub(crate) fn usage_view(u: &MessageUsage) -> UsageView {
    let n = |v: i64| u32::try_from(v).unwrap_or(if v < 0 { 0 } else { u32::MAX });
    UsageView {
        input_tokens: n(u.input_tokens),
        output_tokens: n(u.output_tokens),
        cache_read_tokens: n(u.cache_read_tokens),
        cache_write_tokens: n(u.cache_write_tokens),
        reasoning_tokens: n(u.reasoning_tokens),
        cost_usd: u.cost_usd,
    }
}

/// The JSON stored in `chat_history.tool_calls` for `calls`.
pub(crate) fn tool_calls_json(calls: &[ToolCall]) -> Option<Value> {
    if calls.is_empty() {
        return None;
    }
    serde_json::to_value(calls).ok()
}

/// The conversation for a request. Tool results are placed right after the
/// assistant message that asked for them, in call order; a call without a
/// stored result gets [`notes::NO_RESULT`]; stray results are dropped. So
/// even a history damaged by a crash yields a request providers accept.
#[cfg(test)]
pub(crate) fn to_messages(rows: &[MessageRow]) -> Vec<Message> {
    to_messages_awaiting(
        rows,
        &std::collections::HashSet::new(),
        &HashMap::new(),
        ImagePolicy {
            send: false,
            max_bytes: 0,
        },
        &FitCache::default(),
    )
}

/// The content blocks stored with a call (none for rows from before they
/// were kept, or unreadable JSON).
pub(crate) fn blocks_of(row: &ToolCallRow) -> Vec<ContentBlock> {
    row.blocks
        .as_deref()
        .and_then(|b| serde_json::from_str(b).ok())
        .unwrap_or_default()
}

/// Image formats the providers that take images all accept.
fn model_image(mime: &str) -> bool {
    matches!(
        mime,
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    )
}

/// The `tool` message answering `id`: its history text, and its images as
/// images when the policy sends them and the call is `recent` (fitted to
/// the provider's size), else named in words.
fn tool_message(
    id: &str,
    content: &str,
    blocks: &[ContentBlock],
    recent: bool,
    policy: ImagePolicy,
    cache: &FitCache,
) -> Message {
    let mut images = Vec::new();
    let mut unsent = Vec::new();
    let mut notes = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if let ContentBlock::Image { mime, data_base64 } = b {
            if !(policy.send && model_image(mime)) {
                unsent.push(b.clone());
            } else if !recent {
                notes.push(format!(
                    "[image: {mime}, {} KB, shown to the model earlier]",
                    (data_base64.len() / 4 * 3).div_ceil(1024)
                ));
            } else {
                match cache.fit(id, i, mime, data_base64, policy.max_bytes) {
                    Fitted::Send(part) => images.push(part),
                    Fitted::Note(note) => notes.push(note),
                }
            }
        }
    }
    let mut text = ToolOutput {
        text: content.to_string(),
        blocks: unsent,
    }
    .text_for_model(false);
    for note in notes {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&note);
    }
    Message::tool_result_with_images(id, text, images)
}

/// [`to_messages`], with the calls in `awaiting` (waiting for a person's
/// approval) answered by [`notes::AWAITING_APPROVAL`] until they are settled,
/// and the images of results (`blocks`, by call id) sent as `policy` says,
/// only for calls answering the last [`RECENT_TURNS`] user messages.
pub(crate) fn to_messages_awaiting(
    rows: &[MessageRow],
    awaiting: &std::collections::HashSet<String>,
    blocks: &HashMap<String, Vec<ContentBlock>>,
    policy: ImagePolicy,
    cache: &FitCache,
) -> Vec<Message> {
    // Rows before this index are older than the recent turns.
    let recent_from = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.role == Role::User)
        .map(|(i, _)| i)
        .rev()
        .nth(RECENT_TURNS - 1)
        .unwrap_or(0);
    let mut results: HashMap<&str, &str> = HashMap::new();
    for r in rows {
        if r.role == Role::Tool
            && let Some(id) = &r.tool_call_id
        {
            results.entry(id.as_str()).or_insert(r.content.as_str());
        }
    }
    for id in awaiting {
        results
            .entry(id.as_str())
            .or_insert(notes::AWAITING_APPROVAL);
    }
    let mut out = Vec::with_capacity(rows.len());
    for (at, r) in rows.iter().enumerate() {
        match r.role {
            Role::User => out.push(Message::user(r.content.clone())),
            Role::System => out.push(Message::system(r.content.clone())),
            Role::Tool => {}
            Role::Assistant => {
                let calls = tool_calls_of(r);
                let answers: Vec<Message> = calls
                    .iter()
                    .map(|c| {
                        let content = results
                            .get(c.id.as_str())
                            .copied()
                            .unwrap_or(notes::NO_RESULT);
                        let b = blocks.get(c.id.as_str()).map_or(&[][..], Vec::as_slice);
                        tool_message(&c.id, content, b, at >= recent_from, policy, cache)
                    })
                    .collect();
                // A cut answer goes back marked as such, never as finished,
                // saying who cut it (stored with it: a retry's cleared
                // errors do not change it).
                let content = match &r.extras.incomplete {
                    None => r.content.clone(),
                    Some(Incomplete::Cut(_)) => {
                        format!("{}\n\n{}", r.content, notes::INCOMPLETE_ANSWER)
                    }
                    Some(Incomplete::Stopped) => {
                        format!("{}\n\n{}", r.content, notes::STOPPED_ANSWER)
                    }
                };
                out.push(Message::Assistant {
                    content,
                    tool_calls: calls,
                    reasoning: reasoning_of(r),
                });
                out.extend(answers);
            }
        }
    }
    out
}

/// Stored arguments as JSON (malformed ones as the raw string).
pub(crate) fn arguments_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// The card of a stored call.
pub(crate) fn view_of(registry: &dyn CallLabels, row: &ToolCallRow) -> ToolCallView {
    let arguments = arguments_value(&row.arguments);
    // Stored for every write that ran or asked: its card keeps the diff.
    let write_preview =
        (row.old_preview.is_some() || row.new_preview.is_some()).then(|| WritePreview {
            old_content: row.old_preview.clone(),
            new_content: row.new_preview.clone(),
            note: row.preview_note.clone(),
        });
    ToolCallView {
        decision_reason: row.decision_reason.clone(),
        blocks: blocks_of(row),
        write_preview,
        ..view(
            registry,
            &row.id,
            &row.name,
            arguments,
            row.status,
            row.result.clone(),
        )
    }
}

/// A card: labels and target path computed by the registry.
pub(crate) fn view(
    registry: &dyn CallLabels,
    id: &str,
    name: &str,
    arguments: Value,
    status: skald_store::ToolCallStatus,
    result: Option<String>,
) -> ToolCallView {
    ToolCallView {
        id: id.to_string(),
        name: name.to_string(),
        label_short: registry.describe_call(name, &arguments, ToolDescriptionLength::Short),
        label_full: registry.describe_call(name, &arguments, ToolDescriptionLength::Full),
        path: registry.target_path(name, &arguments),
        presentation: registry.presentation_of(name),
        arguments,
        status,
        result,
        blocks: Vec::new(),
        decision_reason: None,
        write_preview: None,
        sub_agent: None,
    }
}

/// Why an answer is incomplete, as the UI reads it.
pub(crate) fn cause_view(i: &Incomplete) -> IncompleteCause {
    match i {
        Incomplete::Stopped => IncompleteCause::Stopped,
        Incomplete::Cut(error) => IncompleteCause::Cut {
            error: error.clone(),
        },
    }
}

fn role(r: Role) -> ChatRole {
    match r {
        Role::User => ChatRole::User,
        Role::Assistant => ChatRole::Assistant,
        Role::Tool => ChatRole::Tool,
        Role::System => ChatRole::System,
    }
}

/// The history as the UI shows it: every message, each assistant message with
/// the cards of the calls it made (in call order).
pub(crate) fn chat_messages(
    registry: &dyn CallLabels,
    rows: &[MessageRow],
    calls: &[ToolCallRow],
) -> Vec<ChatMessage> {
    let by_id: HashMap<&str, &ToolCallRow> = calls.iter().map(|c| (c.id.as_str(), c)).collect();
    rows.iter()
        .map(|r| {
            let tool_calls = tool_calls_of(r)
                .iter()
                .map(|c| match by_id.get(c.id.as_str()) {
                    Some(row) => view_of(registry, row),
                    None => view(
                        registry,
                        &c.id,
                        &c.name,
                        arguments_value(&c.arguments),
                        skald_store::ToolCallStatus::Running,
                        None,
                    ),
                })
                .collect();
            ChatMessage {
                id: r.id,
                role: role(r.role),
                content: r.content.clone(),
                tool_calls,
                created_at: r.created_at,
                reasoning: Some(skald_llm::reasoning_text(&reasoning_of(r)))
                    .filter(|t| !t.is_empty()),
                usage: r.extras.usage.as_ref().map(usage_view),
                incomplete: r.extras.incomplete.is_some(),
                incomplete_cause: r.extras.incomplete.as_ref().map(cause_view),
                error: r.error.clone(),
                summary: None,
                model: r.extras.model.as_ref().map(|m| m.model.clone()),
                model_provider: r.extras.model.as_ref().map(|m| m.provider.clone()),
            }
        })
        .collect()
}

/// Puts each summary's divider right after the last message it covers (or
/// at the end when that message is gone from view), as a `system` item with
/// the summary; its id is the summary's, negated, so it never clashes.
pub(crate) fn with_dividers(
    mut messages: Vec<ChatMessage>,
    summaries: &[skald_store::SummaryRow],
) -> Vec<ChatMessage> {
    for s in summaries {
        let view = crate::context::summary::view(s);
        let at = messages
            .iter()
            .position(|m| m.summary.is_none() && m.id > s.last_message_id)
            .unwrap_or(messages.len());
        messages.insert(
            at,
            ChatMessage {
                id: -s.id,
                role: ChatRole::System,
                content: s.content.clone(),
                tool_calls: Vec::new(),
                created_at: s.created_at,
                reasoning: None,
                usage: None,
                incomplete: false,
                incomplete_cause: None,
                error: None,
                summary: Some(view),
                model: None,
                model_provider: None,
            },
        );
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(
        id: i64,
        role: Role,
        content: &str,
        calls: Option<Value>,
        answers: Option<&str>,
    ) -> MessageRow {
        MessageRow {
            id,
            session_id: "s".into(),
            stack_id: None,
            role,
            content: content.into(),
            tool_calls: calls,
            tool_call_id: answers.map(String::from),
            created_at: 0,
            extras: AssistantExtras::default(),
            error: None,
        }
    }

    #[test]
    fn results_follow_their_call_in_order_and_gaps_are_filled() {
        let rows = vec![
            row(1, Role::User, "hi", None, None),
            row(
                2,
                Role::Assistant,
                "",
                Some(json!([
                    {"id": "a", "name": "t", "arguments": "{}"},
                    {"id": "b", "name": "t", "arguments": "{}"},
                    {"id": "c", "name": "t", "arguments": "{}"}
                ])),
                None,
            ),
            row(3, Role::Tool, "B", None, Some("b")),
            row(4, Role::User, "more", None, None),
            row(5, Role::Tool, "A", None, Some("a")),
            row(6, Role::Tool, "stray", None, Some("zzz")),
        ];
        let m = to_messages(&rows);
        assert_eq!(m.len(), 6);
        assert_eq!(m[2], Message::tool_result("a", "A"));
        assert_eq!(m[3], Message::tool_result("b", "B"));
        assert_eq!(m[4], Message::tool_result("c", notes::NO_RESULT));
        assert_eq!(m[5], Message::user("more"));
    }
}
