//! `skald chat`, `skald resume` and `skald sessions`: the session driver from
//! a terminal, on the same DB as the desktop app. This module only wires
//! the library up and prints; every decision lives in `skald-session`.
//!
//! Exit codes of `chat`: 0 answered, 1 the turn failed (provider, store),
//! 2 it could not start (unknown session, no provider, broken agent, bad
//! working directory), 3 the round limit was reached, 130 stopped (Ctrl-C),
//! 75 a restart was requested.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use skald_mcp::{McpManager, McpSource};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{
    ActivateTools, AgentDirs, ApprovalManager, ChatSessionHandler, DefaultProviderResolver,
    SessionError, SessionParams, TurnOptions,
};
use skald_session::{FrameContext, InterfaceTools};
use skald_store::Store;
use skald_tools::{BuiltinDeps, ToolRegistry, builtin_registry};

use crate::approve::{ApproveMode, ApprovingSink};
use crate::{EXIT_RESTART, fail, print_out};

/// The person's own agents directory: `$SKALD_AGENTS_DIR`, else
/// `<data dir>/agents`. Its agents add to the bundled ones or replace those
/// of the same id.
pub const AGENTS_DIR_ENV: &str = "SKALD_AGENTS_DIR";

pub fn user_agents_dir(data_dir: &Path) -> PathBuf {
    match std::env::var_os(AGENTS_DIR_ENV).filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => data_dir.join("agents"),
    }
}

/// The bundled agents: `agents/` next to the binary or in its
/// `../share/skald/` / `../lib/skald/`, else the source tree's (dev builds).
/// The built-in agents are compiled in as well, so none may be found.
pub fn bundled_agents_dir() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        candidates.push(exe_dir.join("agents"));
        candidates.push(exe_dir.join("../share/skald/agents"));
        candidates.push(exe_dir.join("../lib/skald/agents"));
    }
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../agents"));
    candidates
        .into_iter()
        .find(|d| d.join(skald_session::DEFAULT_AGENT).is_dir())
}

/// Every agents directory, in order of precedence (later wins).
pub fn agent_dirs(data_dir: &Path) -> AgentDirs {
    let mut dirs: Vec<PathBuf> = bundled_agents_dir().into_iter().collect();
    let user = user_agents_dir(data_dir);
    if !dirs.contains(&user) {
        dirs.push(user);
    }
    AgentDirs(dirs)
}

pub struct Host {
    pub handler: ChatSessionHandler,
    pub approvals: ApprovalManager,
    pub deps: BuiltinDeps,
    store: Store,
    mcp: McpManager,
}

impl Host {
    pub async fn open(data_dir: &Path) -> Result<Self, String> {
        let store = Store::open(data_dir).await.map_err(|e| e.to_string())?;
        if let Err(e) = skald_session::bootstrap(&store).await {
            tracing::warn!(error = %e, "cannot seed the approval rules");
        }
        let deps = BuiltinDeps::default();
        let registry = Arc::new(builtin_registry(&deps));
        let approvals = ApprovalManager::new(store.clone());
        // MCP servers connect in the background; a server's tools reach
        // the model once `activate_tools` grants it.
        let mcp = McpManager::new(Some(data_dir.join("mcp-logs")), Some(store.clone()));
        if let Err(e) = mcp.load(&store).await {
            tracing::warn!(error = %e, "cannot load the MCP servers");
        }
        let mut dirs = agent_dirs(data_dir).0.into_iter();
        let first = dirs.next().unwrap_or_else(|| user_agents_dir(data_dir));
        let mut handler =
            session_handler(&store, registry, &mcp, first).with_gate(Arc::new(approvals.clone()));
        for dir in dirs {
            handler = handler.with_agents_dir(dir);
        }
        // Cron jobs scheduled from any command use the person's zone.
        if let Err(e) = handler.load_time_zone().await {
            tracing::warn!(error = %e, "cannot read the time zone setting");
        }
        // Elicitations become questions of the session (asked on the
        // terminal or answered with `skald answer`); roots are its folder.
        let here = std::env::current_dir().unwrap_or_else(|_| data_dir.to_path_buf());
        mcp.set_requests(handler.mcp_requests(here));
        Ok(Self {
            handler,
            approvals,
            deps,
            store,
            mcp,
        })
    }

