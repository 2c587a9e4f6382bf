//! `execute_task` (mode `sync`; `async` and `cron` are started by
//! [`crate::tasks`]) and `execute_subtask` (background sessions, sync
//! only): an agent hands work to a task agent inline.
//!
//! The tool itself ([`ExecuteTask`]) is an InterfaceTool built per frame
//! with the caller's agent and depth captured, so the set offers it, the
//! gate sees its category and source, its card has its label, and a call
//! naming itself, an unknown or non-task agent, or nesting too deep fails
//! before anyone is asked to approve it. The driver runs an allowed sync
//! call here ([`run_sync`]) instead of as a bare execution: the sub-agent
//! gets a child frame (`session_stack`, `parent_call_id` = the call) and a
//! normal loop with its own prompt, tools and history, under the parent
//! turn's cancellation token — one Stop ends it and everything it runs —
//! and its final answer is the call's result. After a crash the call's row
//! is still `running`; crash resume calls [`run_sync`] again, which finds
//! the child frame and continues it from its persisted history.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, CallRoute, CancellationToken, RestartHint, Tool, ToolCategory,
    ToolDescriptionLength, ToolError, ToolResult, input_schema, parse_args, truncate_label,
};
use skald_llm::ToolCall;
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_store::{FrameStatus, NewMessage, NewStackFrame, Role, StackFrameRow};
use skald_tools::tool_names as tn;

use crate::agents::{AgentCatalog, AgentDirs, AgentType};
use crate::calls::Outcome;
use crate::error::SessionError;
use crate::handler::{frame_depth, with_extra_prompt};
use crate::resume::resume_session;
use crate::turn::{Scope, Turn, run_rounds};

/// How a task runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TaskMode {
    /// The sub-agent works while you wait; its final answer is the result.
    Sync,
    /// The task runs in the background; its ending arrives later by itself.
    Async,
    /// The task runs on a schedule (`cron`); each result goes to Home.
    Cron,
}

/// Arguments of `execute_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecuteTaskInput {
    /// `sync`: the sub-agent works while you wait and its final answer is
    /// this call's result (several sync calls in one message run at the same
    /// time). `async`: the task starts in the background and this call
    /// returns `{task_id, status: "started"}` at once; its result arrives
    /// later by itself as a `task_completed` result. `cron`: the task runs on
    /// the schedule given in `cron`; each run's result goes to the person's
    /// Home conversation.
    pub mode: TaskMode,
    /// A short title of the task (a few words), shown to the person.
    pub title: String,
    /// Everything the sub-agent needs: what to do, where, what is known,
    /// constraints, and what to hand back. It does not see this conversation.
    pub prompt: String,
    /// The id of a task agent from the list in your instructions.
    pub agent_id: String,
    /// One line on what is delegated, shown on the task's card.
    #[serde(default)]
    pub description: Option<String>,
    /// Only with mode `cron`: when to run, five fields (minute hour
    /// day-of-month month day-of-week), e.g. "0 9 * * 1-5" for 09:00 on
    /// weekdays, in the person's time zone.
    #[serde(default)]
    pub cron: Option<String>,
}

/// Arguments of `execute_subtask` (background sessions: sync only).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExecuteSubtaskInput {
    /// A short title of the sub-task (a few words), shown to the person.
    #[allow(dead_code)] // read by the sync run (`SyncArgs`)
    title: String,
    /// Everything the sub-agent needs; it does not see this conversation.
    prompt: String,
    /// The id of a task agent from the list in your instructions.
    agent_id: String,
    /// One line on what is delegated, shown on the card.
    #[serde(default)]
    #[allow(dead_code)] // read from the arguments by the label
    description: Option<String>,
}

/// What a sync run reads of either tool's arguments.
#[derive(Debug, Deserialize)]
struct SyncArgs {
    title: String,
    prompt: String,
    agent_id: String,
}

/// The `execute_task` (or, in a background session, `execute_subtask`)
/// tool of one frame.
pub(crate) struct ExecuteTask {
    caller: String,
    depth: u32,
    max_depth: u32,
    agents: AgentDirs,
    /// `execute_subtask`: sync only, for background sessions.
    subtask: bool,
    /// The person's time zone, named in the description (cron).
    time_zone: String,
    description: String,
}

