//! Shared scaffolding of the sub-agent and task tests: a scripted provider
//! per agent (routed by the first line of the system prompt, so what every
//! agent receives is asserted and concurrent agents never race for one
//! script), an agents directory, and the waits those tests share (a 60 s
//! shell to stop, background work to settle).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::json;
use skald_llm::{
    ChatRequest, EventStream, FakeProvider, LlmError, LlmProvider, Message, ScriptedTurn,
    StopReason,
};
use skald_session::{ChatSessionHandler, FixedProvider, HandlerConfig};
use skald_store::Store;
use skald_tools::exec::live_group_members;
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::{new_session, tool_content, wait_until};

/// Routes each request to the agent whose prompt it carries, and counts how
/// many streams are open at once.
struct Router {
    agents: BTreeMap<String, Arc<FakeProvider>>,
    open: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

struct Open(Arc<AtomicUsize>);
impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl LlmProvider for Router {
    fn name(&self) -> &str {
        "router"
    }
    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a> {
        let first = req
            .system
            .as_deref()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("");
        let id = first
            .strip_prefix("Agent ")
            .unwrap_or("")
            .trim_end_matches('.');
        let Some(fake) = self.agents.get(id) else {
            return Box::pin(futures_util::stream::once(async {
                Err(LlmError::ScriptExhausted)
            }));
        };
        let now = self.open.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        let guard = Open(self.open.clone());
        Box::pin(fake.stream(req).map(move |e| {
            let _keep = &guard;
            e
        }))
    }
}

pub(crate) struct Env {
    pub _dir: tempfile::TempDir,
    pub store: Store,
    pub workdir: std::path::PathBuf,
    pub fakes: BTreeMap<String, Arc<FakeProvider>>,
    pub peak: Arc<AtomicUsize>,
    pub provider: Arc<dyn LlmProvider>,
    pub agents_dir: std::path::PathBuf,
    pub handler: ChatSessionHandler,
}

/// `agents`: `(id, type)`; the chat agent `main` is always there. Each
/// agent's prompt starts `Agent <id>.` and lists the task agents.
pub(crate) async fn env(agents: &[(&str, &str)], scripts: Vec<(&str, Vec<ScriptedTurn>)>) -> Env {
    env_with(agents, scripts, HandlerConfig::default(), |h| h).await
}

pub(crate) async fn env_with(
    agents: &[(&str, &str)],
    scripts: Vec<(&str, Vec<ScriptedTurn>)>,
    config: HandlerConfig,
    wire: impl FnOnce(ChatSessionHandler) -> ChatSessionHandler,
) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let agents_dir = root.join("agents");
    let mut all = vec![("main", "chat")];
    all.extend_from_slice(agents);
    for (id, kind) in all {
        let d = agents_dir.join(id);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("AGENT.md"),
            format!("Agent {id}.\nTask agents:\n<!-- AGENTS_LIST -->\n"),
        )
        .unwrap();
        std::fs::write(
            d.join("meta.json"),
            json!({"name": format!("The {id}"), "description": format!("{id} work"), "type": kind})
                .to_string(),
        )
        .unwrap();
    }
    let workdir = root.join("work");
    std::fs::create_dir_all(&workdir).unwrap();
    let store = Store::open(&root.join("data")).await.unwrap();
    let fakes: BTreeMap<String, Arc<FakeProvider>> = scripts
        .into_iter()
        .map(|(id, turns)| (id.to_string(), Arc::new(FakeProvider::new(turns))))
        .collect();
    let peak = Arc::new(AtomicUsize::new(0));
    let router: Arc<dyn LlmProvider> = Arc::new(Router {
        agents: fakes.clone(),
        open: Arc::new(AtomicUsize::new(0)),
        peak: peak.clone(),
    });
    let handler = wire(
        ChatSessionHandler::new(
            store.clone(),
            Arc::new(builtin_registry(&BuiltinDeps::default())),
            Arc::new(FixedProvider::new(router.clone(), "test-model")),
            agents_dir.clone(),
        )
        .with_config(config),
    );
    Env {
        _dir: dir,
        store,
        workdir,
        fakes,
        peak,
        provider: router,
        agents_dir,
        handler,
    }
}

impl Env {
    pub(crate) async fn session(&self) -> String {
        new_session(&self.handler, &self.workdir).await
    }

    pub(crate) fn requests(&self, agent: &str) -> Vec<ChatRequest> {
        self.fakes[agent].requests()
    }
}

pub(crate) fn task(id: &str, agent: &str, prompt: &str) -> (String, String) {
    (
        id.to_string(),
        json!({"mode": "sync", "title": format!("Task {id}"), "prompt": prompt, "agent_id": agent})
            .to_string(),
    )
}

/// One assistant message calling every task.
pub(crate) fn delegate(tasks: &[(String, String)]) -> ScriptedTurn {
    let mut t = ScriptedTurn::new();
    for (i, (id, args)) in tasks.iter().enumerate() {
        t = t.tool_call(i, id.clone(), "execute_task", args.clone());
    }
    t.done(StopReason::ToolUse)
}

pub(crate) fn answer(text: &str) -> ScriptedTurn {
    ScriptedTurn::new().text(text).done(StopReason::EndTurn)
}

pub(crate) fn tool_names(req: &ChatRequest) -> Vec<String> {
    req.tools.iter().map(|t| t.name.clone()).collect()
}

pub(crate) fn user_text(m: &Message) -> &str {
    match m {
        Message::User { content } => content,
        other => panic!("not a user message: {other:?}"),
    }
}

/// The tool results of a request's last round, in order.
pub(crate) fn results(req: &ChatRequest) -> Vec<String> {
    req.messages
        .iter()
        .rev()
        .take_while(|m| matches!(m, Message::Tool { .. }))
        .map(|m| tool_content(m).to_string())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect()
}

/// A command that writes its process group to `pgid.txt` and sleeps 60 s
/// in two processes (one in the background): what a stop must end.
pub(crate) fn sixty_second_shell(id: &str) -> ScriptedTurn {
    ScriptedTurn::new()
        .tool_call(
            0,
            id,
            "execute_cmd",
            r#"{"command": "echo $$ > pgid.txt; sleep 60 & sleep 60"}"#,
        )
        .done(StopReason::ToolUse)
}

/// Waits until [`sixty_second_shell`] runs in `workdir`; its process group.
pub(crate) async fn shell_started(workdir: &std::path::Path) -> i32 {
    let pgid_file = workdir.join("pgid.txt");
    let read = || {
        std::fs::read_to_string(&pgid_file)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
    };
    wait_until("the 60 s shell to start", || {
        read().is_some_and(|g| live_group_members(g).len() >= 2)
    })
    .await;
    read().unwrap()
}

/// Asserts every process of group `pgid` is gone within `limit`.
pub(crate) async fn shell_gone(pgid: i32, limit: Duration) {
    let start = Instant::now();
    while !live_group_members(pgid).is_empty() {
        assert!(
            start.elapsed() < limit,
            "left: {:?}",
            live_group_members(pgid)
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits until no run or delivery of background work is in flight.
pub(crate) async fn tasks_idle(e: &Env) {
    tokio::time::timeout(Duration::from_secs(20), e.handler.wait_tasks_idle())
        .await
        .expect("tasks still running after 20 s");
}
