//! [`ChatSessionHandler`]: the one entry point the app and the CLI drive.
//! It owns the store, the tool registry, discovery, the provider resolver and
//! the approval gate, and enforces one turn at a time per session: each turn
//! holds a slot with its own [`CancellationToken`], which [`stop`] cancels.
//!
//! [`stop`]: ChatSessionHandler::stop

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use futures_util::StreamExt;
use skald_core_api::{BoxFuture, CancellationToken, MAX_LABEL_SHORT, truncate_label};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_store::{
    FrameStatus, NewMessage, Role, SessionLease, SessionRow, StackFrameRow, Store, ToolCallRow,
    ToolCallStatus,
};
use skald_tools::{ItemSource, ToolDiscovery, ToolRegistry, ToolSet, ToolSource};

use crate::agent::DEFAULT_AGENT;
use crate::agents::{AgentCatalog, AgentDirs};
use crate::attention::AttentionHub;
use crate::bus::{Attached, SessionBus};
use crate::companion::{CompanionTools, NotificationQueue, QuestionBoard};
use crate::environment::with_environment;
use crate::error::SessionError;
use crate::events::EventSink;
use crate::gate::{AllowAll, ApprovalGate};
use crate::interface::InterfaceTools;
use crate::known_tools::StoreKnownTools;
use crate::provider::{ProviderResolver, ResolvedModel};
use crate::resume::{ResumeReport, resume_session};
use crate::sessions::{root_frame, session_workdir};
use crate::turn::{Turn, run_rounds};

mod internals;
mod recovery;
mod redo;
mod tools;

/// How many interrupted sessions `resume_all` answers at once.
const RESUME_AT_ONCE: usize = 4;

/// Tunables of the driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerConfig {
    /// Most LLM calls in one turn before it ends with `RoundLimit`.
    pub max_rounds: u32,
    /// The agent of sessions created without one.
    pub default_agent: String,
    /// Most sync sub-agents of one assistant message running at once.
    pub max_parallel_tasks: usize,
    /// How deep sub-agents may nest (the root agent is 0).
    pub max_task_depth: u32,
}

impl Default for HandlerConfig {
    fn default() -> Self {
        Self {
            max_rounds: 20,
            default_agent: DEFAULT_AGENT.to_string(),
            max_parallel_tasks: 4,
            max_task_depth: 5,
        }
    }
}

/// Options of one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnOptions {
    /// The model to ask (`None`: the resolver's default).
    pub model: Option<String>,
}

/// What a new session starts with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionParams {
    pub title: Option<String>,
    /// `None`: the handler's default agent.
    pub agent_id: Option<String>,
    /// Where tools resolve relative paths; `None`: the process directory at
    /// turn time. Relative paths are made absolute now.
    pub working_dir: Option<PathBuf>,
}

/// How [`ChatSessionHandler::resume_all`] left one session.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumedSession {
    pub session_id: String,
    pub report: ResumeReport,
    /// `Some` when an interrupted turn was answered.
    pub outcome: Option<TurnOutcome>,
}

pub(crate) struct Inner {
    /// This handler, for work that outlives a turn (background tasks).
    pub me: Weak<Inner>,
    /// Async tasks, cron jobs and the scheduler.
    pub tasks: Arc<crate::tasks::Tasks>,
    /// Further kinds of `list_items` / `toggle_item` (MCP servers).
    pub items: Vec<Arc<dyn ItemSource>>,
    pub store: Store,
    pub registry: Arc<ToolRegistry>,
    pub discovery: ToolDiscovery,
    pub providers: Arc<dyn ProviderResolver>,
    pub gate: Arc<dyn ApprovalGate>,
    /// Where agents are read from (later directories override earlier).
    pub agents: AgentDirs,
    pub config: HandlerConfig,
    /// Factories of the session's InterfaceTools, built per frame.
    pub interface: Vec<Arc<dyn InterfaceTools>>,
    /// Further sources of every round (MCP), after the registry.
    pub sources: Vec<Arc<dyn ToolSource>>,
    /// Every turn's events, for any window that follows the session.
    pub bus: SessionBus,
    /// Wakes questions waiting for the person when one is answered here.
    pub questions: QuestionBoard,
    /// Result images already fitted to a provider's size limit.
    pub images: crate::images::FitCache,
    /// Context windows endpoints reported for their models.
    pub windows: crate::context::WindowCache,
    /// What `notify` queued, for delivery into Home.
    pub notifications: NotificationQueue,
    /// Moments the person should see (turn finished, notification).
    pub attention: AttentionHub,
    active: Mutex<HashMap<String, CancellationToken>>,
}

