//! Files that reach the app from outside the window: `skald-app FILE` (the
//! first launch, or a second launch handing them to the running instance),
//! a drop onto the window, and the native Open dialog (Ctrl+O). Each ends
//! in the viewer; the viewer's commands still judge every path by the read
//! policy, so nothing here decides what may be shown.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use skald_protocol::{ErrorCode, IpcError};
use tauri::{AppHandle, Emitter, Manager};
use tauri_plugin_dialog::DialogExt;

/// The UI's event for files to open (payload: absolute paths).
pub const EVENT: &str = "open-files";

/// Files named on the command line of the first launch, kept until the UI
/// asks (it may not be listening yet when the app starts).
#[derive(Default)]
pub struct LaunchFiles(Mutex<Vec<String>>);

impl LaunchFiles {
    pub fn new(files: Vec<String>) -> Self {
        Self(Mutex::new(files))
    }
}

/// The file arguments of a command line: everything after the program that
/// is not an option, made absolute against the directory it was run in.
pub fn paths_from_args(argv: &[String], cwd: &Path) -> Vec<String> {
    let mut only_paths = false;
    argv.iter()
        .skip(1)
        .filter(|a| {
            if only_paths {
                return true;
            }
            if a.as_str() == "--" {
                only_paths = true;
                return false;
            }
            !a.starts_with('-') && !a.is_empty()
        })
        .map(|a| {
            // A desktop entry's %U hands URIs.
            let p = a.strip_prefix("file://").unwrap_or(a);
            let p = Path::new(p);
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                cwd.join(p)
            }
        })
        .map(|p: PathBuf| p.display().to_string())
        .collect()
}

/// Hands files to the running window: shown, focused, told to open them.
pub fn deliver(app: &AppHandle, files: Vec<String>) {
    if files.is_empty() {
        return;
    }
    crate::show_main_window(app);
    if let Err(e) = app.emit(EVENT, files) {
        tracing::warn!(error = %e, "could not hand files to the window");
    }
}

/// The files of the first launch, once (later calls get none).
#[tauri::command]
pub fn take_launch_files(state: tauri::State<'_, LaunchFiles>) -> Vec<String> {
    state
        .0
        .lock()
        .map(|mut g| std::mem::take(&mut *g))
        .unwrap_or_default()
}

/// The native Open dialog (the webview has no dialog permission of its
/// own). `None` when the person cancels.
#[tauri::command]
pub async fn pick_file(app: AppHandle) -> Result<Option<String>, IpcError> {
    let mut dialog = app.dialog().file().set_title("Open in Skald");
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.set_parent(&window);
    }
    let picked = tokio::task::spawn_blocking(move || dialog.blocking_pick_file())
        .await
        .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(picked
        .and_then(|p| p.into_path().ok())
        .map(|p| p.display().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn file_arguments_become_absolute_and_options_are_skipped() {
        let cwd = Path::new("/home/p/work");
        assert_eq!(
            paths_from_args(
                &args(&[
                    "skald-app",
                    "notes.md",
                    "--verbose",
                    "/tmp/a.pdf",
                    "file:///x/y.tex"
                ]),
                cwd
            ),
            vec!["/home/p/work/notes.md", "/tmp/a.pdf", "/x/y.tex"]
        );
    }

    #[test]
    fn after_a_double_dash_everything_is_a_file() {
        assert_eq!(
            paths_from_args(&args(&["skald-app", "--", "-odd.md"]), Path::new("/w")),
            vec!["/w/-odd.md"]
        );
        assert!(paths_from_args(&args(&["skald-app"]), Path::new("/w")).is_empty());
    }
}
