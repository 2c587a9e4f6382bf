//! The file viewer's commands: every file is opened through the read
//! tools' policy (`secrets/` refused) and handed to `skald-viewer` as the
//! open handle that was judged; LaTeX documents whose inputs touch
//! `secrets/` are refused after the compile.

use std::collections::HashMap;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use skald_protocol::{
    ErrorCode, IpcError, LatexView, PdfFindHit, PdfInfo, PdfPageSize, TexErrorView, ViewInfo,
    ViewKind, ViewerChanged,
};
use skald_viewer::{FileKind, FileWatcher, LatexCompiler, LatexConfig, LatexError, PdfDoc};
use tauri::{AppHandle, Emitter, State, ipc::Response};

const MAX_VIEW_BYTES: u64 = 2 * 1024 * 1024;
/// Images and SVGs travel as raw bytes; beyond this the viewer says so.
const MAX_IMAGE_BYTES: u64 = 64 * 1024 * 1024;

/// Managed state: the LaTeX compiler (its cache is on disk) and the
/// watchers of open views.
pub struct ViewerState {
    latex: Arc<LatexCompiler>,
    watchers: Mutex<HashMap<u32, FileWatcher>>,
    next: AtomicU32,
}

impl Default for ViewerState {
    fn default() -> Self {
        Self {
            latex: Arc::new(LatexCompiler::new(LatexConfig::new(
                skald_viewer::default_build_root(),
            ))),
            watchers: Mutex::new(HashMap::new()),
            next: AtomicU32::new(1),
        }
    }
}

fn denied(m: impl Into<String>) -> IpcError {
    IpcError::new(ErrorCode::InvalidInput, m)
}

fn internal(e: impl std::fmt::Display) -> IpcError {
    IpcError::new(ErrorCode::Internal, format!("the viewer stopped: {e}"))
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, IpcError> + Send + 'static,
) -> Result<T, IpcError> {
    tokio::task::spawn_blocking(f).await.map_err(internal)?
}

/// The judged, open file: canonical path, handle, size.
fn open(path: &str) -> Result<(PathBuf, std::fs::File, u64), IpcError> {
    let resolved = skald_tools::fs::resolve(path);
    skald_tools::fs::open_for_read(&resolved).map_err(|e| denied(e.to_string()))
}

#[tauri::command]
pub async fn view_file(path: String) -> Result<String, IpcError> {
    blocking(move || read_for_view(&path)).await
}