impl ExecuteTask {
    pub(crate) fn new(
        caller: &str,
        depth: u32,
        max_depth: u32,
        agents: AgentDirs,
        subtask: bool,
        time_zone: &str,
    ) -> Self {
        let description = if subtask {
            "Delegate a self-contained piece of work to a task agent (the list of task agents is \
             in your instructions): the sub-agent works with its own tools while you wait, and \
             its final answer is the result of this call. It does not see this conversation: \
             put everything it needs into `prompt`."
                .to_string()
        } else {
            format!(
                "Delegate a self-contained piece of work to a task agent (the list of task agents \
                 is in your instructions). The sub-agent does not see this conversation: put \
                 everything it needs into `prompt`. Mode `sync`: it works while you wait and its \
                 final answer is the result; independent sync tasks given in one message run at \
                 the same time. Mode `async`: it runs in the background, this call returns \
                 `{{task_id, status: \"started\"}}` at once, and its result arrives later by \
                 itself as a `task_completed` result (go on meanwhile; do not poll). Mode `cron`: \
                 it runs on the schedule in `cron`, five fields evaluated in the person's time \
                 zone ({time_zone}), e.g. \"0 9 * * 1-5\" for 09:00 on weekdays; every run's \
                 result goes to the person's Home conversation."
            )
        };
        Self {
            caller: caller.to_string(),
            depth,
            max_depth,
            agents,
            subtask,
            time_zone: time_zone.to_string(),
            description,
        }
    }
}

impl Tool for ExecuteTask {
    fn name(&self) -> &str {
        if self.subtask {
            tn::EXECUTE_SUBTASK
        } else {
            tn::EXECUTE_TASK
        }
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters_schema(&self) -> Value {
        if self.subtask {
            input_schema::<ExecuteSubtaskInput>()
        } else {
            input_schema::<ExecuteTaskInput>()
        }
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        // `execute_subtask` is always sync: no mode to show.
        let mark = if self.subtask {
            ""
        } else {
            crate::delegation::mode_mark(args)
        };
        truncate_label(
            &crate::delegation::describe_delegation(self.name(), mark, args),
            length.max_chars(),
        )
    }

    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        let invalid = |reason: String| ToolError::InvalidArguments {
            tool: self.name().to_string(),
            reason,
        };
        let (agent_id, prompt) = if self.subtask {
            let input: ExecuteSubtaskInput = parse_args(tn::EXECUTE_SUBTASK, args.clone())?;
            (input.agent_id, input.prompt)
        } else {
            let input: ExecuteTaskInput = parse_args(tn::EXECUTE_TASK, args.clone())?;
            match (input.mode, input.cron.as_deref()) {
                (TaskMode::Cron, None) => {
                    return Err(invalid(format!(
                        "mode `cron` needs `cron`: {}",
                        crate::tasks::CRON_EXAMPLE
                    )));
                }
                (TaskMode::Cron, Some(expr)) => {
                    crate::tasks::Schedule::parse(expr, &self.time_zone).map_err(invalid)?;
                }
                (_, Some(_)) => {
                    return Err(invalid(
                        "`cron` is only for mode `cron`; leave it out".to_string(),
                    ));
                }
                (_, None) => {}
            }
            if input.mode != TaskMode::Sync && self.depth > 0 {
                return Err(ToolError::failed(
                    "only the conversation's main agent starts background or scheduled tasks; \
                     use mode `sync`",
                ));
            }
            (input.agent_id, input.prompt)
        };
        check_target(
            &self.agents.catalog(),
            &self.caller,
            self.depth,
            self.max_depth,
            &agent_id,
        )
        .map_err(ToolError::Failed)?;
        if prompt.trim().is_empty() {
            return Err(invalid(
                "`prompt` is empty: say what the sub-agent should do".to_string(),
            ));
        }
        Ok(())
    }

    fn execute_async<'a>(&'a self, _args: Value) -> BoxFuture<'a, ToolResult> {
        // Only reachable outside a session turn (`skald tool run`).
        Box::pin(std::future::ready(Err(ToolError::failed(format!(
            "{} runs only inside a chat session",
            self.name()
        )))))
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Subagent
    }

    /// `execute_subtask` is always sync; `execute_task` by its `mode`.
    fn route(&self, args: &Value) -> CallRoute {
        if self.subtask {
            return CallRoute::SyncSubAgent;
        }
        match args.get("mode").and_then(Value::as_str) {
            Some("sync") => CallRoute::SyncSubAgent,
            Some("async" | "cron") => CallRoute::BackgroundTask,
            _ => CallRoute::Execute,
        }
    }

    /// Crash resume continues the sub-agent's frame instead (see
    /// [`run_sync`]); nothing re-runs it blindly.
    fn restart_hint(&self) -> RestartHint {
        RestartHint::Reask
    }
}

/// How a turn's round runs `call` as the model sent it (arguments that do
/// not parse: an execution, which then fails).
pub(crate) fn route_of_call(tools: &skald_tools::ToolSet, call: &ToolCall) -> CallRoute {
    serde_json::from_str::<Value>(&call.arguments)
        .map_or(CallRoute::Execute, |args| tools.route_of(&call.name, &args))
}

