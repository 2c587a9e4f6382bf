//! `ResponseAccumulator`: folds a stream of `StreamEvent`s into the final assistant response.
//!
//! Tool calls are accumulated by index, never by arrival order, so interleaved fragments of
//! several calls land in the right call. The accumulator never talks to a provider.

use std::collections::BTreeMap;

use crate::event::{StopReason, StreamEvent, Usage};
use crate::types::{Message, ToolCall};

/// The folded result of one streamed response.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantResponse {
    /// Concatenated answer text.
    pub text: String,
    /// Concatenated reasoning text.
    pub reasoning: String,
    /// Tool calls ordered by their index.
    pub tool_calls: Vec<ToolCall>,
    /// The last usage snapshot, if any was reported.
    pub usage: Option<Usage>,
    /// Why the model stopped; `None` when the stream never said `Done`.
    pub stop_reason: Option<StopReason>,
}

impl AssistantResponse {
    /// The assistant message to append to the conversation (reasoning is not part of it).
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
        }
    }
}

#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

/// Folds [`StreamEvent`]s into an [`AssistantResponse`].
#[derive(Debug, Default)]
pub struct ResponseAccumulator {
    text: String,
    reasoning: String,
    calls: BTreeMap<usize, PartialCall>,
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
            StreamEvent::ToolCallDelta {
                index,
                id,
                name,
                arguments_fragment,
            } => {
                let call = self.calls.entry(*index).or_default();
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
        }
    }

    /// Text accumulated so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The final response. Calls that never received an id get `call_<index>`.
    pub fn finish(self) -> AssistantResponse {
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(index, c)| ToolCall {
                id: c.id.unwrap_or_else(|| format!("call_{index}")),
                name: c.name.unwrap_or_default(),
                arguments: c.arguments,
            })
            .collect();
        AssistantResponse {
            text: self.text,
            reasoning: self.reasoning,
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
            }),
            StreamEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 20,
                cost_usd: Some(0.5),
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
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall::new("call_3", "t", "{}")]
            }
        );
    }
}
