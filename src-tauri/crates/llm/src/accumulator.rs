//! `ResponseAccumulator`: folds a stream of `StreamEvent`s into the final assistant response.
//!
//! Tool calls are accumulated by index, never by arrival order, so interleaved fragments of
//! several calls land in the right call; a new id at an index whose call is complete is a
//! new call. The accumulator never talks to a provider.

use std::collections::{BTreeMap, HashMap};

use crate::event::{StopReason, StreamEvent, Usage};
use crate::types::{Message, ReasoningPart, ToolCall};

/// The folded result of one streamed response.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantResponse {
    /// Concatenated answer text.
    pub text: String,
    /// Concatenated reasoning text, as it streamed.
    pub reasoning: String,
    /// The reasoning in its provider's shape, to keep with the message.
    pub reasoning_parts: Vec<ReasoningPart>,
    /// Tool calls ordered by their index.
    pub tool_calls: Vec<ToolCall>,
    /// The last usage snapshot, if any was reported.
    pub usage: Option<Usage>,
    /// Why the model stopped; `None` when the stream never said `Done`.
    pub stop_reason: Option<StopReason>,
}

impl AssistantResponse {
    /// The assistant message to append to the conversation, with its reasoning.
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
            reasoning: self.reasoning_to_keep(),
        }
    }

    /// The reasoning parts to store. Reasoning that streamed without a provider-shaped part
    /// (a stream that stopped early, a scripted provider) is kept as display-only text.
    pub fn reasoning_to_keep(&self) -> Vec<ReasoningPart> {
        if self.reasoning_parts.is_empty() && !self.reasoning.is_empty() {
            return vec![ReasoningPart::Text {
                field: String::new(),
                text: self.reasoning.clone(),
            }];
        }
        self.reasoning_parts.clone()
    }
}

#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

impl PartialCall {
    /// Whether a fragment carrying `id` and `name` starts another call rather than
    /// continuing this one: it has a different id, and this call is already whole (its
    /// arguments are complete JSON, or it has a name and no arguments yet while the fragment
    /// names a tool too). A different id on a fragment in the middle of the arguments is
    /// taken as noise, so a call is never cut in two.
    fn is_followed_by(&self, id: Option<&str>, name: Option<&str>) -> bool {
        let Some(id) = id.filter(|s| !s.is_empty()) else {
            return false;
        };
        let Some(own) = self.id.as_deref() else {
            return false;
        };
        if own == id {
            return false;
        }
        let args = self.arguments.trim();
        if args.is_empty() {
            return self.name.is_some() && name.is_some_and(|n| !n.is_empty());
        }
        serde_json::from_str::<serde::de::IgnoredAny>(args).is_ok()
    }
}

/// Folds [`StreamEvent`]s into an [`AssistantResponse`].
#[derive(Debug, Default)]
pub struct ResponseAccumulator {
    text: String,
    reasoning: String,
    reasoning_parts: Vec<ReasoningPart>,
    /// Keyed by (index, how many calls came before at that index), so calls sharing an
    /// index keep their arrival order after the index's first call.
    calls: BTreeMap<(usize, usize), PartialCall>,
    /// The current generation of each index.
    generation: HashMap<usize, usize>,
    usage: Option<Usage>,
    stop_reason: Option<StopReason>,
}

impl ResponseAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one event in.
    pub fn push(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta(t) => self.text.push_str(t),
            StreamEvent::ReasoningDelta(t) => self.reasoning.push_str(t),
            StreamEvent::Reasoning(part) => self.reasoning_parts.push(part.clone()),
            StreamEvent::ToolCallDelta {
                index,
                id,
                name,
                arguments_fragment,
            } => {
                let generation = self.generation.entry(*index).or_default();
                if self
                    .calls
                    .get(&(*index, *generation))
                    .is_some_and(|c| c.is_followed_by(id.as_deref(), name.as_deref()))
                {
                    *generation += 1;
                }
                let call = self.calls.entry((*index, *generation)).or_default();
                if call.id.is_none() {
                    call.id = id.clone().filter(|s| !s.is_empty());
                }
                if call.name.is_none() {
                    call.name = name.clone().filter(|s| !s.is_empty());
                }
                call.arguments.push_str(arguments_fragment);
            }
            StreamEvent::Usage(u) => self.usage = Some(*u),
            StreamEvent::Done { stop_reason } => self.stop_reason = Some(stop_reason.clone()),
            StreamEvent::Retrying { .. } => {}
        }
    }

    /// Text accumulated so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The final response. Calls that never received an id get `call_<index>` (and
    /// `call_<index>_<n>` for the n-th further call at that index).
    pub fn finish(self) -> AssistantResponse {
        let tool_calls = self
            .calls
            .into_iter()
            .map(|((index, generation), c)| ToolCall {
                id: c.id.unwrap_or_else(|| match generation {
                    0 => format!("call_{index}"),
                    n => format!("call_{index}_{n}"),
                }),
                name: c.name.unwrap_or_default(),
                arguments: c.arguments,
            })
            .collect();
        AssistantResponse {
            text: self.text,
            reasoning: self.reasoning,
            reasoning_parts: self.reasoning_parts,
            tool_calls,
            usage: self.usage,
            stop_reason: self.stop_reason,
        }
    }
}