/// Why `caller` at `depth` may not hand work to `target`, told to the model.
fn check_target(
    catalog: &AgentCatalog,
    caller: &str,
    depth: u32,
    max_depth: u32,
    target: &str,
) -> Result<(), String> {
    let task_agents = || {
        let ids: Vec<String> = catalog
            .task_agents(caller)
            .map(|a| format!("`{}`", a.id))
            .collect();
        if ids.is_empty() {
            "none are installed".to_string()
        } else {
            format!("the task agents are {}", ids.join(", "))
        }
    };
    if target == caller {
        return Err(format!(
            "an agent cannot delegate to itself (`{caller}`); do the work yourself or pick \
             another agent ({})",
            task_agents()
        ));
    }
    if depth >= max_depth {
        return Err(format!(
            "sub-agents nest at most {max_depth} deep and this agent is at depth {depth}; do the \
             work yourself"
        ));
    }
    match catalog.get(target) {
        Some(a) if a.meta.kind == AgentType::Task => Ok(()),
        Some(a) => Err(format!(
            "`{target}` is a {} agent, not a task agent; {}",
            a.meta.kind.as_str(),
            task_agents()
        )),
        None => match catalog.problem(target) {
            Some(p) => Err(format!("agent `{target}` is unusable: {}", p.reason)),
            None => Err(format!("there is no agent `{target}`; {}", task_agents())),
        },
    }
}

/// Runs (or, after a crash, continues) the sub-agent of sync call `call_id`
/// of `t`'s frame and returns how the call ends.
pub(crate) fn run_sync<'a>(
    t: &'a Turn<'a>,
    call_id: &'a str,
    args: Value,
    cancel: CancellationToken,
) -> BoxFuture<'a, Result<Outcome, SessionError>> {
    Box::pin(async move {
        let input: SyncArgs = match serde_json::from_value(args) {
            Ok(i) => i,
            Err(e) => {
                return Ok(Outcome::Failed(
                    skald_core_api::ToolError::InvalidArguments {
                        tool: tn::EXECUTE_TASK.to_string(),
                        reason: e.to_string(),
                    }
                    .to_string(),
                ));
            }
        };
        let catalog = t.inner.agents.catalog();
        let max_depth = t.inner.config.max_task_depth;
        if let Err(e) = check_target(&catalog, t.agent_id, t.depth, max_depth, &input.agent_id) {
            return Ok(Outcome::Failed(e));
        }
        let store = &t.inner.store;
        let frame = match store.stack().for_call(call_id).await? {
            Some(f) => f,
            None => {
                store
                    .stack()
                    .push_for_call(
                        &NewStackFrame {
                            session_id: t.session_id().to_string(),
                            parent_id: Some(t.frame_id),
                            agent_id: input.agent_id.clone(),
                            task: Some(input.title.clone()),
                            status: FrameStatus::Active,
                        },
                        call_id,
                    )
                    .await?
            }
        };
        // The prompt is the frame's first message; a crash right after the
        // push left the frame without it.
        ensure_prompt(store, t.session_id(), frame.id, &input.prompt).await?;
        continue_frame(t, &catalog, &frame, call_id, cancel).await
    })
}

/// Boxed so the store's borrowed arguments stay out of the (recursive,
/// `Send`-checked) sub-agent future.
fn ensure_prompt<'a>(
    store: &'a skald_store::Store,
    session_id: &'a str,
    frame_id: i64,
    prompt: &'a str,
) -> BoxFuture<'a, Result<(), SessionError>> {
    Box::pin(async move {
        if store.history().list_for_frame(frame_id).await?.is_empty() {
            let first = NewMessage {
                session_id: session_id.to_string(),
                stack_id: Some(frame_id),
                role: Role::User,
                content: prompt.to_string(),
                tool_calls: None,
                tool_call_id: None,
            };
            store.history().append(&first).await?;
        }
        Ok(())
    })
}

