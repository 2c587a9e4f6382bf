//! A run's ending, delivered: written into its target conversation (the
//! async task's parent, or Home for cron) as a completed `task_completed`
//! call, then the target's root turn resumes — when the target is idle, so
//! the call that started a task always has its own result first. Endings
//! waiting for the same conversation go in together, answered by one turn.

use std::time::Duration;

use serde_json::{Value, json};
use skald_core_api::{BoxFuture, Tool, ToolCategory, ToolDescriptionLength, truncate_label};
use skald_llm::ToolCall;
use skald_protocol::SessionEvent;
use skald_store::{
    FrameStatus, JobKind, JobRow, JobRunRow, NewMessage, NewToolCall, Role, ToolCallStatus,
};
use skald_tools::tool_names as tn;

use crate::error::SessionError;
use crate::events::NullSink;
use crate::handler::ChatSessionHandler;
use crate::sessions::root_frame;

/// `task_completed`: a run's ending as written into its target
/// conversation. Never offered to a model; it labels those calls'
/// cards with the mode of the task it reports (`task_completed 🚀 →
/// worker: Count files`).
pub(crate) struct TaskCompleted;

impl Tool for TaskCompleted {
    fn name(&self) -> &str {
        tn::TASK_COMPLETED
    }

    fn description(&self) -> &str {
        "A background task's ending, delivered into the conversation that started it (cron: Home)."
    }

    fn parameters_schema(&self) -> Value {
        json!({"type": "object"})
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let label = crate::delegation::describe_delegation(
            self.name(),
            crate::delegation::mode_mark(args),
            args,
        );
        truncate_label(&label, length.max_chars())
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Subagent
    }
}

/// How long delivery waits for a busy conversation before trying again.
const BUSY_RETRY: Duration = Duration::from_millis(100);

/// The id of the `task_completed` call reporting run `run_id`: one per run,
/// so a delivery cut short by a crash is never written twice.
pub(crate) fn completion_call_id(run_id: i64) -> String {
    format!("task-run-{run_id}")
}

/// What the target's model reads about a run.
fn completion_result(job: &JobRow, run: &JobRunRow) -> Value {
    let mut v = json!({
        "task_id": job.id,
        "title": job.name,
        "agent_id": job.agent_id,
        "mode": job.extras.kind.as_str(),
        "status": run.status.as_str(),
        "session_id": run.session_id,
    });
    if let Some(out) = &run.output {
        v["output"] = json!(out);
    }
    if let Some(e) = &run.error {
        v["error"] = json!(e);
    }
    v
}

impl ChatSessionHandler {
    /// The conversation a job's runs report to; `None` when it is gone.
    async fn report_target(&self, job: &JobRow) -> Result<Option<String>, SessionError> {
        match job.extras.kind {
            JobKind::Cron => Ok(Some(self.home_session().await?)),
            JobKind::Async => match &job.extras.parent_session_id {
                Some(sid) if self.inner.store.sessions().get(sid).await?.is_some() => {
                    Ok(Some(sid.clone()))
                }
                _ => Ok(None),
            },
        }
    }