impl Extend<StreamEvent> for ResponseAccumulator {
    fn extend<T: IntoIterator<Item = StreamEvent>>(&mut self, iter: T) {
        for e in iter {
            self.push(&e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> StreamEvent {
        StreamEvent::ToolCallDelta {
            index,
            id: id.map(String::from),
            name: name.map(String::from),
            arguments_fragment: args.into(),
        }
    }

    #[test]
    fn accumulates_by_index() {
        let mut acc = ResponseAccumulator::new();
        acc.extend([
            StreamEvent::TextDelta("Let me ".into()),
            StreamEvent::TextDelta("look.".into()),
            frag(0, Some("call_a"), Some("read_file"), ""),
            frag(0, None, None, "{\"pa"),
            frag(0, None, None, "th\":\"a.txt\"}"),
            StreamEvent::Usage(Usage {
                input_tokens: 1,
                output_tokens: 2,
                cost_usd: None,
                ..Default::default()
            }),
            StreamEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 20,
                cost_usd: Some(0.5),
                ..Default::default()
            }),
            StreamEvent::Done {
                stop_reason: StopReason::ToolUse,
            },
        ]);
        let r = acc.finish();
        assert_eq!(r.text, "Let me look.");
        assert_eq!(
            r.tool_calls,
            vec![ToolCall::new("call_a", "read_file", "{\"path\":\"a.txt\"}")]
        );
        assert_eq!(r.usage.map(|u| u.output_tokens), Some(20));
        assert_eq!(r.usage.and_then(|u| u.cost_usd), Some(0.5));
        assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
    }

    #[test]
    fn interleaved_out_of_order_fragments_land_in_their_call() {
        let mut acc = ResponseAccumulator::new();
        acc.extend([
            frag(1, Some("call_b"), None, "{\"x\":"),
            frag(0, None, Some("first"), "{\"a\""),
            StreamEvent::ReasoningDelta("hmm".into()),
            frag(1, Some("ignored_later_id"), Some("second"), "2}"),
            frag(0, Some("call_a"), Some("ignored_later_name"), ":1}"),
        ]);
        let r = acc.finish();
        assert_eq!(
            r.tool_calls,
            vec![
                ToolCall::new("call_a", "first", "{\"a\":1}"),
                ToolCall::new("call_b", "second", "{\"x\":2}"),
            ]
        );
        assert_eq!(r.reasoning, "hmm");
        assert_eq!(r.stop_reason, None);
    }

    #[test]
    fn missing_id_is_synthesised_and_message_has_calls() {
        let mut acc = ResponseAccumulator::new();
        acc.push(&frag(3, None, Some("t"), "{}"));
        let r = acc.finish();
        assert_eq!(r.tool_calls[0].id, "call_3");
        assert_eq!(
            r.to_message(),
            Message::assistant_calls("", vec![ToolCall::new("call_3", "t", "{}")])
        );
    }

    #[test]
    fn a_new_id_at_a_taken_index_is_a_new_call() {
        let mut acc = ResponseAccumulator::new();
        acc.extend([
            frag(0, Some("call_1"), Some("read_file"), ""),
            frag(0, None, None, "{\"path\":"),
            frag(0, None, None, "\"a.txt\"}"),
            frag(0, Some("call_2"), Some("read_file"), ""),
            frag(0, None, None, "{\"path\":\"b.txt\"}"),
            // The same id again continues its call.
            frag(0, Some("call_2"), None, ""),
            frag(0, Some("call_3"), Some("list_dir"), "{}"),
        ]);
        assert_eq!(
            acc.finish().tool_calls,
            vec![
                ToolCall::new("call_1", "read_file", "{\"path\":\"a.txt\"}"),
                ToolCall::new("call_2", "read_file", "{\"path\":\"b.txt\"}"),
                ToolCall::new("call_3", "list_dir", "{}"),
            ]
        );
    }

    #[test]
    fn a_new_id_on_a_parameterless_call_starts_the_next_call() {
        let mut acc = ResponseAccumulator::new();
        acc.extend([
            frag(0, Some("a"), Some("get_time"), ""),
            frag(0, Some("b"), Some("get_date"), ""),
        ]);
        let calls = acc.finish().tool_calls;
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[1].id.as_str(), calls[1].name.as_str()),
            ("b", "get_date")
        );
    }
}