/// The sub-agent's loop in its frame, from wherever its history stands.
async fn continue_frame(
    t: &Turn<'_>,
    catalog: &AgentCatalog,
    frame: &StackFrameRow,
    call_id: &str,
    cancel: CancellationToken,
) -> Result<Outcome, SessionError> {
    let store = &t.inner.store;
    // Finished before a crash could record the parent's result: its ending
    // is the result, nothing runs again.
    match frame.status {
        FrameStatus::Done => return Ok(Outcome::Done(final_answer(t, frame.id).await?.into())),
        FrameStatus::Failed => {
            return Ok(Outcome::Failed(partial_note(
                "the sub-agent failed",
                &final_answer(t, frame.id).await?,
            )));
        }
        FrameStatus::Cancelled => return Ok(Outcome::Cancelled(crate::notes::CANCELLED)),
        FrameStatus::Active | FrameStatus::Waiting => {}
    }
    // An agent broken since the call was checked fails the call, not the
    // caller's turn.
    let prepared = async {
        let agent = catalog.require(&frame.agent_id)?;
        let mcp_list = t.inner.mcp_list(t.session_id()).await?;
        let system = with_extra_prompt(
            crate::environment::with_environment(
                catalog.system_prompt_with(&frame.agent_id, t.workdir, &mcp_list)?,
                t.workdir,
            ),
            t.session,
        );
        let pinned = match agent.meta.model.as_deref() {
            Some(m) => Some(t.inner.providers.resolve(Some(m)).await?),
            None => None,
        };
        Ok::<_, SessionError>((system, pinned))
    }
    .await;
    let (system, pinned) = match prepared {
        Ok(p) => p,
        Err(SessionError::Store(e)) => return Err(e.into()),
        Err(e) => {
            store
                .stack()
                .set_status(frame.id, FrameStatus::Failed)
                .await?;
            return Ok(Outcome::Failed(format!(
                "the sub-agent `{}` cannot start: {e}",
                frame.agent_id
            )));
        }
    };
    let Some(model) = pinned.as_ref().or(t.model) else {
        return Err(SessionError::NoProvider(
            "a sub-agent cannot run without a model".to_string(),
        ));
    };
    let depth = frame_depth(frame);
    let (tools, events) =
        t.inner
            .frame_tools(t.session, frame.id, depth, &frame.agent_id, t.workdir);
    let child = Turn {
        inner: t.inner,
        session: t.session,
        frame_id: frame.id,
        agent_id: &frame.agent_id,
        depth,
        scope: Some(Scope {
            parent_call_id: call_id.to_string(),
        }),
        workdir: t.workdir,
        tools,
        events,
        system: &system,
        model: Some(model),
        sink: t.sink,
    };
    store
        .stack()
        .set_status(frame.id, FrameStatus::Active)
        .await?;
    child.emit(SessionEvent::TurnStarted {
        session_id: t.session_id().to_string(),
    });
    let result = async {
        let report = resume_session(&child, cancel.clone()).await?;
        let history = store.history().list_for_frame(frame.id).await?;
        let answered = history
            .last()
            .is_some_and(|m| m.role == Role::Assistant && m.tool_calls.is_none());
        if answered && !report.needs_answer {
            Ok(TurnOutcome::Completed)
        } else {
            run_rounds(&child, cancel).await
        }
    }
    .await;
    let outcome = match result {
        Ok(o) => o,
        Err(e) => TurnOutcome::Failed {
            message: e.to_string(),
        },
    };
    let answer = final_answer(t, frame.id).await?;
    let (status, result) = match &outcome {
        TurnOutcome::Completed => (FrameStatus::Done, Outcome::Done(answer.into())),
        TurnOutcome::Cancelled => (
            FrameStatus::Cancelled,
            Outcome::Cancelled(crate::notes::CANCELLED),
        ),
        TurnOutcome::RoundLimit { rounds } => (
            FrameStatus::Failed,
            Outcome::Failed(partial_note(
                &format!("the sub-agent reached its round limit ({rounds} rounds)"),
                &answer,
            )),
        ),
        TurnOutcome::Failed { message } => (
            FrameStatus::Failed,
            Outcome::Failed(partial_note(
                &format!("the sub-agent failed: {message}"),
                &answer,
            )),
        ),
    };
    store.stack().set_status(frame.id, status).await?;
    child.emit(SessionEvent::TurnEnded {
        session_id: t.session_id().to_string(),
        outcome,
    });
    Ok(result)
}

/// The sub-agent's last words: its latest non-empty assistant text.
async fn final_answer(t: &Turn<'_>, frame_id: i64) -> Result<String, SessionError> {
    let rows = t.inner.store.history().list_for_frame(frame_id).await?;
    Ok(rows
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && !m.content.trim().is_empty())
        .map(|m| m.content.clone())
        .unwrap_or_else(|| "(the sub-agent finished without an answer)".to_string()))
}

/// The separator between why a sub-agent failed and its last output.
const LAST_OUTPUT: &str = ". Its last output:\n";

fn partial_note(what: &str, partial: &str) -> String {
    format!("{what}{LAST_OUTPUT}{partial}")
}

/// Why a sub-agent failed, from its call's result ([`partial_note`]).
pub(crate) fn failure_of(result: &str) -> &str {
    result.split(LAST_OUTPUT).next().unwrap_or(result)
}

/// The frame's tools as [`Inner::toolset`](crate::handler::Inner) builds
/// them include this; kept here so the tool and its driver stay together.
pub(crate) fn tool_for(
    caller: &str,
    depth: u32,
    max_depth: u32,
    agents: &AgentDirs,
    background: bool,
    time_zone: &str,
) -> std::sync::Arc<dyn Tool> {
    std::sync::Arc::new(ExecuteTask::new(
        caller,
        depth,
        max_depth,
        agents.clone(),
        background,
        time_zone,
    ))
}
