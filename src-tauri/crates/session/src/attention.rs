//! "Attention when hidden": the moments Skald wants the person to look —
//! a turn finished, a notification delivered into Home, a background task
//! ended. The driver raises them here for every turn it runs; a host that
//! can reach the person (the app: a system notification while its window
//! is hidden) subscribes. Nothing is stored: a moment nobody hears is gone,
//! its content stays in the conversation.

use skald_core_api::truncate_label;
use skald_protocol::TurnOutcome;
use skald_store::Role;
use tokio::sync::broadcast;

use crate::ChatSessionHandler;

/// Moments a slow subscriber may fall behind by.
const CAPACITY: usize = 64;
/// Most characters of a body (a notification shows two or three lines).
const BODY_CHARS: usize = 160;

/// Why Skald wants the person to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionKind {
    /// A turn ended on its own (answered, failed, round limit) — not when
    /// the person stopped it.
    TurnFinished,
    /// `notify` delivered into the Home conversation.
    Notification,
    /// A background task (async `execute_task`, a cron run) ended.
    TaskEnded,
}

/// One moment, ready to show: a title and a short body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attention {
    pub kind: AttentionKind,
    /// The session to open when the person follows it.
    pub session_id: String,
    pub title: String,
    pub body: String,
}

impl Attention {
    /// A background task ended: `summary` is what it did (or why it failed).
    pub fn task_ended(session_id: &str, task: &str, summary: &str) -> Self {
        Self {
            kind: AttentionKind::TaskEnded,
            session_id: session_id.to_string(),
            title: truncate_label(&format!("Task finished: {task}"), BODY_CHARS),
            body: one_paragraph(summary),
        }
    }
}

/// The channel moments go through (one per handler).
pub(crate) struct AttentionHub(broadcast::Sender<Attention>);

impl Default for AttentionHub {
    fn default() -> Self {
        Self(broadcast::channel(CAPACITY).0)
    }
}

impl ChatSessionHandler {
    /// Asks for the person's attention (a host decides whether and how to
    /// show it: the app only while its window is hidden). For background
    /// work ending, pass [`Attention::task_ended`].
    pub fn request_attention(&self, attention: Attention) {
        // Nobody listening (the CLI) is not an error.
        let _ = self.inner.attention.0.send(attention);
    }

    /// Every moment from now on.
    pub fn subscribe_attention(&self) -> broadcast::Receiver<Attention> {
        self.inner.attention.0.subscribe()
    }

    /// A turn of `session_id` (root frame `frame_id`) ended with `outcome`:
    /// the answer's start, or how it failed. Nothing when the person
    /// stopped it — they were there.
    pub(crate) async fn turn_finished(
        &self,
        session_id: &str,
        frame_id: i64,
        outcome: &TurnOutcome,
    ) {
        let body = match outcome {
            TurnOutcome::Cancelled => return,
            TurnOutcome::Completed => self
                .last_answer(frame_id)
                .await
                .unwrap_or_else(|| "The answer is ready.".to_string()),
            TurnOutcome::RoundLimit { rounds } => {
                format!("Stopped after {rounds} rounds without finishing.")
            }
            TurnOutcome::Failed { message } => format!("Failed: {message}"),
        };
        let title = match self.inner.store.sessions().get(session_id).await {
            Ok(Some(s)) if !s.title.trim().is_empty() => s.title,
            _ => "Skald".to_string(),
        };
        self.request_attention(Attention {
            kind: AttentionKind::TurnFinished,
            session_id: session_id.to_string(),
            title,
            body: one_paragraph(&body),
        });
    }

    async fn last_answer(&self, frame_id: i64) -> Option<String> {
        let rows = self
            .inner
            .store
            .history()
            .list_for_frame(frame_id)
            .await
            .ok()?;
        rows.into_iter()
            .rev()
            .find(|r| r.role == Role::Assistant && !r.content.trim().is_empty())
            .map(|r| r.content)
    }
}

/// The first lines of `text` as one short paragraph.
pub(crate) fn one_paragraph(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_label(&joined, BODY_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_one_short_line() {
        let long = format!("First line.\n\n{}", "word ".repeat(100));
        let b = one_paragraph(&long);
        assert!(b.starts_with("First line. word word"), "{b}");
        assert!(b.chars().count() <= BODY_CHARS, "{}", b.chars().count());
        assert!(!b.contains('\n'));
    }

    #[test]
    fn a_task_names_itself() {
        let a = Attention::task_ended("s1", "nightly backup", "Backed up 3 files.");
        assert_eq!(a.kind, AttentionKind::TaskEnded);
        assert_eq!(a.title, "Task finished: nightly backup");
        assert_eq!(a.body, "Backed up 3 files.");
    }
}
