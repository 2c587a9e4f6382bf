//! Ollama `/api/chat` streams: one JSON object per line, the last with `done: true`.

use serde_json::{Value, json};

/// `<json>\n`
pub fn line(v: &Value) -> String {
    format!("{v}\n")
}

/// A whole answer with `text` (one line per word) and the closing line with usage.
pub fn text(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_inclusive(' ') {
        out.push_str(&line(&json!({
            "message": {"role": "assistant", "content": word}, "done": false
        })));
    }
    out.push_str(&line(&json!({
        "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": "stop",
        "prompt_eval_count": 10, "eval_count": 5
    })));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_line_is_json_and_the_last_is_done() {
        let body = text("one two three");
        let lines: Vec<Value> = body
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        let words: String = lines
            .iter()
            .map(|l| l["message"]["content"].as_str().unwrap())
            .collect();
        assert_eq!(words, "one two three");
        assert_eq!(lines[3]["done"], true);
        assert!(body.ends_with('\n'));
    }
}
