//! [`PrintSink`]: a turn's events on a terminal. The answer's text streams to
//! stdout (so it can be piped); tool events go to stderr as one line each:
//! `▶ label` when a call starts, `✓ label` when it succeeds, `✗ label: why`
//! when it fails, is rejected or cancelled. The model's reasoning streams to
//! stderr too, indented (and dimmed on a terminal), and the turn ends with one
//! line of what it used: `usage: 342 in (320 cached) · 58 out (41 reasoning) · $0.0019`.
//! A sub-agent's activity is indented two spaces per level under the call
//! that started it: its start and end (`↳ agent …`), its calls, and its
//! answers (its text never goes to stdout, which is the root agent's answer).

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::EventSink;

#[derive(Default)]
pub struct PrintSink {
    labels: Mutex<HashMap<String, String>>,
    /// Why the gate let each call run, for its ✓ line.
    reasons: Mutex<HashMap<String, String>>,
    /// stdout is in the middle of a line.
    mid_line: AtomicBool,
    /// stderr is in the middle of a reasoning line.
    reasoning_mid_line: AtomicBool,
    /// Dim reasoning with SGR 2 (stderr is a terminal and `NO_COLOR` is unset).
    dim: bool,
    /// The turn's usage so far, one entry per model request.
    usage: Mutex<Totals>,
    /// How many bytes of each running call's output were printed.
    printed: Mutex<HashMap<String, u64>>,
    /// The next turn's usage line waits for [`release_usage`](Self::release_usage),
    /// so what the caller prints about that turn (its model) comes before it.
    hold_usage: AtomicBool,
    held_usage: Mutex<Option<String>>,
}

/// The complete lines of a progress snapshot not printed yet, and the new
/// printed count. `output` is the tail of `output_bytes` bytes; a line still
/// being written waits for its newline. Output that scrolled out of the tail
/// between two snapshots is skipped.
pub fn unprinted_lines(output: &str, output_bytes: u64, printed: u64) -> (&str, u64) {
    let new = usize::try_from(output_bytes.saturating_sub(printed)).unwrap_or(usize::MAX);
    let mut start = output.len().saturating_sub(new);
    while !output.is_char_boundary(start) {
        start += 1;
    }
    let piece = &output[start..];
    match piece.rfind('\n') {
        Some(end) => {
            let unfinished = (piece.len() - end - 1) as u64;
            (&piece[..=end], output_bytes - unfinished)
        }
        None => ("", printed),
    }
}

/// Summed usage of a turn's requests.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Totals {
    pub requests: u32,
    pub input: u64,
    pub cached: u64,
    pub output: u64,
    pub reasoning: u64,
    pub cost_usd: Option<f64>,
}

impl Totals {
    fn add(&mut self, input: u32, cached: u32, output: u32, reasoning: u32, cost: Option<f64>) {
        self.requests += 1;
        self.input += u64::from(input);
        self.cached += u64::from(cached);
        self.output += u64::from(output);
        self.reasoning += u64::from(reasoning);
        if let Some(c) = cost {
            self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + c);
        }
    }

    /// The one-line summary, `None` when no request reported usage.
    pub fn line(&self) -> Option<String> {
        if self.requests == 0 {
            return None;
        }
        let mut parts = Vec::new();
        parts.push(match self.cached {
            0 => format!("{} in", self.input),
            c => format!("{} in ({c} cached)", self.input),
        });
        parts.push(match self.reasoning {
            0 => format!("{} out", self.output),
            r => format!("{} out ({r} reasoning)", self.output),
        });
        if let Some(cost) = self.cost_usd {
            parts.push(format!("${cost:.4}"));
        }
        if self.requests > 1 {
            parts.push(format!("{} requests", self.requests));
        }
        Some(format!("usage: {}", parts.join(" · ")))
    }
}

/// Reasoning text as printed: every line indented by two spaces, dimmed when `dim`.
/// `mid_line` says whether the previous piece ended inside a line; returns the new state.
pub fn reasoning_piece(text: &str, mid_line: bool, dim: bool) -> (String, bool) {
    let mut out = String::new();
    let mut mid = mid_line;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            mid = false;
        }
        if line.is_empty() {
            continue;
        }
        if !mid {
            out.push_str("  ");
        }
        if dim {
            out.push_str("\x1b[2m");
            out.push_str(line);
            out.push_str("\x1b[22m");
        } else {
            out.push_str(line);
        }
        mid = true;
    }
    (out, mid)
}

impl PrintSink {
    pub fn new() -> Self {
        Self {
            dim: std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            ..Self::default()
        }
    }

    /// Ends the current reasoning line on stderr, if any.
    fn end_reasoning(&self) {
        if self.reasoning_mid_line.swap(false, Ordering::SeqCst) {
            eprintln!();
        }
    }