    pub async fn close(self) {
        self.mcp.shutdown();
        self.store.close().await;
    }
}

/// The session driver over `store` with the CLI's tools: the registry,
/// MCP (`mcp`'s servers), `activate_tools` and the MCP config tools.
pub(crate) fn session_handler(
    store: &Store,
    registry: Arc<ToolRegistry>,
    mcp: &McpManager,
    agents_dir: PathBuf,
) -> ChatSessionHandler {
    let resolver = Arc::new(DefaultProviderResolver::new(store.clone()));
    ChatSessionHandler::new(store.clone(), registry, resolver, agents_dir)
        .with_tool_source(Arc::new(McpSource::new(mcp.clone())))
        .with_interface_tools(Arc::new(ActivateTools::new(Arc::new(mcp.clone()))))
        .with_interface_tools(config_tools_factory(mcp, store))
        .with_items(skald_mcp::items(mcp.clone(), store.clone()))
}

/// Bad input is 2; a session busy with another turn (here or in another
/// process) or a store that cannot be written (full, read-only, locked) is
/// not the caller's mistake, so 1.
pub(crate) fn start_error(e: &SessionError) -> ExitCode {
    match e {
        SessionError::Busy(_) | SessionError::BusyElsewhere(_) | SessionError::Store(_) => {
            fail(1, &e.to_string())
        }
        _ => fail(2, &e.to_string()),
    }
}

/// Stops the session's turn on Ctrl-C or SIGTERM, as the app's Stop button does.
fn stop_on_ctrl_c(handler: &ChatSessionHandler, session_id: &str) -> tokio::task::JoinHandle<()> {
    let (h, id) = (handler.clone(), session_id.to_string());
    let mut stop = crate::stop_signals();
    tokio::spawn(async move {
        while stop.recv().await.is_some() {
            // The turn and the background tasks it started here.
            let mut stopped = h.stop(&id);
            for (_, task_session) in h.runs_here() {
                stopped |= h.stop(&task_session);
            }
            if stopped {
                eprintln!("skald: stopping…");
            }
        }
    })
}

pub struct ChatArgs {
    pub prompt: String,
    pub session: Option<String>,
    pub model: Option<String>,
    pub workdir: Option<PathBuf>,
    pub approve: ApproveMode,
}

pub async fn chat(data_dir: &Path, args: ChatArgs) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let code = chat_on(&host, args).await;
    close_after_turn(host, code).await
}

/// Closes the host after a turn; a turn that asked for a restart exits
/// with [`EXIT_RESTART`] instead of success.
pub(crate) async fn close_after_turn(host: Host, code: ExitCode) -> ExitCode {
    let restart = host.deps.restart.is_requested();
    host.close().await;
    if code == ExitCode::SUCCESS && restart {
        eprintln!(
            "skald: restart requested; exiting with {EXIT_RESTART} so a supervisor can restart"
        );
        return ExitCode::from(EXIT_RESTART);
    }
    code
}

async fn chat_on(host: &Host, args: ChatArgs) -> ExitCode {
    let h = &host.handler;
    if args.prompt.trim().is_empty() {
        return fail(2, "the prompt is empty; say what you want done");
    }
    let created = args.session.is_none();
    let session_id = match args.session {
        Some(id) => {
            if let Err(e) = h.open_session(&id).await {
                return start_error(&e);
            }
            if let Some(dir) = &args.workdir
                && let Err(e) = h.set_working_dir(&id, dir).await
            {
                return start_error(&e);
            }
            id
        }
        None => {
            let dir = match args.workdir.map_or_else(std::env::current_dir, Ok) {
                Ok(d) => d,
                Err(e) => return fail(2, &format!("cannot determine the working directory: {e}")),
            };
            match h
                .create_session(SessionParams {
                    working_dir: Some(dir),
                    ..SessionParams::default()
                })
                .await
            {
                Ok(s) => s.id,
                Err(e) => return start_error(&e),
            }
        }
    };
    eprintln!("skald: session {session_id}");
    let options = TurnOptions { model: args.model };
    match run_turn(
        host,
        &session_id,
        Action::Send(args.prompt),
        options,
        args.approve,
    )
    .await
    {
        Ok(outcome) => outcome_code(&outcome),
        Err(e) => {
            // A turn that could not even start leaves no empty session behind.
            if created {
                let _ = h.delete_session(&session_id).await;
            }
            start_error(&e)
        }
    }
}

