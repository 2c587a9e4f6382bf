//! Context management: every request is kept within the model's context
//! window. Over budget, first the oldest tool results are replaced by a short
//! note (the newest round's results are kept), then the oldest turns are
//! summarised by the session's own model; the summary is stored and stands in
//! for those turns in every later request. If even the last user message does
//! not fit, the turn fails with [`SessionError::ContextOverflow`] — nothing
//! the person said is ever cut silently.
//!
//! Token counts are estimated (about four characters a token) and then
//! calibrated by what the provider reported for the part already sent (see
//! [`calibrate`]). Every request is managed: the window comes from a
//! setting, the provider, what the endpoint says about the model (asked once
//! per model and cached), the table of known models, or else
//! [`DEFAULT_CONTEXT_WINDOW`], in that order.

mod calibrate;
mod fit;
pub(crate) mod summary;

pub(crate) use fit::{after, fitted};

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use skald_llm::{ChatRequest, Message};

use crate::error::SessionError;
use crate::handler::Inner;
use crate::notes;
use crate::provider::ResolvedModel;

/// Setting: the context window (tokens) of every model, unless a
/// per-model one (`context_window.<model>`) says otherwise.
pub const CONTEXT_WINDOW_SETTING: &str = "context_window";

/// The window of a model nothing knows (no setting, the endpoint does not
/// say, not in the table), so a model of unknown size is still managed,
/// never sent an unbounded history. 32k is the smallest window common among
/// current tool-calling models (Qwen 2.5, Mistral); an 8k model cannot run
/// an agent anyway (the prompt and tool definitions alone take ~6–7k
/// tokens). Set `context_window.<model>` for another size.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 32_768;

/// Characters per token of the estimate.
const CHARS_PER_TOKEN: usize = 4;
/// What each message costs beyond its text (role, separators).
const PER_MESSAGE: u32 = 4;
/// Results shorter than this are not worth trimming.
const TRIM_MIN_CHARS: usize = 200;

/// What endpoints said about their models' windows, by provider and model
/// (`None`: asked, and it does not say); asked once per process.
#[derive(Debug, Default)]
pub(crate) struct WindowCache(Mutex<HashMap<(String, String), Option<u32>>>);

impl WindowCache {
    fn get(&self, key: &(String, String)) -> Option<Option<u32>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .copied()
    }

    fn put(&self, key: (String, String), window: Option<u32>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, window);
    }
}

/// The context window of the turn's model, in tokens: the per-model
/// setting, the global one, the provider's own figure, what the endpoint
/// lists for the model, the known-models table, else
/// [`DEFAULT_CONTEXT_WINDOW`].
pub(crate) async fn window_for(inner: &Inner, model: &ResolvedModel) -> u32 {
    if let Some(n) = configured_window(inner, model).await {
        return n;
    }
    let key = (model.provider.name().to_string(), model.model.clone());
    let discovered = match inner.windows.get(&key) {
        Some(known) => known,
        None => {
            let found = model.provider.discover_context_window(&model.model).await;
            inner.windows.put(key, found);
            found
        }
    };
    discovered
        .or_else(|| skald_llm::known_context_window(&model.model))
        .unwrap_or(DEFAULT_CONTEXT_WINDOW)
}

/// The window a setting or the provider object itself gives (no request).
async fn configured_window(inner: &Inner, model: &ResolvedModel) -> Option<u32> {
    let settings = inner.store.settings();
    let read = |v: Option<serde_json::Value>| {
        v.and_then(|v| v.as_u64())
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
    };
    let per_model = format!("{CONTEXT_WINDOW_SETTING}.{}", model.model);
    if let Some(n) = read(settings.get(&per_model).await.ok().flatten()) {
        return Some(n);
    }
    if let Some(n) = read(settings.get(CONTEXT_WINDOW_SETTING).await.ok().flatten()) {
        return Some(n);
    }
    model.provider.context_window(&model.model)
}

/// What a request may fill: the window less room for the answer (a fifth of
/// it, at most 16,384 tokens).
pub(crate) fn budget(window: u32) -> u32 {
    window.saturating_sub((window / 5).min(16_384))
}

fn tokens(chars: usize) -> u32 {
    u32::try_from(chars.div_ceil(CHARS_PER_TOKEN)).unwrap_or(u32::MAX)
}

