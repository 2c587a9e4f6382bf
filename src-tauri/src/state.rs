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

    /// Restarts the app once the `restart` tool has asked for it.
    pub fn watch_restart(&self, app: tauri::AppHandle) {
        let signal = self.deps.restart.clone();
        tauri::async_runtime::spawn(async move {
            signal.wait().await;
            tracing::info!("restart requested by the restart tool");
            app.restart();
        });
    }
}
