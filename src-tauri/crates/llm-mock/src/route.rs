//! Replies chosen by what a request says rather than by when it comes: agents
//! running side by side (a background task, sub-agents) ask in an order no
//! test controls, so a [`Route`] keeps the replies for the requests that
//! match it — an agent's prompt, a model — apart from the ordered queue.
//!
//! A request takes the next reply of the first route that matches it and
//! still has one; a route whose replies are used up no longer matches, and
//! a request no route takes gets the queue's next reply.

use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::reply::Reply;
use crate::script::{ScriptError, invalid, replies_of, reply};

/// What a request must say to take a route's replies; every condition given
/// must hold. Texts are compared by substring, case and all. The provider's
/// shape does not matter: OpenAI-compatible and Ollama `messages` (string
/// or text-part content, `system` / `developer` roles) and Anthropic's
/// top-level `system` and text blocks are read alike.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Match {
    /// The system prompt (every system message, joined) contains this: the
    /// way to tell one agent's requests from another's.
    pub system_contains: Option<String>,
    /// Some user message's text contains this (a task's prompt reaches its
    /// agent as a user message; the caller has it only in a call's arguments).
    pub user_contains: Option<String>,
    /// The last user message that carries text contains this (what the
    /// person, or the caller, asked last; tool results are not user text).
    pub last_user_contains: Option<String>,
    /// The request's `model` is exactly this.
    pub model: Option<String>,
    /// The body, as compact JSON, contains this (anything else).
    pub body_contains: Option<String>,
}

impl Match {
    pub fn system_contains(text: impl Into<String>) -> Self {
        Match {
            system_contains: Some(text.into()),
            ..Match::default()
        }
    }

    pub fn user_contains(text: impl Into<String>) -> Self {
        Match {
            user_contains: Some(text.into()),
            ..Match::default()
        }
    }

    pub fn last_user_contains(text: impl Into<String>) -> Self {
        Match {
            last_user_contains: Some(text.into()),
            ..Match::default()
        }
    }

    pub fn model(name: impl Into<String>) -> Self {
        Match {
            model: Some(name.into()),
            ..Match::default()
        }
    }

    pub fn body_contains(text: impl Into<String>) -> Self {
        Match {
            body_contains: Some(text.into()),
            ..Match::default()
        }
    }

    /// Also requires the request's `model` to be `name`.
    pub fn and_model(mut self, name: impl Into<String>) -> Self {
        self.model = Some(name.into());
        self
    }

    /// Whether no condition is given (such a match takes every request).
    pub fn is_empty(&self) -> bool {
        *self == Match::default()
    }

    /// Whether a request with this JSON body meets every condition.
    pub fn matches(&self, body: &Value) -> bool {
        let contains = |want: &Option<String>, have: &dyn Fn() -> Option<String>| match want {
            None => true,
            Some(w) => have().is_some_and(|h| h.contains(w.as_str())),
        };
        contains(&self.system_contains, &|| Some(system_text(body)))
            && contains(&self.user_contains, &|| {
                Some(user_texts(body).collect::<Vec<_>>().join("\n"))
            })
            && contains(&self.last_user_contains, &|| user_texts(body).last())
            && self
                .model
                .as_ref()
                .is_none_or(|m| body.get("model").and_then(Value::as_str) == Some(m.as_str()))
            && contains(&self.body_contains, &|| Some(body.to_string()))
    }
}

/// A match and the replies waiting for the requests it takes.
#[derive(Debug, Clone)]
pub struct Route {
    pub when: Match,
    pub replies: VecDeque<Reply>,
}

/// Adds `replies` to the route with the same match, or a new route after the
/// others: pushing for one agent twice queues its second reply behind the
/// first.
pub(crate) fn add(routes: &mut Vec<Route>, when: Match, replies: impl IntoIterator<Item = Reply>) {
    match routes.iter_mut().find(|r| r.when == when) {
        Some(r) => r.replies.extend(replies),
        None => routes.push(Route {
            when,
            replies: replies.into_iter().collect(),
        }),
    }
}