/// Estimated tokens of one message.
pub(crate) fn message_tokens(m: &Message) -> u32 {
    let chars = match m {
        Message::System { content } | Message::User { content } => content.len(),
        Message::Assistant {
            content,
            tool_calls,
            reasoning,
        } => {
            content.len()
                + tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.arguments.len() + c.id.len())
                    .sum::<usize>()
                + skald_llm::reasoning_text(reasoning).len()
        }
        Message::Tool {
            content, images, ..
        } => content.len() + images.iter().map(|i| i.data_base64.len()).sum::<usize>(),
    };
    tokens(chars).saturating_add(PER_MESSAGE)
}

/// Estimated tokens of everything a request sends but its messages: the
/// system prompt and the tool definitions.
pub(crate) fn fixed_tokens(req: &ChatRequest) -> u32 {
    let system = req.system.as_deref().map_or(0, str::len);
    let tools: usize = req
        .tools
        .iter()
        .map(|d| {
            d.name.len()
                + d.description.len()
                + serde_json::to_string(&d.parameters).map_or(0, |s| s.len())
        })
        .sum();
    tokens(system + tools)
}

/// Estimated tokens of a whole request.
pub(crate) fn request_tokens(req: &ChatRequest) -> u32 {
    req.messages
        .iter()
        .map(message_tokens)
        .fold(fixed_tokens(req), u32::saturating_add)
}

/// Replaces the oldest tool results with [`notes::trimmed_result`] until the
/// request fits `budget`. The results of the newest round (after the last
/// assistant message) are kept. Returns how many were trimmed.
pub(crate) fn trim_tool_results(req: &mut ChatRequest, budget: u32) -> u32 {
    let mut total = request_tokens(req);
    if total <= budget {
        return 0;
    }
    let newest_round = req
        .messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant { .. }))
        .unwrap_or(0);
    let mut trimmed = 0;
    for m in req.messages.iter_mut().take(newest_round) {
        if total <= budget {
            break;
        }
        if let Message::Tool {
            content, images, ..
        } = m
            && (content.len() >= TRIM_MIN_CHARS || !images.is_empty())
        {
            let before = message_tokens(m);
            if let Message::Tool {
                content, images, ..
            } = m
            {
                *content = notes::trimmed_result(content.len());
                images.clear();
            }
            total = total.saturating_sub(before.saturating_sub(message_tokens(m)));
            trimmed += 1;
        }
    }
    trimmed
}

/// The overflow error for a request that cannot be made smaller.
pub(crate) fn overflow(req: &ChatRequest, window: u32) -> SessionError {
    SessionError::ContextOverflow {
        estimated: request_tokens(req),
        window,
        budget: budget(window),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            system: None,
            messages,
            tools: vec![],
            max_tokens: None,
            temperature: None,
            reasoning: None,
        }
    }

    fn call(id: &str) -> Message {
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![skald_llm::ToolCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: "{}".into(),
            }],
            reasoning: vec![],
        }
    }

    #[test]
    fn the_oldest_results_go_first_and_the_newest_round_stays() {
        let big = "x".repeat(4000);
        let mut req = request(vec![
            Message::user("read three files"),
            call("a"),
            Message::tool_result("a", big.clone()),
            call("b"),
            Message::tool_result("b", big.clone()),
            call("c"),
            Message::tool_result("c", big.clone()),
        ]);
        let full = request_tokens(&req);
        // Room for everything but half a result.
        let budget = full - 500;
        assert_eq!(trim_tool_results(&mut req, budget), 1);
        assert!(request_tokens(&req) <= budget);
        let contents: Vec<&str> = req
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            contents[0].starts_with("[Old tool result trimmed"),
            "{}",
            contents[0]
        );
        assert_eq!(contents[1], big);
        assert_eq!(contents[2], big);
        // However small the budget, the newest round's result is never trimmed.
        trim_tool_results(&mut req, 1);
        assert!(matches!(&req.messages[6], Message::Tool { content, .. } if *content == big));
    }

    #[test]
    fn budget_leaves_room_for_the_answer() {
        assert_eq!(budget(2000), 1600);
        assert_eq!(budget(200_000), 200_000 - 16_384);
    }
}