/// Reads through the handle the read tools' policy judged, so a path
/// swapped for a link into `secrets/` after the check is never shown.
fn read_for_view(path: &str) -> Result<String, IpcError> {
    let (_, file, len) = open(path)?;
    if len > MAX_VIEW_BYTES {
        return Err(denied(format!(
            "{path} is {len} bytes; the viewer shows files up to {MAX_VIEW_BYTES} bytes"
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_VIEW_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| IpcError::new(ErrorCode::NotFound, format!("{path}: {e}")))?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(denied(format!("{path} is a binary file")));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn view_kind(kind: FileKind) -> ViewKind {
    match kind {
        FileKind::Markdown => ViewKind::Markdown,
        FileKind::Code { language } => ViewKind::Code {
            language: language.into(),
        },
        FileKind::Text => ViewKind::Text,
        FileKind::Image { mime } => ViewKind::Image { mime: mime.into() },
        FileKind::Svg => ViewKind::Svg,
        FileKind::Pdf => ViewKind::Pdf,
        FileKind::Latex => ViewKind::Latex,
        FileKind::Html => ViewKind::Html,
        FileKind::Binary => ViewKind::Binary,
    }
}

/// What the file is, so the UI picks its view.
#[tauri::command]
pub async fn viewer_open(path: String) -> Result<ViewInfo, IpcError> {
    blocking(move || {
        let (canonical, file, size) = open(&path)?;
        let mut head = Vec::new();
        file.take(skald_viewer::kind::SNIFF_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(|e| denied(format!("{path}: {e}")))?;
        Ok(ViewInfo {
            kind: view_kind(skald_viewer::detect(&canonical, &head)),
            path: canonical.display().to_string(),
            size,
        })
    })
    .await
}

/// An image's (or SVG's) bytes, raw over IPC.
#[tauri::command]
pub async fn viewer_bytes(path: String) -> Result<Response, IpcError> {
    blocking(move || {
        let (_, file, len) = open(&path)?;
        if len > MAX_IMAGE_BYTES {
            return Err(denied(format!(
                "{path} is {len} bytes; the viewer shows images up to {MAX_IMAGE_BYTES} bytes"
            )));
        }
        let mut bytes = Vec::new();
        file.take(MAX_IMAGE_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| denied(format!("{path}: {e}")))?;
        Ok(Response::new(bytes))
    })
    .await
}

fn pdf(path: &str) -> Result<PdfDoc, IpcError> {
    let (_, mut file, _) = open(path)?;
    file.rewind().map_err(internal)?;
    PdfDoc::from_reader(file).map_err(|e| denied(e.to_string()))
}

#[tauri::command]
pub async fn pdf_info(path: String) -> Result<PdfInfo, IpcError> {
    blocking(move || {
        let doc = pdf(&path)?;
        Ok(PdfInfo {
            pages: doc
                .page_sizes()
                .into_iter()
                .map(|s| PdfPageSize {
                    width: s.width,
                    height: s.height,
                })
                .collect(),
        })
    })
    .await
}

/// A page (0-based) as PNG, `width` device pixels wide.
#[tauri::command]
pub async fn pdf_page(path: String, page: u32, width: u32) -> Result<Response, IpcError> {
    blocking(move || {
        let png = pdf(&path)?
            .render_png(page as usize, width)
            .map_err(|e| denied(e.to_string()))?;
        Ok(Response::new(png))
    })
    .await
}

#[tauri::command]
pub async fn pdf_find(path: String, query: String) -> Result<Vec<PdfFindHit>, IpcError> {
    blocking(move || {
        let hits = pdf(&path)?
            .find(&query)
            .map_err(|e| denied(e.to_string()))?;
        Ok(hits
            .into_iter()
            .map(|h| PdfFindHit {
                page: h.page as u32,
                count: h.count as u32,
                snippet: h.snippet,
            })
            .collect())
    })
    .await
}

fn shown(p: &Path) -> String {
    p.display().to_string()
}

fn any_secret(inputs: &[PathBuf]) -> bool {
    inputs.iter().any(|p| {
        let canonical = p.canonicalize().unwrap_or_else(|_| p.clone());
        skald_tools::fs::is_secret_path(&canonical)
    })
}

/// Compiles (or takes from the cache) a `.tex` document.
#[tauri::command]
pub async fn latex_compile(
    state: State<'_, ViewerState>,
    path: String,
) -> Result<LatexView, IpcError> {
    // The source itself goes through the policy like any read.
    let (canonical, _, _) = open(&path)?;
    let latex = state.latex.clone();
    let result = tokio::task::spawn_blocking(move || latex.compile(&canonical))
        .await
        .map_err(internal)?;
    let refuse =
        || denied("this document reads files under secrets/, which the viewer does not show");
    Ok(match result {
        Ok(out) => {
            if any_secret(&out.inputs) {
                let _ = std::fs::remove_file(&out.pdf);
                return Err(refuse());
            }
            LatexView {
                pdf: Some(shown(&out.pdf)),
                from_cache: out.from_cache,
                millis: out.millis,
                inputs: out.inputs.iter().map(|p| shown(p)).collect(),
                errors: Vec::new(),
                failure: None,
            }
        }
        Err(e) => {
            if any_secret(e.inputs()) {
                return Err(refuse());
            }
            let errors = match &e {
                LatexError::Failed { errors, .. } => errors
                    .iter()
                    .map(|m| TexErrorView {
                        file: m.file.as_deref().map(shown),
                        line: m.line,
                        message: m.message.clone(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            LatexView {
                pdf: e.last_good().map(shown),
                from_cache: false,
                millis: 0,
                inputs: e.inputs().iter().map(|p| shown(p)).collect(),
                failure: (!matches!(e, LatexError::Failed { .. })).then(|| e.to_string()),
                errors,
            }
        }
    })
}

/// Starts (no `watch`) or updates a watch on `paths`; changes arrive as
/// `viewer-changed` events naming the watch.
#[tauri::command]
pub fn viewer_watch(
    app: AppHandle,
    state: State<'_, ViewerState>,
    paths: Vec<String>,
    watch: Option<u32>,
) -> Result<u32, IpcError> {
    let paths: Vec<PathBuf> = paths.iter().map(|p| skald_tools::fs::resolve(p)).collect();
    if any_secret(&paths) {
        return Err(denied(skald_tools::fs::SECRETS_DENIED));
    }
    let mut watchers = state.watchers.lock().unwrap_or_else(|e| e.into_inner());
    let id = watch.unwrap_or_else(|| state.next.fetch_add(1, Ordering::Relaxed));
    let w = match watchers.entry(id) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let w = FileWatcher::new(Duration::from_millis(150), move |changes| {
                for c in changes {
                    let _ = app.emit(
                        "viewer-changed",
                        ViewerChanged {
                            watch: id,
                            path: shown(&c.path),
                            exists: c.exists,
                        },
                    );
                }
            })
            .map_err(internal)?;
            e.insert(w)
        }
    };
    w.set_files(&paths).map_err(internal)?;
    Ok(id)
}

#[tauri::command]
pub fn viewer_unwatch(state: State<'_, ViewerState>, watch: u32) {
    state
        .watchers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&watch);
}
