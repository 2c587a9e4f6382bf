//! Anthropic Messages streams (`POST /v1/messages`): named events
//! (`message_start`, `content_block_*`, `message_delta`, `message_stop`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::reply::Reply;

/// `event: <name>\r\ndata: <json>\r\n\r\n` — CRLF line ends, as SSE allows,
/// so clients are exercised on them.
pub fn sse_event(name: &str, data: &Value) -> String {
    format!("event: {name}\r\ndata: {data}\r\n\r\n")
}

/// A content block of a scripted message, or a pause between blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    Thinking {
        thinking: String,
        signature: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    Pause(Duration),
}

pub fn message_start(input_tokens: u64) -> String {
    sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": "msg_mock", "type": "message", "role": "assistant", "content": [],
            "model": "mock", "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1}
        }}),
    )
}

/// `content_block_start` of block `index`.
pub fn block_start(index: usize, block: Value) -> String {
    sse_event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

/// `content_block_delta` of block `index`.
pub fn block_delta(index: usize, delta: Value) -> String {
    sse_event(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

/// `content_block_stop` of block `index`.
pub fn block_stop(index: usize) -> String {
    sse_event(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": index}),
    )
}

/// `message_delta` with the stop reason and output tokens, then `message_stop`.
pub fn message_end(stop_reason: &str, output_tokens: u64) -> String {
    sse_event(
        "message_delta",
        &json!({"type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"output_tokens": output_tokens}}),
    ) + &sse_event("message_stop", &json!({"type": "message_stop"}))
}

/// A whole message of `blocks`; it stops for `tool_use` when it has a tool
/// block, else `end_turn`. Text and tool input stream in a few deltas each.
pub fn message(blocks: &[Block]) -> Reply {
    let mut reply = Reply::new("text/event-stream").bytes(message_start(10));
    let mut index = 0;
    let mut uses_tool = false;
    for block in blocks {
        let mut s = String::new();
        match block {
            Block::Pause(d) => {
                reply = reply.pause(*d);
                continue;
            }
            Block::Text(text) => {
                s += &block_start(index, json!({"type": "text", "text": ""}));
                for piece in pieces(text, 8) {
                    s += &block_delta(index, json!({"type": "text_delta", "text": piece}));
                }
            }
            Block::Thinking {
                thinking,
                signature,
            } => {
                s += &block_start(index, json!({"type": "thinking", "thinking": ""}));
                for piece in pieces(thinking, 8) {
                    s += &block_delta(index, json!({"type": "thinking_delta", "thinking": piece}));
                }
                s += &block_delta(
                    index,
                    json!({"type": "signature_delta", "signature": signature}),
                );
            }
            Block::ToolUse { id, name, input } => {
                uses_tool = true;
                s += &block_start(
                    index,
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                );
                for piece in pieces(&input.to_string(), 5) {
                    s += &block_delta(
                        index,
                        json!({"type": "input_json_delta", "partial_json": piece}),
                    );
                }
            }
        }
        s += &block_stop(index);
        reply = reply.bytes(s);
        index += 1;
    }
    let stop = if uses_tool { "tool_use" } else { "end_turn" };
    reply.bytes(message_end(stop, 5))
}

/// A whole message with one text block.
pub fn text(text: &str) -> Reply {
    message(&[Block::Text(text.into())])
}

/// A whole message calling one tool.
pub fn tool_use(id: &str, name: &str, input: Value) -> Reply {
    message(&[Block::ToolUse {
        id: id.into(),
        name: name.into(),
        input,
    }])
}

fn pieces(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// (event name, data) of every event in an Anthropic SSE body.
    fn events(body: &str) -> Vec<(String, Value)> {
        body.split("\r\n\r\n")
            .filter(|e| !e.is_empty())
            .map(|e| {
                let (name, data) = e.split_once("\r\n").unwrap();
                (
                    name.strip_prefix("event: ").unwrap().to_string(),
                    serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn a_tool_message_streams_its_input_and_stops_for_tool_use() {
        let input = json!({"path": "a.txt", "line": 3});
        let r = tool_use("toolu_1", "read_file", input.clone());
        let ev = events(&String::from_utf8(r.body_bytes()).unwrap());
        assert_eq!(ev.first().unwrap().0, "message_start");
        assert_eq!(ev.last().unwrap().0, "message_stop");
        let partial: String = ev
            .iter()
            .filter_map(|(_, d)| d["delta"]["partial_json"].as_str())
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&partial).unwrap(), input);
        let delta = ev.iter().find(|(n, _)| n == "message_delta").unwrap();
        assert_eq!(delta.1["delta"]["stop_reason"], "tool_use");
    }

    #[test]
    fn blocks_are_indexed_in_order_and_text_ends_the_turn() {
        let r = message(&[
            Block::Thinking {
                thinking: "hmm".into(),
                signature: "sig".into(),
            },
            Block::Pause(Duration::from_millis(1)),
            Block::Text("Hello there, friend".into()),
        ]);
        let ev = events(&String::from_utf8(r.body_bytes()).unwrap());
        let starts: Vec<u64> = ev
            .iter()
            .filter(|(n, _)| n == "content_block_start")
            .map(|(_, d)| d["index"].as_u64().unwrap())
            .collect();
        assert_eq!(starts, [0, 1]);
        let text: String = ev
            .iter()
            .filter_map(|(_, d)| d["delta"]["text"].as_str())
            .collect();
        assert_eq!(text, "Hello there, friend");
        assert!(ev.iter().any(|(_, d)| d["delta"]["signature"] == "sig"));
        let delta = ev.iter().find(|(n, _)| n == "message_delta").unwrap();
        assert_eq!(delta.1["delta"]["stop_reason"], "end_turn");
    }
}
