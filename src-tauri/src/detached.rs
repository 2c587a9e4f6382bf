//! Viewer tabs detached into windows of their own. Each gets a window
//! labelled `viewer-N` showing the app's own page at the viewer's route;
//! closing it hands the file back to the main window's side panel.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use skald_protocol::{ErrorCode, IpcError};
use tauri::{AppHandle, Emitter, Manager, WebviewUrl, WebviewWindowBuilder};

/// The main window's event for a detached file coming back (payload: path).
pub const RETURNED: &str = "viewer-returned";
const PREFIX: &str = "viewer-";

#[derive(Default)]
pub struct Detached {
    next: AtomicU32,
    paths: Mutex<HashMap<String, String>>,
}

/// Opens `path` in a window of its own; `route` is the viewer's route for
/// it (`#/view?path=…`, built and encoded by the UI).
#[tauri::command]
pub async fn detach_viewer(
    app: AppHandle,
    state: tauri::State<'_, Detached>,
    path: String,
    route: String,
) -> Result<String, IpcError> {
    if !route.starts_with("#/view?") {
        return Err(IpcError::new(
            ErrorCode::InvalidInput,
            "a detached window shows the viewer only",
        ));
    }
    let label = format!("{PREFIX}{}", state.next.fetch_add(1, Ordering::Relaxed) + 1);
    let title = std::path::Path::new(&path)
        .file_name()
        .map(|n| format!("{} — Skald", n.to_string_lossy()))
        .unwrap_or_else(|| "Skald".into());
    let sep = if route.contains('?') { '&' } else { '?' };
    let url = WebviewUrl::App(format!("index.html{route}{sep}detached=1").into());
    let mut builder = WebviewWindowBuilder::new(&app, &label, url);
    // The main window's storage: one web context, one set of preferences.
    if let Some(skald) = app.try_state::<crate::AppState>() {
        builder = builder.data_directory(crate::webview_data_dir(&skald.data_dir));
    }
    builder
        .title(title)
        .inner_size(820.0, 760.0)
        .min_inner_size(420.0, 320.0)
        .build()
        .map_err(|e| IpcError::new(ErrorCode::Internal, format!("no window: {e}")))?;
    if let Ok(mut paths) = state.paths.lock() {
        paths.insert(label.clone(), path);
    }
    Ok(label)
}

/// A detached viewer's window closed: its file goes back to the panel.
pub fn closed(app: &AppHandle, label: &str) {
    if !label.starts_with(PREFIX) {
        return;
    }
    let path = app
        .try_state::<Detached>()
        .and_then(|s| s.paths.lock().ok().and_then(|mut p| p.remove(label)));
    if let Some(path) = path
        && let Some(main) = app.get_webview_window("main")
        && let Err(e) = main.emit(RETURNED, path)
    {
        tracing::warn!(error = %e, "could not return a detached file");
    }
}
