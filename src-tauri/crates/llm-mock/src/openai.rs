//! OpenAI Chat Completions streams (`POST …/chat/completions` with
//! `stream: true`): `data: <chunk>` events and the closing `data: [DONE]`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::reply::Reply;

/// The stream's terminator.
pub const DONE: &str = "data: [DONE]\n\n";

/// `data: <json>\n\n`
pub fn sse_data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

/// One `chat.completion.chunk` with `delta` and `finish_reason`.
pub fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
    sse_data(&json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }))
}

/// The usage chunk sent after the finish chunk (`stream_options.include_usage`).
pub fn usage_chunk(usage: &Value) -> String {
    sse_data(&json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": usage,
    }))
}

/// A whole answer with `text` (in 8-character pieces), `finish_reason: stop`,
/// usage (10 in, 5 out) and `[DONE]`.
pub fn text(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(8) {
        let s: String = piece.iter().collect();
        out.push_str(&sse_data(
            &json!({"choices": [{"index": 0, "delta": {"content": s}}]}),
        ));
    }
    out.push_str(&sse_data(
        &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ));
    out.push_str(&sse_data(
        &json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
    ));
    out.push_str(DONE);
    out
}

/// A whole answer calling one tool, its arguments split across chunks of
/// five characters, `finish_reason: tool_calls` and `[DONE]`.
pub fn tool_call(id: &str, name: &str, arguments: &str) -> String {
    let mut out = sse_data(
        &json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}}]}),
    );
    let chars: Vec<char> = arguments.chars().collect();
    for piece in chars.chunks(5) {
        let s: String = piece.iter().collect();
        out.push_str(&sse_data(
            &json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": s}}
            ]}}]}),
        ));
    }
    out.push_str(&sse_data(
        &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ));
    out.push_str(DONE);
    out
}

/// A tool-call delta fragment: the id and name start a call at `index`,
/// later fragments at the same index carry more of its arguments.
pub fn tool_call_delta(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
    let mut call = json!({"index": index, "function": {"arguments": args}});
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    json!({"tool_calls": [call]})
}

/// One step of a scripted answer (the E2E script's shape).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A content delta.
    Text(String),
    /// Any delta object (tool-call fragments, reasoning, role).
    Delta(Value),
    /// The finish chunk with this reason.
    Finish(String),
    /// Nothing is sent for this long.
    Pause(Duration),
}

/// The usage the E2E script's answers report unless told otherwise.
pub fn default_usage() -> Value {
    json!({"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62})
}

/// An answer made of `steps`, then the usage chunk (when `usage` is some)
/// and `[DONE]`; each step is one network write.
pub fn steps(steps: &[Step], usage: Option<&Value>) -> Reply {
    let mut reply = Reply::new("text/event-stream").whole();
    for step in steps {
        reply = match step {
            Step::Text(t) => reply.bytes(chunk(json!({"content": t}), None)),
            Step::Delta(d) => reply.bytes(chunk(d.clone(), None)),
            Step::Finish(reason) => reply.bytes(chunk(json!({}), Some(reason))),
            Step::Pause(d) => reply.pause(*d),
        };
    }
    if let Some(u) = usage {
        reply = reply.bytes(usage_chunk(u));
    }
    reply.bytes(DONE)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::reply::Part;

    /// The `data:` payloads of an SSE body, in order.
    fn payloads(body: &str) -> Vec<String> {
        body.split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| e.strip_prefix("data: ").unwrap().to_string())
            .collect()
    }

    #[test]
    fn text_is_framed_as_events_that_rebuild_the_text() {
        let body = text("Hello, streaming world");
        let events = payloads(&body);
        assert_eq!(events.last().unwrap(), "[DONE]");
        let mut out = String::new();
        for e in &events[..events.len() - 1] {
            let v: Value = serde_json::from_str(e).unwrap();
            if let Some(s) = v["choices"][0]["delta"]["content"].as_str() {
                out.push_str(s);
            }
        }
        assert_eq!(out, "Hello, streaming world");
        assert!(body.contains(r#""finish_reason":"stop""#));
    }

    #[test]
    fn tool_call_arguments_concatenate_to_the_whole() {
        let args = r#"{"path": "notes.md"}"#;
        let events = payloads(&tool_call("call_1", "read_file", args));
        let mut joined = String::new();
        for e in &events[..events.len() - 1] {
            let v: Value = serde_json::from_str(e).unwrap();
            if let Some(calls) = v["choices"][0]["delta"]["tool_calls"].as_array() {
                joined.push_str(calls[0]["function"]["arguments"].as_str().unwrap());
            }
        }
        assert_eq!(joined, args);
        assert!(events.len() > 4, "arguments come in several chunks");
    }

    #[test]
    fn steps_keep_pauses_and_end_with_usage_and_done() {
        let r = steps(
            &[
                Step::Text("Hi".into()),
                Step::Pause(Duration::from_millis(30)),
                Step::Delta(tool_call_delta(0, Some("c"), Some("t"), "{}")),
                Step::Finish("tool_calls".into()),
            ],
            Some(&default_usage()),
        );
        assert_eq!(r.parts()[1], Part::Pause(Duration::from_millis(30)));
        let body = String::from_utf8(r.body_bytes()).unwrap();
        let events = payloads(&body);
        assert_eq!(events.len(), 5);
        let finish: Value = serde_json::from_str(&events[2]).unwrap();
        assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(finish["choices"][0]["delta"], json!({}));
        let usage: Value = serde_json::from_str(&events[3]).unwrap();
        assert_eq!(usage["usage"]["total_tokens"], 62);
    }
}
