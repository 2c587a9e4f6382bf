//! Scripts as JSON, for the binary (a file or `POST /_mock/replies`):
//!
//! ```json
//! {"models": ["mock-small", "mock-large"],
//!  "replies": [
//!    ["Hello", 200, " there", {"finish_reason": "stop"}],
//!    {"status": 429, "json": {"error": {"message": "slow down"}}, "headers": {"retry-after-ms": "50"}},
//!    {"anthropic": ["Hi", {"tool_use": {"id": "toolu_1", "name": "read_file", "input": {"path": "a"}}}]},
//!    {"sse": [{"data": {"choices": []}}, 100, {"event": "ping", "data": {}}], "end": "cut"},
//!    {"ndjson": [{"message": {"role": "assistant", "content": "hi"}, "done": true}]},
//!    {"body": "<html>not an API</html>", "content_type": "text/html"}
//!  ],
//!  "routes": [
//!    {"when": {"user_contains": "Count the files"}, "replies": [[6000, "3 files."]]},
//!    {"when": {"system_contains": "code explorer", "model": "mock-large"}, "reply": ["Hi"]}
//!  ]}
//! ```
//!
//! A bare array is the `replies` list. An array reply is an OpenAI answer
//! in steps (the E2E script's shape): a string is a content delta, a number
//! a pause in milliseconds, `{"finish_reason": …}` the finish chunk, any
//! other object a delta (tool-call fragments); the usage chunk and `[DONE]`
//! follow. Object replies take `status`, `content_type`, `headers`,
//! `delay_ms` (before the status line), `piece` (bytes per write), `end`
//! (`complete`, `cut`, `hang`) and one body: `openai` (steps, with `usage`:
//! an object or null), `anthropic` (blocks: a string is text, a number a
//! pause, `{"tool_use": …}`, `{"thinking": …, "signature": …}`), `sse`,
//! `ndjson`, `json` or `body` (text as is).
//!
//! A route's replies (`replies`, or one `reply`) go to the requests its
//! `when` takes, in order, before the queue ([`crate::route`]); `when`
//! names one or more of `system_contains`, `user_contains`,
//! `last_user_contains`, `model` and `body_contains`.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::anthropic::{self, Block};
use crate::openai::{self, Step};
use crate::reply::{End, Reply};
use crate::route::Match;

/// A script that cannot be used, with where in it.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("the script is not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Invalid(String),
}

/// A parsed script.
#[derive(Debug, Default)]
pub struct Script {
    pub replies: Vec<Reply>,
    /// What `GET …/models` lists; none: the default list.
    pub models: Option<Vec<String>>,
    /// The answer once the replies are used up; none: the default error.
    pub exhausted: Option<Reply>,
    /// Replies chosen by what the request says, before the queue.
    pub routes: Vec<(Match, Vec<Reply>)>,
}

pub fn parse(text: &str) -> Result<Script, ScriptError> {
    parse_value(&serde_json::from_str(text)?)
}

pub fn parse_value(doc: &Value) -> Result<Script, ScriptError> {
    match doc {
        Value::Array(replies) => Ok(Script {
            replies: replies_of(replies)?,
            ..Script::default()
        }),
        Value::Object(o) => {
            for key in o.keys() {
                if !matches!(key.as_str(), "replies" | "routes" | "models" | "exhausted") {
                    return Err(invalid(format!(
                        "unknown key {key:?} (a script has replies, routes, models, exhausted)"
                    )));
                }
            }
            let replies = match o.get("replies") {
                None => Vec::new(),
                Some(Value::Array(r)) => replies_of(r)?,
                Some(_) => return Err(invalid("replies: expected an array")),
            };
            let models = match o.get("models") {
                None => None,
                Some(Value::Array(m)) => Some(
                    m.iter()
                        .map(|v| {
                            v.as_str()
                                .map(str::to_owned)
                                .ok_or_else(|| invalid("models: expected names (strings)"))
                        })
                        .collect::<Result<_, _>>()?,
                ),
                Some(_) => return Err(invalid("models: expected an array of names")),
            };
            let exhausted = o
                .get("exhausted")
                .map(|r| reply(r).map_err(|e| invalid(format!("exhausted: {e}"))))
                .transpose()?;
            let routes = match o.get("routes") {
                None => Vec::new(),
                Some(Value::Array(r)) => r
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        crate::route::parse(r).map_err(|e| invalid(format!("route {i}: {e}")))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(invalid("routes: expected an array")),
            };
            Ok(Script {
                replies,
                models,
                exhausted,
                routes,
            })
        }
        _ => Err(invalid(
            "expected an array of replies or an object with \"replies\"",
        )),
    }
}