    fn reasoning(&self, text: &str) {
        self.end_line();
        let mid = self.reasoning_mid_line.load(Ordering::SeqCst);
        let (piece, mid) = reasoning_piece(text, mid, self.dim);
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(piece.as_bytes());
        let _ = err.flush();
        self.reasoning_mid_line.store(mid, Ordering::SeqCst);
    }

    fn usage_summary(&self) {
        let totals =
            std::mem::take(&mut *self.usage.lock().unwrap_or_else(PoisonError::into_inner));
        if let Some(line) = totals.line() {
            if self.hold_usage.swap(false, Ordering::SeqCst) {
                *self
                    .held_usage
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(line);
            } else {
                eprintln!("{line}");
            }
        }
    }

    /// Holds the usage line of the next turn that ends until
    /// [`release_usage`](Self::release_usage).
    pub fn hold_next_usage(&self) {
        self.hold_usage.store(true, Ordering::SeqCst);
    }

    /// Prints a held usage line, if any, and holds no more.
    pub fn release_usage(&self) {
        self.hold_usage.store(false, Ordering::SeqCst);
        let held = self
            .held_usage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(line) = held {
            eprintln!("{line}");
        }
    }

    /// Ends stdout's current line, if any.
    pub fn end_line(&self) {
        if self.mid_line.swap(false, Ordering::SeqCst) {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(b"\n");
            let _ = out.flush();
        }
    }