/// What a handler is built from.
pub(crate) struct Parts {
    pub clock: Arc<dyn crate::tasks::Clock>,
    pub time_zone: String,
    items: Vec<Arc<dyn ItemSource>>,
    store: Store,
    registry: Arc<ToolRegistry>,
    providers: Arc<dyn ProviderResolver>,
    agents: AgentDirs,
    gate: Arc<dyn ApprovalGate>,
    config: HandlerConfig,
    interface: Vec<Arc<dyn InterfaceTools>>,
    sources: Vec<Arc<dyn ToolSource>>,
}

impl Inner {
    /// `<!-- MCP_LIST -->` for a session: the groups of the `activate_tools`
    /// factory, the session's always-on servers marked.
    pub(crate) async fn mcp_list(&self, session_id: &str) -> Result<String, SessionError> {
        let groups = self
            .interface
            .iter()
            .find_map(|f| f.tool_groups())
            .unwrap_or_default();
        let always = crate::activate::always_on(&self.store, Some(session_id)).await?;
        Ok(crate::activate::mcp_list(&groups, &always))
    }
}

/// The session driver. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct ChatSessionHandler {
    pub(crate) inner: Arc<Inner>,
}

/// A session's turn slot; frees it when dropped.
pub(crate) struct Slot<'a> {
    inner: &'a Inner,
    session_id: String,
    pub token: CancellationToken,
    /// The cross-process claim; released with the slot.
    lease: Option<SessionLease>,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        // The lease first: a claim racing this drop in this process must
        // find the session free, not "busy in another process".
        drop(self.lease.take());
        self.inner
            .active
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.session_id);
    }
}

/// A turn ready to run: the session, its root frame, model and prompt.
pub(crate) struct Prepared {
    pub session: SessionRow,
    pub frame: StackFrameRow,
    pub workdir: PathBuf,
    pub system: String,
    pub model: ResolvedModel,
}

impl ChatSessionHandler {
    /// A handler allowing every call ([`AllowAll`]) with the default config.
    /// `agents_dir` holds `<agent_id>/AGENT.md`.
    pub fn new(
        store: Store,
        registry: Arc<ToolRegistry>,
        providers: Arc<dyn ProviderResolver>,
        agents_dir: impl Into<PathBuf>,
    ) -> Self {
        Self::build(
            store,
            registry,
            providers,
            AgentDirs(vec![agents_dir.into()]),
            Arc::new(AllowAll),
            HandlerConfig::default(),
        )
    }

    /// Replaces the approval gate. Call before sharing the handler.
    pub fn with_gate(self, gate: Arc<dyn ApprovalGate>) -> Self {
        self.rebuilt(|i| i.gate = gate)
    }

    /// Adds a directory of agents that add to or override those found so
    /// far (`<data dir>/agents`, `SKALD_AGENTS_DIR`). Call before sharing
    /// the handler.
    pub fn with_agents_dir(self, dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        self.rebuilt(|i| {
            if !i.agents.0.contains(&dir) {
                i.agents.0.push(dir);
            }
        })
    }

    /// The agents as they are on disk now, and the ones that are broken.
    pub fn agents(&self) -> AgentCatalog {
        self.inner.agents.catalog()
    }

    /// Replaces the config. Call before sharing the handler.
    pub fn with_config(self, config: HandlerConfig) -> Self {
        self.rebuilt(|i| i.config = config)
    }

    /// The session's own tools (InterfaceTools, `execute_task`, …) as the
    /// catalogue lists them: each as it declares itself, whichever frames
    /// are offered it, so a new one is listed without a table to keep.
    pub fn synthetic_tools(&self) -> Vec<skald_protocol::ToolInfo> {
        self.inner.synthetic_tools()
    }

    /// Adds a kind of InterfaceTool: every frame's tools include what
    /// `tools` builds for it. Call before sharing the handler.
    pub fn with_interface_tools(self, tools: Arc<dyn InterfaceTools>) -> Self {
        self.rebuilt(|i| i.interface.push(tools))
    }

    /// Adds a kind of item to `list_items` (and `toggle_item`, when it
    /// toggles): MCP servers. Call before sharing the handler.
    pub fn with_items(self, items: Arc<dyn ItemSource>) -> Self {
        self.rebuilt(|i| i.items.push(items))
    }

    /// Adds a source every round draws from after the registry (MCP).
    /// Call before sharing the handler.
    pub fn with_tool_source(self, source: Arc<dyn ToolSource>) -> Self {
        self.rebuilt(|i| i.sources.push(source))
    }