pub(crate) fn replies_of(list: &[Value]) -> Result<Vec<Reply>, ScriptError> {
    list.iter()
        .enumerate()
        .map(|(i, r)| reply(r).map_err(|e| invalid(format!("reply {i}: {e}"))))
        .collect()
}

pub(crate) fn invalid(msg: impl Into<String>) -> ScriptError {
    ScriptError::Invalid(msg.into())
}

/// One reply, array or object.
pub fn reply(spec: &Value) -> Result<Reply, ScriptError> {
    match spec {
        Value::Array(steps) => Ok(openai::steps(
            &openai_steps(steps)?,
            Some(&openai::default_usage()),
        )),
        Value::Object(o) => object_reply(o),
        _ => Err(invalid("expected an array of steps or an object")),
    }
}

const BODIES: [&str; 7] = [
    "openai",
    "anthropic",
    "sse",
    "ndjson",
    "json",
    "body",
    "usage",
];
const OPTIONS: [&str; 6] = [
    "status",
    "content_type",
    "headers",
    "delay_ms",
    "piece",
    "end",
];

fn object_reply(o: &Map<String, Value>) -> Result<Reply, ScriptError> {
    for key in o.keys() {
        if !BODIES.contains(&key.as_str()) && !OPTIONS.contains(&key.as_str()) {
            return Err(invalid(format!("unknown key {key:?}")));
        }
    }
    let bodies: Vec<&str> = BODIES[..6]
        .iter()
        .copied()
        .filter(|k| o.contains_key(*k))
        .collect();
    if bodies.len() > 1 {
        return Err(invalid(format!(
            "more than one body: {}",
            bodies.join(", ")
        )));
    }
    let mut r = match bodies.first().copied() {
        Some("openai") => {
            let usage = match o.get("usage") {
                None => Some(openai::default_usage()),
                Some(Value::Null) => None,
                Some(u) => Some(u.clone()),
            };
            openai::steps(&openai_steps(array(o, "openai")?)?, usage.as_ref())
        }
        Some("anthropic") => anthropic::message(&anthropic_blocks(array(o, "anthropic")?)?),
        Some("sse") => sse(array(o, "sse")?)?,
        Some("ndjson") => ndjson(array(o, "ndjson")?)?,
        Some("json") => o
            .get("json")
            .map(Reply::json)
            .unwrap_or_else(|| Reply::new("")),
        Some(_) => match o.get("body") {
            Some(Value::String(s)) => Reply::stream("text/plain", s.clone()),
            _ => return Err(invalid("body: expected a string")),
        },
        None => Reply::new("application/json"),
    };
    if let Some(s) = o.get("status") {
        let code = s
            .as_u64()
            .and_then(|c| u16::try_from(c).ok())
            .filter(|c| (100..600).contains(c))
            .ok_or_else(|| invalid("status: expected an HTTP status code"))?;
        r = r.status(code);
    }
    if let Some(ct) = o.get("content_type") {
        r.content_type = ct
            .as_str()
            .ok_or_else(|| invalid("content_type: expected a string"))?
            .to_owned();
    }
    if let Some(h) = o.get("headers") {
        let h = h
            .as_object()
            .ok_or_else(|| invalid("headers: expected an object of strings"))?;
        for (name, value) in h {
            let value = value
                .as_str()
                .ok_or_else(|| invalid(format!("headers.{name}: expected a string")))?;
            r = r.header(name, value);
        }
    }
    if let Some(d) = o.get("delay_ms") {
        r = r.delay(Duration::from_millis(
            d.as_u64()
                .ok_or_else(|| invalid("delay_ms: expected milliseconds"))?,
        ));
    }
    if let Some(p) = o.get("piece") {
        let p = p
            .as_u64()
            .and_then(|p| usize::try_from(p).ok())
            .ok_or_else(|| invalid("piece: expected a byte count"))?;
        r = r.piece(p);
    }
    if let Some(e) = o.get("end") {
        r = r.end(
            serde_json::from_value::<End>(e.clone())
                .map_err(|_| invalid("end: expected \"complete\", \"cut\" or \"hang\""))?,
        );
    }
    Ok(r)
}