/// The next reply of the first route that takes `body`, if any.
pub(crate) fn take(routes: &mut [Route], body: &Value) -> Option<Reply> {
    routes
        .iter_mut()
        .find(|r| !r.replies.is_empty() && r.when.matches(body))
        .and_then(|r| r.replies.pop_front())
}

/// `{"when": {…}, "replies": […]}` or `{"when": {…}, "reply": …}`.
pub(crate) fn parse(spec: &Value) -> Result<(Match, Vec<Reply>), ScriptError> {
    let o = spec
        .as_object()
        .ok_or_else(|| invalid("expected {\"when\", \"replies\"}"))?;
    for key in o.keys() {
        if !matches!(key.as_str(), "when" | "reply" | "replies") {
            return Err(invalid(format!(
                "unknown key {key:?} (a route has when and reply or replies)"
            )));
        }
    }
    let when: Match = serde_json::from_value(
        o.get("when")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new())),
    )
    .map_err(|e| invalid(format!("when: {e}")))?;
    if when.is_empty() {
        return Err(invalid(
            "when: name at least one of system_contains, user_contains, last_user_contains, model, body_contains",
        ));
    }
    let replies = match (o.get("reply"), o.get("replies")) {
        (Some(r), None) => vec![reply(r)?],
        (None, Some(Value::Array(r))) => replies_of(r)?,
        (None, Some(_)) => return Err(invalid("replies: expected an array")),
        (Some(_), Some(_)) => return Err(invalid("give reply or replies, not both")),
        (None, None) => return Err(invalid("no reply or replies")),
    };
    Ok((when, replies))
}

/// The text of a message's content: a string, or its text parts / blocks.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| p.get("type").is_none_or(|t| t == "text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

