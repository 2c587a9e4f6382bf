//! The tools of background work: `execute_task` async/cron calls started
//! from the driver ([`start_from_call`]), `read_agent_result`,
//! `delete_cron_job`, and the `agents` / `cron` kinds of `list_items` and
//! `toggle_item`.

use std::sync::Weak;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skald_core_api::{
    BoxFuture, ToolCategory, ToolDescriptionLength, ToolResult, ToolTraits, TypedTool,
};
use skald_store::{JobExtras, JobKind, NewJob, RunTrigger};
use skald_tools::ItemSource;
use skald_tools::tool_names as tn;

use crate::agents::{AgentDirs, AgentType};
use crate::calls::Outcome;
use crate::error::SessionError;
use crate::handler::{ChatSessionHandler, Inner};
use crate::subagent::{ExecuteTaskInput, TaskMode};
use crate::turn::Turn;

use super::{Schedule, local_label, utc_label};

/// Whether a session is a task's background session (its RunContext says so).
pub(crate) fn is_background_session(run_context: Option<&Value>) -> bool {
    run_context
        .and_then(|c| c.get("background"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn handler_of(inner: &Weak<Inner>) -> Result<ChatSessionHandler, String> {
    inner
        .upgrade()
        .map(|inner| ChatSessionHandler { inner })
        .ok_or_else(|| "Skald is shutting down".to_string())
}

/// Starts the async task or schedules the cron job of an allowed call
/// (`id`) of `t`'s frame to a tool declaring the background-task route
/// (`execute_task`), whose arguments are `execute_task`'s.
pub(crate) async fn start_from_call(
    t: &Turn<'_>,
    call_id: &str,
    tool: &str,
    args: Value,
) -> Result<Outcome, SessionError> {
    let input: ExecuteTaskInput = match skald_core_api::parse_args(tool, args) {
        Ok(i) => i,
        Err(e) => return Ok(Outcome::Failed(e.to_string())),
    };
    let h = match handler_of(&t.inner.me) {
        Ok(h) => h,
        Err(e) => return Ok(Outcome::Failed(e)),
    };
    // Tasks inherit the conversation's RunContext (and permission group).
    let mut rc = t
        .session
        .run_context
        .clone()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    if rc.get("permissionGroup").is_none() {
        rc["permissionGroup"] = json!(t.session.permission_group);
    }
    // Its runs ask the model this turn asks (and so does the turn that
    // reads their endings), not whatever the default is then.
    if let Some(m) = t.model {
        rc["model"] = json!(m.model);
    }
    let tz = t.inner.tasks.time_zone();
    let mut extras = JobExtras {
        kind: JobKind::Async,
        description: input.description.clone(),
        time_zone: None,
        parent_session_id: Some(t.session_id().to_string()),
        parent_call_id: Some(call_id.to_string()),
        working_dir: Some(t.workdir.to_string_lossy().into_owned()),
    };
    let mut job = NewJob {
        name: input.title.clone(),
        cron_expr: String::new(),
        prompt: input.prompt.clone(),
        agent_id: input.agent_id.clone(),
        enabled: true,
        run_context: Some(rc),
        next_run_at: None,
    };
    let jobs = t.inner.store.jobs();
    match input.mode {
        TaskMode::Async => {
            let row = jobs.create_with(&job, &extras).await?;
            match h.launch(row.clone(), RunTrigger::Async).await {
                Ok(_) => Ok(Outcome::Done(
                    json!({"task_id": row.id, "status": "started"})
                        .to_string()
                        .into(),
                )),
                Err(e) => {
                    // Never run, and the model hears it now: no row left
                    // for the next start to report as cut off by a crash.
                    if let Err(d) = jobs.delete(row.id).await {
                        tracing::warn!(job = row.id, error = %d, "cannot remove a task that never started");
                    }
                    Ok(Outcome::Failed(format!("the task could not start: {e}")))
                }
            }
        }
        TaskMode::Cron => {
            let expr = input.cron.clone().unwrap_or_default();
            let schedule = match Schedule::parse(&expr, &tz) {
                Ok(s) => s,
                Err(e) => return Ok(Outcome::Failed(e)),
            };
            let Some(next) = schedule.next_after(t.inner.tasks.clock.now()) else {
                return Ok(Outcome::Failed(format!(
                    "the cron expression {expr:?} never matches a future time"
                )));
            };
            extras.kind = JobKind::Cron;
            extras.time_zone = Some(tz.clone());
            job.cron_expr = expr.clone();
            job.next_run_at = Some(next.timestamp_millis());
            let row = jobs.create_with(&job, &extras).await?;
            t.inner.tasks.wake.notify_one();
            h.emit_tasks_changed();
            let ms = next.timestamp_millis();
            Ok(Outcome::Done(
                json!({
                    "task_id": row.id,
                    "status": "scheduled",
                    "cron": expr,
                    "schedule": schedule.describe(),
                    "time_zone": tz,
                    "next_run_at": utc_label(ms),
                    "next_run_local": local_label(ms, &tz),
                })
                .to_string()
                .into(),
            ))
        }
        TaskMode::Sync => Ok(Outcome::Failed(
            "a sync task runs inline, not in the background".to_string(),
        )),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadAgentResultInput {
    /// The `task_id` an async `execute_task` returned.
    #[allow(dead_code)] // the answer is the same for every task
    task_id: i64,
}

/// `read_agent_result`: results of async tasks arrive by themselves; this
/// always says "not ready" (as the spec has it), so a model that polls
/// learns to wait instead.
#[derive(Clone)]
pub(crate) struct ReadAgentResult;

impl TypedTool for ReadAgentResult {
    type Input = ReadAgentResultInput;

    fn name(&self) -> &str {
        tn::READ_AGENT_RESULT
    }

    fn description(&self) -> &str {
        "Results of async tasks arrive by themselves as `task_completed` results when the task \
         ends; this tool never has one ready. Do not poll: go on, or end your turn."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    fn run_async(&self, input: ReadAgentResultInput) -> BoxFuture<'static, ToolResult> {
        let out = json!({
            "task_id": input.task_id,
            "status": "not_ready",
            "note": "The result arrives by itself as a task_completed result when the task ends.",
        });
        Box::pin(std::future::ready(Ok(out.to_string())))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeleteCronJobInput {
    /// The cron job's `task_id` (see `list_items` type `cron`).
    task_id: i64,
}

/// `delete_cron_job`: removes a cron job (a running run is stopped first).
#[derive(Clone)]
pub(crate) struct DeleteCronJob {
    inner: Weak<Inner>,
}

impl DeleteCronJob {
    pub(crate) fn new(inner: Weak<Inner>) -> Self {
        Self { inner }
    }
}

impl TypedTool for DeleteCronJob {
    type Input = DeleteCronJobInput;

    fn name(&self) -> &str {
        tn::DELETE_CRON_JOB
    }

    fn description(&self) -> &str {
        "Permanently deletes a cron job and its run history (a running run is stopped first). \
         To pause one, use toggle_item with kind `cron`."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Config
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits {
            destructive: true,
            ..ToolTraits::default()
        }
    }

    fn describe(&self, args: &Value, _length: ToolDescriptionLength) -> String {
        match args.get("task_id").and_then(Value::as_i64) {
            Some(id) => format!("{} 📅 {id}", tn::DELETE_CRON_JOB),
            None => tn::DELETE_CRON_JOB.to_string(),
        }
    }

    fn run_async(&self, input: DeleteCronJobInput) -> BoxFuture<'static, ToolResult> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let h = handler_of(&inner).map_err(skald_core_api::ToolError::Failed)?;
            let job = h
                .inner
                .store
                .jobs()
                .get(input.task_id)
                .await
                .map_err(|e| skald_core_api::ToolError::failed(e.to_string()))?;
            match job {
                Some(j) if j.extras.kind == JobKind::Cron => {}
                _ => {
                    return Err(skald_core_api::ToolError::failed(format!(
                        "there is no cron job {}; list them with list_items type `cron`",
                        input.task_id
                    )));
                }
            }
            h.delete_task(input.task_id)
                .await
                .map_err(|e| skald_core_api::ToolError::failed(e.to_string()))?;
            Ok(format!("Cron job {} deleted.", input.task_id))
        })
    }
}

/// Agents as `list_items(type=agents)`: chat and task agents with their
/// description and, when set, how to call them. System agents are wired by
/// the runtime and not listed.
pub(crate) struct AgentItems(pub AgentDirs);

impl ItemSource for AgentItems {
    fn kind(&self) -> &str {
        "agents"
    }

    fn about(&self) -> &str {
        "every agent with its id, name, type (`chat` or `task`), description and, when set, \
         instructions on how to call it; task agents are the ones `execute_task` can hand work to."
    }

    fn list(&self) -> BoxFuture<'_, Result<Value, String>> {
        let catalog = self.0.catalog();
        let items: Vec<Value> = catalog
            .agents()
            .filter(|a| a.meta.kind != AgentType::System)
            .map(|a| {
                let mut v = json!({
                    "id": a.id,
                    "name": a.meta.name,
                    "type": a.meta.kind.as_str(),
                    "description": a.meta.description,
                });
                if let Some(i) = a.meta.instructions.as_deref().filter(|i| !i.is_empty()) {
                    v["instructions"] = json!(i);
                }
                v
            })
            .collect();
        Box::pin(std::future::ready(Ok(Value::Array(items))))
    }
}

/// Cron jobs as `list_items(type=cron)` and `toggle_item(kind=cron)`.
pub(crate) struct CronItems(pub Weak<Inner>);

impl ItemSource for CronItems {
    fn kind(&self) -> &str {
        "cron"
    }

    fn about(&self) -> &str {
        "the cron jobs with their task_id, title, agent, schedule (expression, in words, time \
         zone), whether enabled, next run and last outcome."
    }

    fn list(&self) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move {
            let h = handler_of(&self.0)?;
            let tasks = h.list_tasks().await.map_err(|e| e.to_string())?;
            let items: Vec<Value> = tasks
                .into_iter()
                .filter(|t| t.kind == JobKind::Cron.as_str())
                .map(|t| {
                    let tz = t.time_zone.clone().unwrap_or_default();
                    json!({
                        "task_id": t.id,
                        "title": t.title,
                        "agent_id": t.agent_id,
                        "cron": t.cron,
                        "schedule": t.cron_words,
                        "time_zone": t.time_zone,
                        "enabled": t.enabled,
                        "state": t.state,
                        "next_run_local": t.next_run_at.map(|ms| local_label(ms, &tz)),
                        "last_outcome": t.last_run.as_ref().map(|r| r.status.clone()),
                    })
                })
                .collect();
            Ok(Value::Array(items))
        })
    }

    fn toggles(&self) -> bool {
        true
    }

    fn toggle<'a>(&'a self, name: &'a str, enabled: bool) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let h = handler_of(&self.0)?;
            let jobs = h
                .inner
                .store
                .jobs()
                .list()
                .await
                .map_err(|e| e.to_string())?;
            let job = jobs
                .iter()
                .filter(|j| j.extras.kind == JobKind::Cron)
                .find(|j| name.trim().parse::<i64>().ok() == Some(j.id) || j.name == name)
                .ok_or_else(|| {
                    format!("no cron job `{name}`; list them with list_items type `cron`")
                })?;
            let view = h
                .set_task_enabled(job.id, enabled)
                .await
                .map_err(|e| e.to_string())?;
            Ok(match (enabled, view.next_run_at) {
                (true, Some(ms)) => format!(
                    "Cron job {} enabled; next run {}.",
                    job.id,
                    local_label(ms, view.time_zone.as_deref().unwrap_or("UTC"))
                ),
                (true, None) => format!("Cron job {} enabled.", job.id),
                (false, _) => format!("Cron job {} disabled.", job.id),
            })
        })
    }
}
