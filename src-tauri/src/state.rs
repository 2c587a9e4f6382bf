//! What the commands share: the catalogue and the store.

use std::path::PathBuf;
use std::sync::Arc;

use skald_store::Store;
use skald_tools::{BuiltinDeps, ToolCatalog, builtin_registry};

pub struct AppState {
    pub catalog: ToolCatalog,
    pub store: Store,
    pub data_dir: PathBuf,
    deps: BuiltinDeps,
}

impl AppState {
    pub async fn load() -> anyhow::Result<Self> {
        let data_dir = skald_store::default_data_dir()?;
        let store = Store::open(&data_dir).await?;
        let deps = BuiltinDeps::default();
        let catalog = ToolCatalog::new(Arc::new(builtin_registry(&deps)));
        Ok(Self {
            catalog,
            store,
            data_dir,
            deps,
        })
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