    /// A handler with `change` applied to a copy of this one's parts.
    pub(crate) fn rebuilt(self, change: impl FnOnce(&mut Parts)) -> Self {
        let i = &self.inner;
        let mut parts = Parts {
            clock: i.tasks.clock.clone(),
            time_zone: i.tasks.time_zone(),
            items: i.items.clone(),
            store: i.store.clone(),
            registry: i.registry.clone(),
            providers: i.providers.clone(),
            agents: i.agents.clone(),
            gate: i.gate.clone(),
            config: i.config.clone(),
            interface: i.interface.clone(),
            sources: i.sources.clone(),
        };
        change(&mut parts);
        Self::from_parts(parts)
    }

    fn build(
        store: Store,
        registry: Arc<ToolRegistry>,
        providers: Arc<dyn ProviderResolver>,
        agents: AgentDirs,
        gate: Arc<dyn ApprovalGate>,
        config: HandlerConfig,
    ) -> Self {
        Self::from_parts(Parts {
            clock: Arc::new(crate::tasks::SystemClock),
            time_zone: crate::tasks::system_time_zone(),
            items: Vec::new(),
            store,
            registry,
            providers,
            agents,
            gate,
            config,
            // Every session works with the person: scratchpad, todos,
            // showing files, asking questions.
            interface: vec![Arc::new(CompanionTools::new(
                QuestionBoard::default(),
                NotificationQueue::default(),
            ))],
            sources: Vec::new(),
        })
    }

