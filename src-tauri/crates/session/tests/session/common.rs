//! Shared setup: a real SQLite file in a temp dir, the built-in registry, an
//! agent directory, and a scripted FakeProvider behind the handler.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use skald_llm::{ChatRequest, FakeProvider, LlmProvider, Message, ScriptedTurn};
use skald_protocol::SessionEvent;
use skald_session::{
    ChatSessionHandler, FixedProvider, HandlerConfig, RecordingSink, SessionParams,
};
use skald_store::{MessageRow, Store, ToolCallRow};
use skald_tools::{BuiltinDeps, ToolRegistry, builtin_registry};

pub const AGENT_MD: &str = "You are a test agent.\n<!-- INCLUDE: rules.md -->\n";
pub const RULES_MD: &str = "Answer briefly.\n";

pub struct Env {
    pub dir: tempfile::TempDir,
    pub store: Store,
    pub workdir: PathBuf,
    pub fake: Arc<FakeProvider>,
    pub handler: ChatSessionHandler,
}

/// An environment with the built-in tools and the default config.
pub async fn env(turns: impl IntoIterator<Item = ScriptedTurn>) -> Env {
    env_with(
        builtin_registry(&BuiltinDeps::default()),
        turns,
        HandlerConfig::default(),
    )
    .await
}

pub async fn env_with(
    registry: ToolRegistry,
    turns: impl IntoIterator<Item = ScriptedTurn>,
    config: HandlerConfig,
) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let agents = root.join("agents");
    std::fs::create_dir_all(agents.join("main")).unwrap();
    std::fs::write(agents.join("main/AGENT.md"), AGENT_MD).unwrap();
    std::fs::write(agents.join("main/rules.md"), RULES_MD).unwrap();
    let workdir = root.join("work");
    std::fs::create_dir_all(&workdir).unwrap();
    let store = Store::open(&root.join("data")).await.unwrap();
    let fake = Arc::new(FakeProvider::new(turns));
    let provider: Arc<dyn LlmProvider> = fake.clone();
    let handler = ChatSessionHandler::new(
        store.clone(),
        Arc::new(registry),
        Arc::new(FixedProvider::new(provider, "test-model")),
        agents,
    )
    .with_config(config)
    .with_time_zone("UTC");
    Env {
        dir,
        store,
        workdir,
        fake,
        handler,
    }
}

impl Env {
    pub async fn session(&self) -> String {
        new_session(&self.handler, &self.workdir).await
    }

    pub async fn tool_rows(&self, sid: &str) -> Vec<ToolCallRow> {
        self.store.tool_calls().list_for_session(sid).await.unwrap()
    }

    pub async fn history_rows(&self, sid: &str) -> Vec<MessageRow> {
        self.store.history().list_for_session(sid).await.unwrap()
    }

    pub fn request(&self, n: usize) -> ChatRequest {
        let r = self.fake.requests();
        assert!(r.len() > n, "only {} requests were made", r.len());
        r[n].clone()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.workdir.join(rel)
    }
}

/// A new session of `handler` working in `workdir`.
pub async fn new_session(handler: &ChatSessionHandler, workdir: &Path) -> String {
    handler
        .create_session(SessionParams {
            working_dir: Some(workdir.to_path_buf()),
            ..SessionParams::default()
        })
        .await
        .unwrap()
        .id
}

/// `(role, content, tool_call_id)` of each history row, for exact asserts.
pub fn shape(rows: &[MessageRow]) -> Vec<(String, String, Option<String>)> {
    rows.iter()
        .map(|r| {
            (
                r.role.as_str().to_string(),
                r.content.clone(),
                r.tool_call_id.clone(),
            )
        })
        .collect()
}

/// `(id, name, status, result)` of each tool row.
pub fn tool_shape(rows: &[ToolCallRow]) -> Vec<(String, String, String, Option<String>)> {
    rows.iter()
        .map(|r| {
            (
                r.id.clone(),
                r.name.clone(),
                r.status.as_str().to_string(),
                r.result.clone(),
            )
        })
        .collect()
}

/// The last message of a request.
pub fn last_message(req: &ChatRequest) -> &Message {
    req.messages.last().unwrap()
}

/// The content of a tool-result message.
pub fn tool_content(m: &Message) -> &str {
    match m {
        Message::Tool { content, .. } => content,
        other => panic!("not a tool message: {other:?}"),
    }
}

/// Waits until `f` holds (polling), failing after 10 s.
pub async fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

pub fn has_event(sink: &RecordingSink, pred: impl Fn(&SessionEvent) -> bool) -> bool {
    sink.events().iter().any(pred)
}

/// The events as JSON with session ids and the temp dir redacted.
pub fn redacted_events(events: &[SessionEvent], root: &Path) -> Value {
    let text = serde_json::to_string(events).unwrap();
    let root = root.to_string_lossy();
    let text = text.replace(root.as_ref(), "[ROOT]");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    for e in v.as_array_mut().unwrap() {
        if let Some(s) = e.get_mut("sessionId") {
            *s = Value::String("[session]".into());
        }
    }
    v
}