fn array<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a [Value], ScriptError> {
    o.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| invalid(format!("{key}: expected an array")))
}

fn pause(n: &serde_json::Number) -> Result<Duration, ScriptError> {
    n.as_u64()
        .map(Duration::from_millis)
        .ok_or_else(|| invalid("a pause is a whole number of milliseconds"))
}

fn openai_steps(steps: &[Value]) -> Result<Vec<Step>, ScriptError> {
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Value::String(t) => Ok(Step::Text(t.clone())),
            Value::Number(n) => pause(n).map(Step::Pause),
            Value::Object(o) => match o.get("finish_reason") {
                Some(Value::String(reason)) => Ok(Step::Finish(reason.clone())),
                Some(_) => Err(invalid(format!(
                    "step {i}: finish_reason: expected a string"
                ))),
                None => Ok(Step::Delta(s.clone())),
            },
            _ => Err(invalid(format!(
                "step {i}: expected text, a pause (ms) or a delta object"
            ))),
        })
        .collect()
}

fn anthropic_blocks(blocks: &[Value]) -> Result<Vec<Block>, ScriptError> {
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let bad = || {
                invalid(format!(
                    "block {i}: expected text, a pause (ms), {{\"tool_use\": {{\"id\", \"name\", \"input\"}}}} or {{\"thinking\", \"signature\"}}"
                ))
            };
            match b {
                Value::String(t) => Ok(Block::Text(t.clone())),
                Value::Number(n) => pause(n).map(Block::Pause),
                Value::Object(o) => {
                    if let Some(t) = o.get("tool_use") {
                        Ok(Block::ToolUse {
                            id: t["id"].as_str().ok_or_else(bad)?.to_owned(),
                            name: t["name"].as_str().ok_or_else(bad)?.to_owned(),
                            input: t.get("input").cloned().unwrap_or_else(|| Value::Object(Map::new())),
                        })
                    } else if let Some(Value::String(thinking)) = o.get("thinking") {
                        Ok(Block::Thinking {
                            thinking: thinking.clone(),
                            signature: o
                                .get("signature")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                        })
                    } else {
                        Err(bad())
                    }
                }
                _ => Err(bad()),
            }
        })
        .collect()
}

fn sse(events: &[Value]) -> Result<Reply, ScriptError> {
    let mut r = Reply::new("text/event-stream");
    for (i, e) in events.iter().enumerate() {
        r = match e {
            Value::Number(n) => r.pause(pause(n)?),
            Value::String(raw) => r.bytes(raw.clone()),
            Value::Object(o) => {
                let mut s = String::new();
                if let Some(name) = o.get("event") {
                    let name = name
                        .as_str()
                        .ok_or_else(|| invalid(format!("event {i}: event: expected a name")))?;
                    s += &format!("event: {name}\n");
                }
                match o.get("data") {
                    Some(Value::String(d)) => s += &format!("data: {d}\n\n"),
                    Some(d) => s += &format!("data: {d}\n\n"),
                    None => return Err(invalid(format!("event {i}: no data"))),
                }
                r.bytes(s)
            }
            _ => {
                return Err(invalid(format!(
                    "event {i}: expected {{\"event\", \"data\"}}, raw text or a pause (ms)"
                )));
            }
        };
    }
    Ok(r)
}