/// What a turn starts from.
pub(crate) enum Action {
    /// The person's new message.
    Send(String),
    /// The failed last turn again.
    Retry,
    /// A new answer to the last message.
    Regenerate,
    /// The last message replaced by this one, then answered.
    Edit(String),
}

/// Runs one turn of `session_id`, printing it as `skald chat` does: the
/// answer on stdout, tool events on stderr, approvals answered per
/// `approve`, Ctrl-C stopping it, background tasks it starts followed to
/// their end, and the model that answered (as the app shows it on each
/// answer).
pub(crate) async fn run_turn(
    host: &Host,
    session_id: &str,
    action: Action,
    options: TurnOptions,
    approve: ApproveMode,
) -> Result<TurnOutcome, SessionError> {
    let h = &host.handler;
    let ctrl_c = stop_on_ctrl_c(h, session_id);
    let questions = crate::companion::ask_on_terminal(h, session_id);
    let sink = ApprovingSink::new(approve, host.approvals.clone());
    // Background tasks this turn starts run in this process: their
    // approvals are answered as this turn's are, and once the turn is over
    // their endings — and the turn each resumes here — are shown as they
    // come.
    let following = std::sync::atomic::AtomicBool::new(false);
    let mut bus = h.subscribe_all();
    let forward = async {
        loop {
            match bus.recv().await {
                Ok(event) => {
                    let ours = skald_session::session_of(&event) == session_id;
                    let approval = matches!(event, SessionEvent::ApprovalRequired { .. });
                    if (ours && following.load(std::sync::atomic::Ordering::SeqCst))
                        || (!ours && approval)
                    {
                        skald_session::EventSink::emit(&sink, event);
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    std::future::pending::<()>().await;
                }
            }
        }
    };
    // The answer's model goes just before its usage line, the turn's last.
    sink.print.hold_next_usage();
    let work = async {
        let result = match action {
            Action::Send(prompt) => {
                h.send_message_with(session_id, &prompt, options, &sink)
                    .await
            }
            Action::Retry => h.retry_turn_with(session_id, options, &sink).await,
            Action::Regenerate => h.regenerate_with(session_id, options, &sink).await,
            Action::Edit(text) => {
                h.edit_last_message_with(session_id, &text, options, &sink)
                    .await
            }
        };
        sink.print.end_line();
        if result.is_ok() {
            print_answering_model(h, session_id).await;
        }
        sink.print.release_usage();
        if h.tasks_in_flight() > 0 {
            following.store(true, std::sync::atomic::Ordering::SeqCst);
            sink.print.end_line();
            eprintln!(
                "skald: waiting for {} background task(s); Ctrl-C stops them",
                h.runs_here().len()
            );
            h.wait_tasks_idle().await;
        }
        result
    };
    let result = tokio::select! {
        r = work => r,
        () = forward => Err(SessionError::InvalidInput("the event bus closed".into())),
    };
    ctrl_c.abort();
    questions.abort();
    sink.print.end_line();
    result
}

/// `model: NAME` on stderr when the session's last message is an answer
/// whose model is stored (a turn that failed before answering prints none;
/// a cut or failed answer still names the model that wrote it).
async fn print_answering_model(h: &ChatSessionHandler, session_id: &str) {
    match h.history(session_id).await {
        Ok(history) => {
            if let Some(model) = history
                .last()
                .filter(|m| m.role == skald_protocol::ChatRole::Assistant)
                .and_then(|m| m.model.as_deref())
            {
                eprintln!("model: {model}");
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot read which model answered"),
    }
}

pub(crate) fn outcome_code(outcome: &TurnOutcome) -> ExitCode {
    match outcome {
        TurnOutcome::Completed => ExitCode::SUCCESS,
        TurnOutcome::Cancelled => fail(130, "stopped"),
        TurnOutcome::RoundLimit { rounds } => fail(
            3,
            &format!(
                "stopped after {rounds} rounds (the round limit); send another message to continue"
            ),
        ),
        TurnOutcome::Failed { message } => fail(1, message),
    }
}

/// `skald resume`: finishes what a crash interrupted, in every session.
pub async fn resume(data_dir: &Path, model: Option<String>, approve: ApproveMode) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    // A re-run call may need approval again; answered here, as `chat` does,
    // or it would wait for an answer no other process can give.
    let sink = ApprovingSink::new(approve, host.approvals.clone());
    let result = host.handler.resume_all(model.as_deref(), &sink).await;
    // Background runs a crash ended are reported interrupted (never re-run)
    // and delivered to their conversations before we exit.
    match host.handler.recover_tasks().await {
        Ok(0) => {}
        Ok(n) => eprintln!("skald: {n} background task run(s) interrupted by a crash, reported"),
        Err(e) => eprintln!("skald: recovering background tasks failed: {e}"),
    }
    host.handler.wait_tasks_idle().await;
    sink.print.end_line();
    host.close().await;
    match result {
        Ok(done) if done.is_empty() => {
            eprintln!("skald: nothing to resume");
            ExitCode::SUCCESS
        }
        Ok(done) => {
            for r in &done {
                let how = match &r.outcome {
                    None => "tool calls settled".to_string(),
                    Some(TurnOutcome::Completed) => "answered".to_string(),
                    Some(TurnOutcome::Cancelled) => "stopped".to_string(),
                    Some(TurnOutcome::RoundLimit { rounds }) => format!("round limit ({rounds})"),
                    Some(TurnOutcome::Failed { message }) => format!("failed: {message}"),
                };
                eprintln!(
                    "skald: session {}: re-ran {}, interrupted {}, not started {}; {how}",
                    r.session_id,
                    r.report.rerun.len(),
                    r.report.interrupted.len(),
                    r.report.not_started.len()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, &e.to_string()),
    }
}

/// `skald sessions`: one line per session, most recent first.
pub async fn sessions(data_dir: &Path, json: bool) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let list = host.handler.list_sessions().await;
    host.close().await;
    let list = match list {
        Ok(l) => l,
        Err(e) => return fail(1, &e.to_string()),
    };
    if json {
        match serde_json::to_string_pretty(&list) {
            Ok(s) => print_out(&s),
            Err(e) => return fail(1, &format!("cannot serialise the sessions: {e}")),
        }
        return ExitCode::SUCCESS;
    }
    if list.is_empty() {
        eprintln!("skald: no sessions yet (start one with `skald chat \"…\"`)");
        return ExitCode::SUCCESS;
    }
    let lines: Vec<String> = list
        .iter()
        .map(|s| {
            let when = chrono::DateTime::from_timestamp_millis(s.updated_at)
                .map(|t| {
                    t.with_timezone(&chrono::Local)
                        .format("%Y-%m-%d %H:%M")
                        .to_string()
                })
                .unwrap_or_default();
            let title = if s.title.is_empty() {
                "(untitled)"
            } else {
                &s.title
            };
            format!("{}  {when}  {}  {title}", s.id, s.agent_id)
        })
        .collect();
    print_out(&lines.join("\n"));
    ExitCode::SUCCESS
}

/// The MCP management tools (`register_mcp`, `delete_mcp`) for every frame.
fn config_tools_factory(mcp: &McpManager, store: &Store) -> Arc<dyn InterfaceTools> {
    let (mcp, store) = (mcp.clone(), store.clone());
    Arc::new(move |_: &FrameContext| skald_mcp::config_tools(mcp.clone(), store.clone()))
}