    /// [`deliver_run`](Self::deliver_run), boxed: the resumed turn may
    /// start further tasks (a recursive future).
    pub(crate) fn deliver_run_boxed(&self, run_id: i64) -> BoxFuture<'_, Result<(), SessionError>> {
        Box::pin(self.deliver_run(run_id))
    }

    /// Delivers run `run_id`'s ending (and any other waiting for the same
    /// conversation) and resumes that conversation's turn.
    pub(crate) async fn deliver_run(&self, run_id: i64) -> Result<(), SessionError> {
        let store = &self.inner.store;
        let jobs = store.jobs();
        let Some(run) = jobs.get_run(run_id).await? else {
            return Ok(());
        };
        if run.delivered_at.is_some() {
            return Ok(());
        }
        let Some(job) = jobs.get(run.job_id).await? else {
            return Ok(());
        };
        let Some(target) = self.report_target(&job).await? else {
            // Its conversation was deleted: nobody to tell.
            jobs.mark_delivered(run.id).await?;
            return Ok(());
        };
        loop {
            match self.claim(&target) {
                Ok(slot) => {
                    let mut wrote = Vec::new();
                    let mut model = super::run::job_model(&job).map(str::to_string);
                    for waiting in jobs.undelivered_runs().await? {
                        let Some(j) = jobs.get(waiting.job_id).await? else {
                            continue;
                        };
                        if self.report_target(&j).await?.as_deref() != Some(target.as_str()) {
                            continue;
                        }
                        if let Some(w) = self.write_completion(&target, &j, &waiting).await? {
                            wrote.push(w);
                        }
                        if model.is_none() {
                            model = super::run::job_model(&j).map(str::to_string);
                        }
                        jobs.mark_delivered(waiting.id).await?;
                    }
                    if wrote.is_empty() {
                        return Ok(());
                    }
                    let prepared = match self.prepare(&target, model.as_deref()).await {
                        Ok(p) => p,
                        Err(e) => {
                            // No provider now: the result is in the
                            // conversation; its next turn reads it.
                            tracing::warn!(session = %target, error = %e, "task result delivered without a turn");
                            return Ok(());
                        }
                    };
                    let turn = self.turn(&prepared, &NullSink);
                    turn.emit(SessionEvent::TurnStarted {
                        session_id: target.clone(),
                    });
                    // The delivered calls' cards, as if they had just run.
                    for (id, args, result) in wrote {
                        crate::calls::emit_start(&turn, &id, tn::TASK_COMPLETED, args);
                        turn.emit(SessionEvent::ToolDone {
                            session_id: target.clone(),
                            tool_call_id: id,
                            result,
                            blocks: Vec::new(),
                        });
                    }
                    store
                        .stack()
                        .set_status(prepared.frame.id, FrameStatus::Active)
                        .await?;
                    let result = crate::turn::run_rounds(&turn, slot.token.clone()).await;
                    // Quiet: the ending already asked for attention.
                    self.end_turn_quietly(&turn, result).await;
                    return Ok(());
                }
                Err(SessionError::Busy(_) | SessionError::BusyElsewhere(_)) => {
                    tokio::time::sleep(BUSY_RETRY).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Appends the completed `task_completed` call reporting `run`:
    /// `(id, arguments, result)`, or `None` when it was written before.
    async fn write_completion(
        &self,
        target: &str,
        job: &JobRow,
        run: &JobRunRow,
    ) -> Result<Option<(String, Value, String)>, SessionError> {
        let store = &self.inner.store;
        let id = completion_call_id(run.id);
        if store.tool_calls().get(&id).await?.is_some() {
            return Ok(None);
        }
        let session = self.session_row(target).await?;
        let frame = root_frame(store, &session).await?;
        let args = json!({
            "task_id": job.id,
            "run_id": run.id,
            "mode": job.extras.kind.as_str(),
            "agent_id": job.agent_id,
            "title": job.name,
        });
        let arguments = args.to_string();
        let call = ToolCall {
            id: id.clone(),
            name: tn::TASK_COMPLETED.to_string(),
            arguments: arguments.clone(),
        };
        let message = store
            .history()
            .append(&NewMessage {
                session_id: target.to_string(),
                stack_id: Some(frame.id),
                role: Role::Assistant,
                content: String::new(),
                tool_calls: crate::assemble::tool_calls_json(&[call]),
                tool_call_id: None,
            })
            .await?;
        let result = completion_result(job, run).to_string();
        store
            .tool_calls()
            .insert(&NewToolCall {
                id: id.clone(),
                session_id: target.to_string(),
                message_id: Some(message.id),
                name: tn::TASK_COMPLETED.to_string(),
                arguments,
                status: ToolCallStatus::Running,
            })
            .await?;
        store
            .tool_calls()
            .finish(&id, ToolCallStatus::Done, Some(&result), Some("json"))
            .await?;
        store
            .history()
            .append(&NewMessage {
                session_id: target.to_string(),
                stack_id: Some(frame.id),
                role: Role::Tool,
                content: result.clone(),
                tool_calls: None,
                tool_call_id: Some(id.clone()),
            })
            .await?;
        Ok(Some((id, args, result)))
    }
}
