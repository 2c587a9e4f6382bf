//! `ask_user_clarification(title, question, suggested_answers?)`: the call
//! waits until the person answers, and the answer is its result. The
//! question is a row keyed by the call, so it survives the asking process:
//! after a crash the call re-runs on start and asks again (an answer given
//! meanwhile, from the Inbox or `skald answer`, is found at once). Stop
//! withdraws it. Answers from this process wake the call at once; those
//! of another process (`skald answer`) are seen by a slow poll.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, RestartHint, ToolCategory, ToolDescriptionLength, ToolError, ToolPresentation,
    ToolResult, TypedTool, truncate_label,
};
use skald_store::{NewClarification, Store};
use skald_tools::tool_names as tn;
use tokio::sync::Notify;

use crate::interface::{FrameContext, current_call_id};

/// How often a waiting question looks for an answer given by another process.
const POLL: Duration = Duration::from_millis(250);
/// Most suggested answers.
pub const MAX_SUGGESTIONS: usize = 8;

/// The in-process side of questions: wakes waiting calls when answered.
#[derive(Clone, Default)]
pub struct QuestionBoard {
    changed: Arc<Notify>,
}

impl QuestionBoard {
    /// Answers the question of call `id`. Returns whether it was waiting.
    pub async fn answer(
        &self,
        store: &Store,
        id: &str,
        answer: &str,
    ) -> Result<bool, skald_store::StoreError> {
        let done = store.clarifications().answer(id, answer).await?;
        self.changed.notify_waiters();
        Ok(done)
    }

    /// Resolves at the next answer given in this process (register before
    /// reading the row, so an answer in between is not missed).
    pub(crate) fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.changed.notified()
    }

    /// Wakes every waiting question to look at its row again.
    pub fn wake(&self) {
        self.changed.notify_waiters();
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskInput {
    /// A short title for the question (a few words).
    pub title: String,
    /// The question, in Markdown.
    pub question: String,
    /// Answers the person can pick with one click; they may also write their own.
    #[serde(default)]
    pub suggested_answers: Vec<String>,
}

#[derive(Clone)]
pub struct AskUserClarification {
    store: Store,
    session_id: String,
    frame_id: i64,
    agent_id: String,
    board: QuestionBoard,
}

impl AskUserClarification {
    pub fn new(f: &FrameContext, board: QuestionBoard) -> Self {
        Self {
            store: f.store.clone(),
            session_id: f.session_id.clone(),
            frame_id: f.frame_id,
            agent_id: f.agent_id.clone(),
            board,
        }
    }
}

/// Withdraws the question when its wait is dropped unanswered (Stop).
struct WithdrawOnDrop {
    store: Store,
    id: String,
    armed: bool,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (store, id) = (self.store.clone(), self.id.clone());
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = store.clarifications().withdraw(&id).await {
                    tracing::warn!(call = %id, error = %e, "question not withdrawn");
                }
            });
        }
    }
}

impl TypedTool for AskUserClarification {
    type Input = AskInput;

    fn name(&self) -> &str {
        tn::ASK_USER_CLARIFICATION
    }

    fn description(&self) -> &str {
        "Asks the person a question and waits for the answer (their reply is the result). Use it \
         when you cannot go on well without their decision; offer likely answers as \
         suggested_answers. The person may answer later; the question is kept until then."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    fn restart_hint(&self) -> RestartHint {
        // Asking again is harmless, and the answer may already be stored.
        RestartHint::Rerun
    }

    fn presentation(&self) -> ToolPresentation {
        ToolPresentation::Question
    }

    fn validate(&self, input: &AskInput) -> Result<(), ToolError> {
        if input.question.trim().is_empty() {
            return Err(self.invalid("question is empty"));
        }
        if input.title.trim().is_empty() {
            return Err(self.invalid("title is empty"));
        }
        if input.suggested_answers.len() > MAX_SUGGESTIONS {
            return Err(self.invalid(format!(
                "{} suggested answers; offer at most {MAX_SUGGESTIONS}",
                input.suggested_answers.len()
            )));
        }
        if input.suggested_answers.iter().any(|s| s.trim().is_empty()) {
            return Err(self.invalid("a suggested answer is empty"));
        }
        Ok(())
    }

    fn run_async(&self, input: AskInput) -> BoxFuture<'static, ToolResult> {
        let this = self.clone();
        let id = current_call_id();
        Box::pin(async move {
            let id = match id.or_else(current_call_id) {
                Some(id) => id,
                None => {
                    return Err(ToolError::Failed(
                        "ask_user_clarification runs only inside a session turn".into(),
                    ));
                }
            };
            let failed = |e: skald_store::StoreError| {
                ToolError::Failed(format!("the question could not be stored: {e}"))
            };
            let repo = this.store.clarifications();
            repo.ask(&NewClarification {
                tool_call_id: id.clone(),
                session_id: this.session_id.clone(),
                frame_id: Some(this.frame_id),
                agent_id: this.agent_id.clone(),
                title: input.title.trim().to_string(),
                question: input.question.trim().to_string(),
                suggestions: input
                    .suggested_answers
                    .iter()
                    .map(|s| s.trim().to_string())
                    .collect(),
            })
            .await
            .map_err(failed)?;
            let mut guard = WithdrawOnDrop {
                store: this.store.clone(),
                id: id.clone(),
                armed: true,
            };
            loop {
                // Register before reading, so an answer in between wakes us.
                let woken = this.board.changed.notified();
                let row = repo.get(&id).await.map_err(failed)?;
                match row {
                    Some(r) if r.status == "answered" => {
                        guard.armed = false;
                        return Ok(r.answer.unwrap_or_default());
                    }
                    Some(r) if r.status == "withdrawn" => {
                        guard.armed = false;
                        return Err(ToolError::Failed(
                            "the question was withdrawn before the person answered".into(),
                        ));
                    }
                    _ => {}
                }
                tokio::select! {
                    () = woken => {}
                    () = tokio::time::sleep(POLL) => {}
                }
            }
        })
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        match args.get("title").and_then(Value::as_str).map(str::trim) {
            Some(t) if !t.is_empty() => truncate_label(
                &format!("{} — {t}", tn::ASK_USER_CLARIFICATION),
                length.max_chars(),
            ),
            _ => tn::ASK_USER_CLARIFICATION.to_string(),
        }
    }
}
