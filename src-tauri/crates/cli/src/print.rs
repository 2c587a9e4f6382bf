//! [`PrintSink`]: a turn's events on a terminal. The answer's text streams to
//! stdout (so it can be piped); tool events go to stderr as one line each:
//! `▶ label` when a call starts, `✓ label` when it succeeds, `✗ label: why`
//! when it fails, is rejected or cancelled. A sub-agent's activity is
//! indented two spaces per level under the call that started it: its start
//! and end (`↳ agent …`), its calls, and its answers (its text never goes
//! to stdout, which is the root agent's answer).

use std::collections::HashMap;
use std::io::Write;
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
}

impl PrintSink {
    pub fn new() -> Self {
        Self::default()
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
            SessionEvent::AssistantMessage { .. } | SessionEvent::TurnEnded { .. } => {
                self.end_line();
            }
            SessionEvent::SubAgent {
                agent_id,
                depth,
                event,
                ..
            } => self.nested(&agent_id, depth, *event),
            SessionEvent::TurnStarted { .. }
            | SessionEvent::ReasoningDelta { .. }
            | SessionEvent::OpenFile { .. }
            | SessionEvent::Usage { .. } => {}
        }
    }
}