fn ndjson(lines: &[Value]) -> Result<Reply, ScriptError> {
    let mut r = Reply::new("application/x-ndjson");
    for l in lines {
        r = match l {
            Value::Number(n) => r.pause(pause(n)?),
            Value::String(raw) => r.bytes(format!("{raw}\n")),
            v => r.bytes(format!("{v}\n")),
        };
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::reply::Part;
    use serde_json::json;

    fn body(r: &Reply) -> String {
        String::from_utf8(r.body_bytes()).unwrap()
    }

    #[test]
    fn a_bare_array_is_the_e2e_shape() {
        let s = parse(
            r#"[["Hello", 250, {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ""}}]}, {"finish_reason": "tool_calls"}]]"#,
        )
        .unwrap();
        assert_eq!(s.replies.len(), 1);
        let r = &s.replies[0];
        assert_eq!(r.parts()[1], Part::Pause(Duration::from_millis(250)));
        let b = body(r);
        assert!(b.contains(r#""content":"Hello""#), "{b}");
        assert!(b.contains(r#""name":"read_file""#), "{b}");
        assert!(b.contains(r#""finish_reason":"tool_calls""#), "{b}");
        assert!(b.contains(r#""total_tokens":62"#), "{b}");
        assert!(b.ends_with("data: [DONE]\n\n"));
    }

    #[test]
    fn object_replies_carry_status_headers_and_endings() {
        let s = parse_value(&json!({
            "models": ["a", "b"],
            "replies": [
                {"status": 429, "json": {"error": {"message": "slow"}}, "headers": {"retry-after-ms": "50"}},
                {"openai": ["x"], "usage": null, "end": "cut", "piece": 3, "delay_ms": 20},
                {"body": "<html></html>", "content_type": "text/html"},
                {"ndjson": [{"done": false}, 10, {"done": true}]},
                {"sse": [{"event": "ping", "data": {}}, ": comment\n\n"]},
                {"anthropic": ["Hi", {"tool_use": {"id": "t1", "name": "n", "input": {"a": 1}}}]}
            ],
            "exhausted": {"status": 503, "json": {}}
        }))
        .unwrap();
        assert_eq!(
            s.models.as_deref(),
            Some(&["a".to_string(), "b".to_string()][..])
        );
        assert_eq!(s.exhausted.unwrap().status_code(), 503);
        let r = &s.replies;
        assert_eq!(r[0].status_code(), 429);
        assert_eq!(r[0].headers, [("retry-after-ms".into(), "50".into())]);
        assert_eq!(r[1].end, End::Cut);
        assert_eq!(r[1].piece, 3);
        assert_eq!(r[1].delay, Duration::from_millis(20));
        assert!(!body(&r[1]).contains("usage"), "usage: null leaves it out");
        assert_eq!(r[2].content_type, "text/html");
        assert_eq!(body(&r[2]), "<html></html>");
        assert_eq!(body(&r[3]), "{\"done\":false}\n{\"done\":true}\n");
        assert_eq!(body(&r[4]), "event: ping\ndata: {}\n\n: comment\n\n");
        assert!(body(&r[5]).contains("tool_use"));
    }

    #[test]
    fn mistakes_say_where_they_are() {
        let e = parse(r#"[["ok"], {"opnai": []}]"#).unwrap_err().to_string();
        assert!(e.contains("reply 1") && e.contains("opnai"), "{e}");
        let e = parse(r#"[{"openai": [], "json": {}}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than one body"), "{e}");
        let e = parse(r#"[[true]]"#).unwrap_err().to_string();
        assert!(e.contains("step 0"), "{e}");
        let e = parse(r#"[{"end": "later"}]"#).unwrap_err().to_string();
        assert!(e.contains("end:"), "{e}");
        let e = parse(r#"[{"status": 99}]"#).unwrap_err().to_string();
        assert!(e.contains("status"), "{e}");
        assert!(matches!(parse("not json"), Err(ScriptError::Json(_))));
        let e = parse(r#"{"replys": []}"#).unwrap_err().to_string();
        assert!(e.contains("replys"), "{e}");
    }
}
