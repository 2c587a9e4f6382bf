//! What the commands share: the catalogue, the store and the session driver.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use skald_mcp::{McpManager, McpSource};
use skald_session::{
    ActivateTools, ApprovalManager, ChatSessionHandler, DefaultProviderResolver, NullSink,
};
use skald_session::{FrameContext, InterfaceTools};
use skald_store::Store;
use skald_tools::{BuiltinDeps, ToolCatalog, builtin_registry};

use crate::resumed::ResumedTurns;

pub struct AppState {
    pub catalog: ToolCatalog,
    pub store: Store,
    pub sessions: ChatSessionHandler,
    pub approvals: ApprovalManager,
    /// Every configured MCP server, kept connected in the background.
    pub mcp: McpManager,
    pub data_dir: PathBuf,
    /// Where new sessions run unless the person picks a folder.
    pub default_workdir: PathBuf,
    /// Crash-resumed turns running now.
    pub resumed: ResumedTurns,
    deps: BuiltinDeps,
}

impl AppState {
    pub async fn load(resource_dir: Option<PathBuf>) -> anyhow::Result<Self> {
        let data_dir = skald_store::default_data_dir()?;
        let store = Store::open(&data_dir).await?;
        let deps = BuiltinDeps::default();
        let registry = Arc::new(builtin_registry(&deps));
        // Seeded rules are what keeps a fresh install safe; a failure here is
        // logged and the gate still asks for everything (no rules → require).
        if let Err(e) = skald_session::bootstrap(&store).await {
            tracing::error!(error = %e, "seeding the default approval rules failed");
        }
        let approvals = ApprovalManager::new(store.clone());
        let providers = Arc::new(DefaultProviderResolver::new(store.clone()));
        // MCP servers connect in the background (first paint never waits);
        // a server's tools reach the model once `activate_tools` grants it.
        let mcp = McpManager::new(Some(data_dir.join("mcp-logs")), Some(store.clone()));
        if let Err(e) = mcp.load(&store).await {
            tracing::warn!(error = %e, "cannot load the MCP servers");
        }
        let sessions = ChatSessionHandler::new(
            store.clone(),
            registry.clone(),
            providers,
            bundled_agents_dir(resource_dir.as_deref(), &data_dir),
        )
        .with_agents_dir(user_agents_dir(&data_dir))
        .with_gate(Arc::new(approvals.clone()))
        .with_tool_source(Arc::new(McpSource::new(mcp.clone())))
        .with_interface_tools(Arc::new(ActivateTools::new(Arc::new(mcp.clone()))))
        .with_interface_tools(config_tools_factory(&mcp, &store))
        .with_items(skald_mcp::items(mcp.clone(), store.clone()));
        // The session's own tools are listed as they declare themselves.
        let catalog = ToolCatalog::new(registry).with_synthetic(sessions.synthetic_tools());
        let default_workdir = default_workdir();
        // Elicitations become questions of the calling session; roots are
        // its working directory.
        mcp.set_requests(sessions.mcp_requests(default_workdir.clone()));
        Ok(Self {
            catalog,
            store,
            sessions,
            approvals,
            mcp,
            data_dir,
            default_workdir,
            resumed: ResumedTurns::default(),
            deps,
        })
    }

    /// Crash recovery at start: repairs history, re-runs what may be re-run,
    /// reports the rest as interrupted, answers turns a crash cut short
    /// (pages follow those: [`ResumedTurns`]).
    pub fn resume_in_background(&self, app: tauri::AppHandle) {
        let sessions = self.sessions.clone();
        let sink = self.resumed.sink(app);
        tauri::async_runtime::spawn(async move {
            match sessions.resume_all(None, sink).await {
                Ok(resumed) if !resumed.is_empty() => {
                    tracing::info!(count = resumed.len(), "resumed interrupted sessions")
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "resuming interrupted sessions failed"),
            }
        });
    }

    /// Delivers what background and system agents `notify` into the Home
    /// conversation (batched, the root turn resumed), for the app's life.
    pub fn deliver_notifications(&self) {
        let sessions = self.sessions.clone();
        tauri::async_runtime::spawn(async move { sessions.run_notifications(NullSink).await });
    }

    /// The one scheduler (if no other process holds its lease) and the
    /// recovery of task runs a crash ended, for the app's life.
    pub fn run_tasks(&self) {
        let sessions = self.sessions.clone();
        tauri::async_runtime::spawn(async move { sessions.run_scheduler().await });
    }

    /// Restarts the app once the `restart` tool has asked for it — after its
    /// `chat_llm_tools` row is marked done, so the restarted app does not see
    /// an interrupted restart and run it again.
    pub fn watch_restart(&self, app: tauri::AppHandle) {
        let signal = self.deps.restart.clone();
        let store = self.store.clone();
        tauri::async_runtime::spawn(async move {
            signal.wait().await;
            tracing::info!(reason = ?signal.reason(), "restart requested by the restart tool");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while std::time::Instant::now() < deadline && restart_row_open(&store).await {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            app.restart();
        });
    }
}

/// The bundled agents: the package's resources, else the source tree (dev
/// builds). The built-in agents are compiled in as well, so a binary whose
/// source tree is gone still has them.
fn bundled_agents_dir(resource_dir: Option<&Path>, data_dir: &Path) -> PathBuf {
    [
        resource_dir.map(|r| r.join("agents")),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("agents")),
    ]
    .into_iter()
    .flatten()
    .find(|d| d.is_dir())
    .unwrap_or_else(|| data_dir.join("agents"))
}

/// The person's agents, adding to or replacing the bundled ones:
/// `SKALD_AGENTS_DIR`, else `<data dir>/agents`.
fn user_agents_dir(data_dir: &Path) -> PathBuf {
    match std::env::var_os("SKALD_AGENTS_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => data_dir.join("agents"),
    }
}

/// The launch directory, unless that is `/` (a desktop launcher), then home.
fn default_workdir() -> PathBuf {
    match std::env::current_dir() {
        Ok(dir) if dir != Path::new("/") => dir,
        _ => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/")),
    }
}

/// Whether a `restart` call is still recorded as running or pending.
async fn restart_row_open(store: &Store) -> bool {
    use skald_store::ToolCallStatus;
    match store
        .tool_calls()
        .list_by_status(&[ToolCallStatus::Running, ToolCallStatus::Pending])
        .await
    {
        Ok(rows) => rows
            .iter()
            .any(|r| r.name == skald_tools::tool_names::RESTART),
        Err(_) => false,
    }
}

/// The MCP management tools (`register_mcp`, `delete_mcp`) for every frame.
fn config_tools_factory(mcp: &McpManager, store: &Store) -> Arc<dyn InterfaceTools> {
    let (mcp, store) = (mcp.clone(), store.clone());
    Arc::new(move |_: &FrameContext| skald_mcp::config_tools(mcp.clone(), store.clone()))
}
