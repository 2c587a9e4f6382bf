//! The history as the chat shows it: the root agent's conversation, and
//! under the card of each call that started a sub-agent (a sync
//! `execute_task`), that sub-agent's own messages and cards, at every depth,
//! as `SubAgent` events nest them live. Pure over rows read once.

use std::collections::HashMap;
use std::path::Path;

use skald_protocol::{ChatMessage, SubAgentTranscript, ToolCallView, TurnOutcome};
use skald_store::{
    FrameStatus, MessageRow, Role, SessionRow, StackFrameRow, SummaryRow, ToolCallRow,
};

use crate::assemble::{chat_messages, with_dividers};
use crate::handler::{Inner, frame_depth};

/// Everything of one session the transcript is built from.
pub(crate) struct Rows<'a> {
    pub session: &'a SessionRow,
    pub root: &'a StackFrameRow,
    pub frames: &'a [StackFrameRow],
    pub messages: Vec<MessageRow>,
    pub calls: &'a [ToolCallRow],
    pub summaries: &'a [SummaryRow],
    pub workdir: &'a Path,
}

/// The root conversation with every sub-agent's nested under its call.
pub(crate) fn transcript(inner: &Inner, rows: Rows<'_>) -> Vec<ChatMessage> {
    let mut by_frame: HashMap<i64, Vec<MessageRow>> = HashMap::new();
    for m in rows.messages {
        // Rows from before frames were kept belong to the root agent.
        let frame = m.stack_id.unwrap_or(rows.root.id);
        by_frame.entry(frame).or_default().push(m);
    }
    let by_call: HashMap<&str, &StackFrameRow> = rows
        .frames
        .iter()
        .filter_map(|f| f.parent_call_id.as_deref().map(|c| (c, f)))
        .collect();
    let b = Builder {
        inner,
        session: rows.session,
        by_frame,
        by_call,
        calls: rows.calls,
        summaries: rows.summaries,
        workdir: rows.workdir,
    };
    b.frame(rows.root, true)
}

struct Builder<'a> {
    inner: &'a Inner,
    session: &'a SessionRow,
    by_frame: HashMap<i64, Vec<MessageRow>>,
    by_call: HashMap<&'a str, &'a StackFrameRow>,
    calls: &'a [ToolCallRow],
    summaries: &'a [SummaryRow],
    workdir: &'a Path,
}

impl Builder<'_> {
    /// One frame's messages with their cards (labelled by the tools that
    /// frame's agent had, as they were live) and summary dividers.
    fn frame(&self, frame: &StackFrameRow, root: bool) -> Vec<ChatMessage> {
        let depth = frame_depth(frame);
        let labels = self.inner.toolset(
            self.session,
            if root { 0 } else { frame.id },
            depth,
            &frame.agent_id,
            self.workdir,
        );
        let mut rows = self.by_frame.get(&frame.id).map_or(&[][..], Vec::as_slice);
        // A sub-agent's first message is its prompt, which its call's card
        // already shows (and live events never carry).
        if !root && rows.first().is_some_and(|m| m.role == Role::User) {
            rows = &rows[1..];
        }
        let mut messages = chat_messages(&labels, rows, self.calls);
        for m in &mut messages {
            for call in &mut m.tool_calls {
                self.nest(call, depth);
            }
        }
        let summaries: Vec<SummaryRow> = self
            .summaries
            .iter()
            .filter(|s| match s.stack_id {
                Some(f) => f == frame.id,
                None => root,
            })
            .cloned()
            .collect();
        with_dividers(messages, &summaries)
    }

    /// Attaches the sub-agent `call` started, if any.
    fn nest(&self, call: &mut ToolCallView, depth: u32) {
        let Some(child) = self.by_call.get(call.id.as_str()).copied() else {
            return;
        };
        // Only a deeper frame: a damaged row never makes a loop.
        if frame_depth(child) <= depth {
            return;
        }
        call.sub_agent = Some(Box::new(SubAgentTranscript {
            frame_id: child.id,
            agent_id: child.agent_id.clone(),
            depth: frame_depth(child),
            outcome: outcome_of(child.status, call.result.as_deref()),
            messages: self.frame(child, false),
        }));
    }
}

/// How a finished sub-agent ended, as its `TurnEnded` said live; a failure's
/// words are on its call's result.
fn outcome_of(status: FrameStatus, result: Option<&str>) -> Option<TurnOutcome> {
    match status {
        FrameStatus::Active | FrameStatus::Waiting => None,
        FrameStatus::Done => Some(TurnOutcome::Completed),
        FrameStatus::Cancelled => Some(TurnOutcome::Cancelled),
        FrameStatus::Failed => Some(TurnOutcome::Failed {
            message: crate::subagent::failure_of(result.unwrap_or_default()).to_string(),
        }),
    }
}