fn messages(body: &Value) -> impl Iterator<Item = &Value> {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn role_is(m: &Value, roles: &[&str]) -> bool {
    m.get("role")
        .and_then(Value::as_str)
        .is_some_and(|r| roles.contains(&r))
}

fn system_text(body: &Value) -> String {
    let top = body.get("system").and_then(content_text);
    top.into_iter()
        .chain(
            messages(body)
                .filter(|m| role_is(m, &["system", "developer"]))
                .filter_map(|m| m.get("content").and_then(content_text)),
        )
        .collect::<Vec<_>>()
        .join("\n")
}

fn user_texts(body: &Value) -> impl Iterator<Item = String> {
    messages(body)
        .filter(|m| role_is(m, &["user"]))
        .filter_map(|m| m.get("content").and_then(content_text))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn openai() -> Value {
        json!({"model": "mock-small", "messages": [
            {"role": "system", "content": "You are a code explorer."},
            {"role": "user", "content": "Count the files."},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "execute_task", "arguments": "{\"prompt\":\"Back it up.\"}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "Started."},
            {"role": "user", "content": [{"type": "text", "text": "And now?"}, {"type": "image_url", "image_url": {"url": "data:"}}]}
        ]})
    }

    fn anthropic() -> Value {
        json!({"model": "claude", "system": [{"type": "text", "text": "You are main."}], "messages": [
            {"role": "user", "content": "Hello there."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "result text"}]}
        ]})
    }

    #[test]
    fn each_condition_reads_its_part_of_the_request() {
        let o = openai();
        assert!(Match::system_contains("code explorer").matches(&o));
        assert!(!Match::system_contains("Count").matches(&o));
        assert!(Match::user_contains("Count the files").matches(&o));
        assert!(
            !Match::user_contains("Back it up").matches(&o),
            "a call's arguments are not user text"
        );
        assert!(
            !Match::user_contains("Started").matches(&o),
            "nor a tool result"
        );
        assert!(Match::last_user_contains("now?").matches(&o));
        assert!(!Match::last_user_contains("Count").matches(&o));
        assert!(Match::model("mock-small").matches(&o));
        assert!(!Match::model("mock").matches(&o), "the model is exact");
        assert!(Match::body_contains("Back it up").matches(&o));
        assert!(
            Match::system_contains("explorer")
                .and_model("mock-small")
                .matches(&o)
        );
        assert!(
            !Match::system_contains("explorer")
                .and_model("mock-large")
                .matches(&o),
            "every condition must hold"
        );
    }

    #[test]
    fn anthropic_system_blocks_and_tool_results_read_alike() {
        let a = anthropic();
        assert!(Match::system_contains("You are main").matches(&a));
        assert!(
            Match::last_user_contains("Hello").matches(&a),
            "a user message of tool results only carries no text"
        );
        assert!(!Match::user_contains("result text").matches(&a));
        assert!(!Match::system_contains("x").matches(&json!("not an object")));
    }

    #[test]
    fn a_route_serves_its_replies_in_order_then_lets_requests_pass() {
        let mut routes = Vec::new();
        add(
            &mut routes,
            Match::user_contains("Count"),
            [Reply::sse("one")],
        );
        add(
            &mut routes,
            Match::model("claude"),
            [Reply::sse("anthropic")],
        );
        add(
            &mut routes,
            Match::user_contains("Count"),
            [Reply::sse("two")],
        );
        assert_eq!(routes.len(), 2, "the same match queues on its route");
        let body = |r: Option<Reply>| r.map(|r| String::from_utf8(r.body_bytes()).unwrap());
        assert_eq!(body(take(&mut routes, &openai())).as_deref(), Some("one"));
        assert_eq!(
            body(take(&mut routes, &anthropic())).as_deref(),
            Some("anthropic")
        );
        assert_eq!(body(take(&mut routes, &openai())).as_deref(), Some("two"));
        assert!(
            take(&mut routes, &openai()).is_none(),
            "used up: the queue's turn"
        );
    }

    #[test]
    fn routes_carry_a_match_and_their_replies() {
        let s = crate::script::parse_value(&json!({
            "replies": [["queued"]],
            "routes": [
                {"when": {"user_contains": "Count", "model": "m"}, "replies": [["a"], ["b"]]},
                {"when": {"system_contains": "explorer"}, "reply": {"status": 500, "json": {}}}
            ]
        }))
        .unwrap();
        assert_eq!(s.replies.len(), 1);
        assert_eq!(s.routes.len(), 2);
        assert_eq!(s.routes[0].0, Match::user_contains("Count").and_model("m"));
        assert_eq!(s.routes[0].1.len(), 2);
        assert_eq!(s.routes[1].0, Match::system_contains("explorer"));
        assert_eq!(s.routes[1].1[0].status_code(), 500);
    }

    #[test]
    fn route_mistakes_say_where_they_are() {
        let err = |v: Value| crate::script::parse_value(&v).unwrap_err().to_string();
        let e = err(json!({"routes": [{"when": {"user": "x"}, "reply": ["a"]}]}));
        assert!(e.contains("route 0") && e.contains("user"), "{e}");
        let e = err(json!({"routes": [{"when": {}, "reply": ["a"]}]}));
        assert!(e.contains("at least one"), "{e}");
        let e = err(json!({"routes": [{"reply": ["a"]}]}));
        assert!(e.contains("at least one"), "{e}");
        let e = err(json!({"routes": [{"when": {"model": "m"}}]}));
        assert!(e.contains("no reply"), "{e}");
        let e = err(json!({"routes": [{"when": {"model": "m"}, "reply": ["a"], "replies": []}]}));
        assert!(e.contains("not both"), "{e}");
        let e = err(json!({"routes": [{"when": {"model": "m"}, "replies": [[true]]}]}));
        assert!(e.contains("route 0") && e.contains("step 0"), "{e}");
        let e = err(json!({"routes": {}}));
        assert!(e.contains("routes: expected an array"), "{e}");
    }
}