    fn label(&self, id: &str) -> String {
        self.labels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    fn tool_line(&self, line: &str) {
        self.end_reasoning();
        self.end_line();
        eprintln!("{line}");
    }

    /// An event of a sub-agent at `depth`.
    fn nested(&self, agent: &str, depth: u32, event: SessionEvent) {
        let pad = "  ".repeat(depth as usize);
        match event {
            SessionEvent::TurnStarted { .. } => self.tool_line(&format!("{pad}↳ {agent} started")),
            SessionEvent::TurnEnded { outcome, .. } => {
                let how = match outcome {
                    TurnOutcome::Completed => "finished".to_string(),
                    TurnOutcome::Cancelled => "stopped".to_string(),
                    TurnOutcome::RoundLimit { rounds } => format!("hit the round limit ({rounds})"),
                    TurnOutcome::Failed { message } => format!("failed: {}", first_line(&message)),
                };
                self.tool_line(&format!("{pad}↳ {agent} {how}"));
            }
            SessionEvent::AssistantMessage { text, .. } if !text.trim().is_empty() => {
                for line in text.trim_end().lines() {
                    self.tool_line(&format!("{pad}│ {line}"));
                }
            }
            SessionEvent::SubAgent {
                agent_id,
                depth,
                event,
                ..
            } => self.nested(&agent_id, depth, *event),
            SessionEvent::TokenDelta { .. }
            | SessionEvent::ReasoningDelta { .. }
            | SessionEvent::AssistantMessage { .. } => {}
            other => self.line_event(other, &pad),
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

impl EventSink for PrintSink {
    fn emit(&self, event: SessionEvent) {
        match event {
            SessionEvent::SubAgent {
                agent_id,
                depth,
                event,
                ..
            } => self.nested(&agent_id, depth, *event),
            other => self.line_event(other, ""),
        }
    }
}

impl PrintSink {
    /// Prints one event; `pad` indents the tool lines of a sub-agent.
    fn line_event(&self, event: SessionEvent, pad: &str) {
        match event {
            SessionEvent::TokenDelta { text, .. } => {
                if text.is_empty() {
                    return;
                }
                self.end_reasoning();
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
                self.mid_line.store(!text.ends_with('\n'), Ordering::SeqCst);
            }
            SessionEvent::ToolStart { call, .. } => {
                self.tool_line(&format!("{pad}▶ {}", call.label_short));
                self.labels
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(call.id, call.label_short);
            }
            SessionEvent::ToolAllowed {
                tool_call_id,
                reason,
                ..
            } => {
                self.reasons
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(tool_call_id, reason);
            }
            SessionEvent::ToolDone { tool_call_id, .. } => {
                let reason = self
                    .reasons
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&tool_call_id);
                let label = self.label(&tool_call_id);
                match reason {
                    Some(reason) => self.tool_line(&format!("{pad}✓ {label} ({reason})")),
                    None => self.tool_line(&format!("{pad}✓ {label}")),
                }
            }
            SessionEvent::ToolError {
                tool_call_id,
                error,
                ..
            } => {
                let label = self.label(&tool_call_id);
                self.tool_line(&format!("{pad}✗ {label}: {}", first_line(&error)));
            }
            SessionEvent::ToolCancelled { tool_call_id, .. } => {
                self.tool_line(&format!("{pad}✗ {}: cancelled", self.label(&tool_call_id)));
            }
            SessionEvent::ToolRejected {
                tool_call_id,
                reason,
                ..
            } => {
                let label = self.label(&tool_call_id);
                self.tool_line(&format!(
                    "{pad}✗ {label}: rejected: {}",
                    first_line(&reason)
                ));
            }
            SessionEvent::ApprovalRequired { request, .. } => {
                self.tool_line(&format!(
                    "{pad}? {}: waiting for approval ({}); id {}",
                    request.label_short, request.reason, request.tool_call_id
                ));
            }
            SessionEvent::ToolProgress {
                tool_call_id,
                output,
                output_bytes,
                ..
            } => {
                let mut printed = self.printed.lock().unwrap_or_else(PoisonError::into_inner);
                let done = printed.entry(tool_call_id).or_default();
                let (lines, now) = unprinted_lines(&output, output_bytes, *done);
                *done = now;
                drop(printed);
                for line in lines.lines() {
                    let line = format!("{pad}  │ {line}");
                    if self.dim {
                        self.tool_line(&format!("\x1b[2m{line}\x1b[22m"));
                    } else {
                        self.tool_line(&line);
                    }
                }
            }
            SessionEvent::ReasoningDelta { text, .. } => self.reasoning(&text),
            SessionEvent::Usage {
                input_tokens,
                output_tokens,
                cost_usd,
                cache_read_tokens,
                reasoning_tokens,
                ..
            } => self
                .usage
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .add(
                    input_tokens,
                    cache_read_tokens,
                    output_tokens,
                    reasoning_tokens,
                    cost_usd,
                ),
            SessionEvent::AssistantMessage { .. } => {
                self.end_reasoning();
                self.end_line();
            }
            SessionEvent::TurnEnded { .. } => {
                self.end_reasoning();
                self.end_line();
                self.usage_summary();
            }
            SessionEvent::SubAgent {
                agent_id,
                depth,
                event,
                ..
            } => self.nested(&agent_id, depth, *event),
            SessionEvent::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
                ..
            } => self.tool_line(&format!(
                "{pad}… {}",
                skald_session::retry_line(&reason, delay_ms, attempt, max_attempts)
            )),
            SessionEvent::ContextSummarized { summary, .. } => self.tool_line(&format!(
                "{pad}── earlier conversation summarised ({} messages, ~{} tokens) ──",
                summary.message_count, summary.covered_tokens
            )),
            SessionEvent::MessageIncomplete { reason, .. } => {
                self.end_line();
                self.tool_line(&format!(
                    "{pad}✗ answer incomplete: {}",
                    first_line(&reason)
                ));
            }
            SessionEvent::TurnStarted { .. }
            | SessionEvent::ContextUsage { .. }
            | SessionEvent::OpenFile { .. }
            | SessionEvent::TaskEnded { .. }
            | SessionEvent::TasksChanged { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_prints_each_complete_line_once() {
        assert_eq!(unprinted_lines("1\n2", 3, 0), ("1\n", 2));
        assert_eq!(unprinted_lines("1\n2\n3\n", 6, 2), ("2\n3\n", 6));
        assert_eq!(unprinted_lines("1\n2\n3\n", 6, 6), ("", 6));
        assert_eq!(unprinted_lines("y\nz\n", 1000, 998), ("z\n", 1000));
        // More was produced than the tail holds: the tail is printed.
        assert_eq!(unprinted_lines("y\nz\n", 1000, 900), ("y\nz\n", 1000));
    }

    #[test]
    fn reasoning_is_indented_per_line_and_dimmed_on_request() {
        let (a, mid) = reasoning_piece("First th", false, false);
        let (b, mid) = reasoning_piece("ought.\nSecond", mid, false);
        let (c, _) = reasoning_piece(" line.", mid, false);
        assert_eq!(format!("{a}{b}{c}"), "  First thought.\n  Second line.");
        let (d, _) = reasoning_piece("Why", false, true);
        assert_eq!(d, "  \x1b[2mWhy\x1b[22m");
    }

    #[test]
    fn usage_line_sums_the_rounds_and_leaves_out_what_was_not_reported() {
        let mut t = Totals::default();
        assert_eq!(t.line(), None);
        t.add(100, 0, 20, 0, None);
        assert_eq!(t.line().as_deref(), Some("usage: 100 in · 20 out"));
        t.add(342, 320, 58, 41, Some(0.0019));
        assert_eq!(
            t.line().as_deref(),
            Some("usage: 442 in (320 cached) · 78 out (41 reasoning) · $0.0019 · 2 requests")
        );
    }
}
