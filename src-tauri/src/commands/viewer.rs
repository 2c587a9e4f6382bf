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
    ErrorCode, IpcError, LatexView, OutlineEntry, PdfFindHit, PdfInfo, PdfPageSize, PdfSpotView,
    PdfTextRun, SourceLineView, TexErrorView, ViewInfo, ViewKind, ViewerChanged,
};
use skald_viewer::{FileKind, FileWatcher, LatexCompiler, LatexConfig, LatexError, PdfDoc};
use tauri::{AppHandle, Emitter, State, ipc::Response};

/// Text the viewer loads whole (its code view renders only the lines on
/// screen, so a 100,000-line file is fine; beyond this it says so).
const MAX_VIEW_BYTES: u64 = 32 * 1024 * 1024;
/// Files outlined for the side list; larger ones get no outline.
const MAX_OUTLINE_BYTES: u64 = 4 * 1024 * 1024;
/// Images, SVGs and the code view's text travel as raw bytes; beyond this
/// the viewer says so.
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

/// The definitions of a code file for the viewer's side list (what
/// `get_ast_outline` sees), read through the same policy as the file.
#[tauri::command]
pub async fn viewer_outline(path: String) -> Result<Vec<OutlineEntry>, IpcError> {
    blocking(move || {
        let (canonical, file, len) = open(&path)?;
        if len > MAX_OUTLINE_BYTES {
            return Ok(Vec::new());
        }
        let mut text = String::new();
        file.take(MAX_OUTLINE_BYTES)
            .read_to_string(&mut text)
            .map_err(|e| denied(format!("{path}: {e}")))?;
        let outline = skald_codeintel::outline_source(&canonical, &text)
            .map_err(|e| denied(format!("{path}: {e}")))?;
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Ok(outline
            .flatten()
            .into_iter()
            .map(|(depth, item)| OutlineEntry {
                name: item.name.clone(),
                kind: item.kind.clone(),
                line: n(item.start_line),
                end_line: n(item.end_line),
                depth: n(depth),
            })
            .collect())
    })
    .await
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

/// A file's bytes, raw over IPC: images, SVGs, and code and text (decoded
/// by the page: no JSON string escaping for a multi-megabyte file).
#[tauri::command]
pub async fn viewer_bytes(path: String) -> Result<Response, IpcError> {
    blocking(move || {
        let (_, file, len) = open(&path)?;
        if len > MAX_IMAGE_BYTES {
            return Err(denied(format!(
                "{path} is {len} bytes; the viewer shows files up to {MAX_IMAGE_BYTES} bytes"
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

/// A page's text runs with their boxes, for the text layer over the page.
#[tauri::command]
pub async fn pdf_text(path: String, page: u32) -> Result<Vec<PdfTextRun>, IpcError> {
    blocking(move || {
        let runs = pdf(&path)?
            .text_runs(page as usize)
            .map_err(|e| denied(e.to_string()))?;
        Ok(runs
            .into_iter()
            .map(|r| PdfTextRun {
                text: r.text,
                x: r.x,
                y: r.y,
                width: r.width,
                height: r.height,
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

/// SyncTeX forward: where `line` of `input` (the document or a file it
/// includes) sits in `document`'s PDF. `None` when TeX typeset nothing there.
#[tauri::command]
pub async fn latex_forward(
    state: State<'_, ViewerState>,
    document: String,
    input: String,
    line: u32,
) -> Result<Option<PdfSpotView>, IpcError> {
    let (document, _, _) = open(&document)?;
    let (input, _, _) = open(&input)?;
    let latex = state.latex.clone();
    let spot = blocking(move || {
        latex
            .forward(&document, &input, line)
            .map_err(|e| denied(e.to_string()))
    })
    .await?;
    Ok(spot.map(|s| PdfSpotView {
        page: s.page,
        x: s.x,
        y: s.y,
        width: s.width,
        height: s.height,
    }))
}

/// SyncTeX inverse: the source line behind (`x`, `y`) on 1-based `page` of
/// `document`'s PDF; the file it names passes the read policy like any other.
#[tauri::command]
pub async fn latex_inverse(
    state: State<'_, ViewerState>,
    document: String,
    page: u32,
    x: f32,
    y: f32,
) -> Result<Option<SourceLineView>, IpcError> {
    let (document, _, _) = open(&document)?;
    let latex = state.latex.clone();
    let spot = blocking(move || {
        latex
            .inverse(&document, page, x, y)
            .map_err(|e| denied(e.to_string()))
    })
    .await?;
    let Some(spot) = spot else { return Ok(None) };
    let (file, _, _) = open(&spot.file.display().to_string())?;
    Ok(Some(SourceLineView {
        file: shown(&file),
        line: spot.line,
    }))
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