    fn from_parts(p: Parts) -> Self {
        let Parts {
            clock,
            time_zone,
            items,
            store,
            registry,
            providers,
            agents,
            gate,
            config,
            interface,
            sources,
        } = p;
        let discovery = ToolDiscovery::new(Arc::new(StoreKnownTools::new(store.clone())));
        let questions = interface
            .iter()
            .find_map(|f| f.question_board())
            .unwrap_or_default();
        let notifications = interface
            .iter()
            .find_map(|f| f.notification_queue())
            .unwrap_or_default();
        Self {
            inner: Arc::new_cyclic(|me| Inner {
                me: me.clone(),
                tasks: Arc::new(crate::tasks::Tasks::new(clock, time_zone)),
                items,
                bus: SessionBus::default(),
                attention: AttentionHub::default(),
                questions,
                images: Default::default(),
                windows: Default::default(),
                notifications,
                interface,
                sources,
                store,
                registry,
                discovery,
                providers,
                gate,
                agents,
                config,
                active: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.inner.registry
    }

    pub fn config(&self) -> &HandlerConfig {
        &self.inner.config
    }

    /// Follows a session from any window: its running turn's events so
    /// far, then every event live (of every session; filter by id).
    pub fn attach(&self, session_id: &str) -> Attached {
        self.inner.bus.attach(session_id)
    }

    /// Every event of every session from now on (tray, Inbox, windows that
    /// follow background work).
    pub fn subscribe_all(&self) -> tokio::sync::broadcast::Receiver<SessionEvent> {
        self.inner.bus.subscribe()
    }

    // Turns ---------------------------------------------------------------

    /// Whether a turn is running in the session.
    pub fn is_running(&self, session_id: &str) -> bool {
        self.inner
            .active
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(session_id)
    }

    /// Stops the session's running turn: the LLM request is dropped, the
    /// running tool stopped, waits for approval resolve as cancelled, and the
    /// person's bypasses for the session are cleared. Returns whether a turn
    /// was running.
    pub fn stop(&self, session_id: &str) -> bool {
        self.inner.gate.session_stopped(session_id);
        let active = self
            .inner
            .active
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match active.get(session_id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Runs one turn: the person's `text`, then LLM rounds and tool calls
    /// until the model answers, the round limit, `/stop` or a failure. Errors
    /// only when the turn cannot start (unknown session, busy, no provider,
    /// broken agent); once started, the outcome says how it ended.
    pub async fn send_message(
        &self,
        session_id: &str,
        text: &str,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        self.send_message_with(session_id, text, TurnOptions::default(), sink)
            .await
    }

    /// [`send_message`](Self::send_message) with options (the model).
    pub async fn send_message_with(
        &self,
        session_id: &str,
        text: &str,
        options: TurnOptions,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        let slot = self.claim(session_id)?;
        let prepared = match self.prepare(session_id, options.model.as_deref()).await {
            Ok(p) => p,
            // With no usable provider, what the person wrote is kept (with
            // why it went unanswered) for Retry once one is set up. Other
            // refusals (a broken agent) write nothing, as before.
            Err(e @ (SessionError::NoProvider(_) | SessionError::Llm(_))) => {
                self.keep_unsent(session_id, text, &e).await;
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        let turn = self.turn(&prepared, &sink);
        turn.emit(SessionEvent::TurnStarted {
            session_id: session_id.to_string(),
        });
        let result = self
            .user_turn(&turn, &prepared, text, slot.token.clone())
            .await;
        Ok(self.end_turn(&turn, result).await)
    }

    pub(crate) async fn user_turn(
        &self,
        turn: &Turn<'_>,
        p: &Prepared,
        text: &str,
        cancel: CancellationToken,
    ) -> Result<TurnOutcome, SessionError> {
        let store = &self.inner.store;
        store
            .stack()
            .set_status(p.frame.id, FrameStatus::Active)
            .await?;
        resume_session(turn, cancel.clone()).await?;
        self.append_user(&p.session, p.frame.id, text).await?;
        run_rounds(turn, cancel).await
    }

    /// Stores the person's message (and names an untitled session after it).
    pub(crate) async fn append_user(
        &self,
        session: &SessionRow,
        frame_id: i64,
        text: &str,
    ) -> Result<i64, SessionError> {
        let store = &self.inner.store;
        let row = store
            .history()
            .append(&NewMessage {
                session_id: session.id.clone(),
                stack_id: Some(frame_id),
                role: Role::User,
                content: text.to_string(),
                tool_calls: None,
                tool_call_id: None,
            })
            .await?;
        if session.title.trim().is_empty() {
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let title = truncate_label(first.trim(), MAX_LABEL_SHORT);
            if !title.is_empty() {
                store.sessions().rename(&session.id, &title).await?;
            }
        }
        Ok(row.id)
    }

    /// Ends a turn: the frame goes back to waiting, the session is touched,
    /// `TurnEnded` is emitted and the person's attention requested (see
    /// [`turn_finished`](Self::turn_finished)). A failure inside the turn
    /// becomes its outcome.
    pub(crate) async fn end_turn(
        &self,
        turn: &Turn<'_>,
        result: Result<TurnOutcome, SessionError>,
    ) -> TurnOutcome {
        let outcome = self.end_turn_quietly(turn, result).await;
        self.turn_finished(turn.session_id(), turn.frame_id, &outcome)
            .await;
        outcome
    }

    /// [`end_turn`](Self::end_turn) without asking for attention (a turn
    /// whose start already did: notifications delivered into Home).
    pub(crate) async fn end_turn_quietly(
        &self,
        turn: &Turn<'_>,
        result: Result<TurnOutcome, SessionError>,
    ) -> TurnOutcome {
        let outcome = match result {
            Ok(o) => o,
            Err(e) => {
                tracing::warn!(session = %turn.session_id(), error = %e, "turn failed");
                TurnOutcome::Failed {
                    message: e.to_string(),
                }
            }
        };
        let store = &self.inner.store;
        // A failed turn keeps its error in the history, on the last message
        // it stored, for the person to see and retry.
        if let (TurnOutcome::Failed { message }, None) = (&outcome, &turn.scope)
            && let Err(e) = self.record_error(turn.frame_id, message).await
        {
            tracing::warn!(error = %e, "cannot record the turn's error");
        }
        if let Err(e) = store
            .stack()
            .set_status(turn.frame_id, FrameStatus::Waiting)
            .await
        {
            tracing::warn!(error = %e, "cannot mark the frame waiting");
        }
        if let Err(e) = store.sessions().touch(turn.session_id()).await {
            tracing::warn!(error = %e, "cannot touch the session");
        }
        turn.emit(SessionEvent::TurnEnded {
            session_id: turn.session_id().to_string(),
            outcome: outcome.clone(),
        });
        outcome
    }
}

/// The agent's prompt with the session's RunContext `extraSystemPrompt`
/// appended (the person's standing instructions for this session).
pub(crate) fn with_extra_prompt(system: String, session: &SessionRow) -> String {
    let extra = session
        .run_context
        .clone()
        .and_then(|v| serde_json::from_value::<skald_approval::RunContext>(v).ok())
        .and_then(|ctx| ctx.extra_system_prompt)
        .filter(|p| !p.trim().is_empty());
    match extra.as_deref().map(str::trim) {
        Some(extra) if system.is_empty() => extra.to_string(),
        Some(extra) => format!("{system}\n\n{extra}"),
        None => system,
    }
}

/// A frame's depth as the tool audience counts it.
pub(crate) fn frame_depth(frame: &StackFrameRow) -> u32 {
    u32::try_from(frame.depth).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::NullSink;

    /// The app awaits these in Tauri commands and spawned tasks: they must be Send.
    #[allow(dead_code)]
    fn futures_are_send(h: &ChatSessionHandler) {
        fn send<T: Send>(_: T) {}
        send(h.send_message("s", "t", NullSink));
        send(h.send_message_with("s", "t", TurnOptions::default(), NullSink));
        send(h.resume_all(None, NullSink));
        send(h.resume_pending_tools("s", NullSink));
        send(h.create_session(SessionParams::default()));
        send(h.history("s"));
    }
}
