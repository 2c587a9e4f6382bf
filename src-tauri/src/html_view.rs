//! The `skald-html` protocol: an HTML file's directory tree for the
//! viewer's sandboxed iframe. `html_serve` hands out a token per directory;
//! requests are served only beneath it, through the read tools' policy,
//! with `skald_viewer::html::csp` (naming the token's tree) on every response.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Mutex;

use skald_protocol::{ErrorCode, IpcError};
use tauri::http::{Request, Response, StatusCode, header};
use tauri::{Manager, State, UriSchemeContext, UriSchemeResponder, Wry};

pub const SCHEME: &str = "skald-html";
const MAX_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Default)]
pub struct HtmlRoots(Mutex<HashMap<String, PathBuf>>);

/// The URL that shows `path` (an `.html` file) in the iframe.
#[tauri::command]
pub fn html_serve(roots: State<'_, HtmlRoots>, path: String) -> Result<String, IpcError> {
    let resolved = skald_tools::fs::resolve(&path);
    let (canonical, _, _) = skald_tools::fs::open_for_read(&resolved)
        .map_err(|e| IpcError::new(ErrorCode::InvalidInput, e.to_string()))?;
    let (Some(dir), Some(name)) = (canonical.parent(), canonical.file_name()) else {
        return Err(IpcError::new(ErrorCode::InvalidInput, "not a file"));
    };
    let mut map = roots.0.lock().unwrap_or_else(|e| e.into_inner());
    let token = match map.iter().find(|(_, d)| d.as_path() == dir) {
        Some((t, _)) => t.clone(),
        None => {
            let t = new_token(map.len());
            map.insert(t.clone(), dir.to_path_buf());
            t
        }
    };
    Ok(format!(
        "{SCHEME}://localhost/{token}/{}",
        encode(&name.to_string_lossy())
    ))
}

/// Not a secret (the iframe's own URL shows it); it only keeps one view's
/// tree apart from another's.
fn new_token(n: usize) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{:x}{n:x}", nanos ^ (u128::from(std::process::id()) << 64))
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub fn handle(
    ctx: UriSchemeContext<'_, Wry>,
    request: Request<Vec<u8>>,
    responder: UriSchemeResponder,
) {
    let app = ctx.app_handle().clone();
    let path = request.uri().path().to_string();
    tauri::async_runtime::spawn_blocking(move || {
        let roots = app.state::<HtmlRoots>();
        responder.respond(serve(&roots, &path));
    });
}

fn plain(status: StatusCode, text: &str) -> Response<Vec<u8>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .header("Content-Security-Policy", "default-src 'none'")
        .body(text.as_bytes().to_vec())
        .unwrap_or_default()
}

fn serve(roots: &HtmlRoots, path: &str) -> Response<Vec<u8>> {
    let trimmed = path.trim_start_matches('/');
    let (token, rest) = trimmed.split_once('/').unwrap_or((trimmed, ""));
    let root = {
        let map = roots.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(token).cloned()
    };
    let Some(root) = root else {
        return plain(StatusCode::NOT_FOUND, "not found");
    };
    let Ok(file_path) = skald_viewer::html::request_path(&root, rest) else {
        return plain(StatusCode::FORBIDDEN, "not a path this page may load");
    };
    let opened = skald_tools::fs::open_for_read(&file_path);
    let Ok((canonical, file, len)) = opened else {
        return plain(StatusCode::NOT_FOUND, "not found");
    };
    // A symlink that leads out of the tree is refused like `..`.
    if !skald_tools::fs::path_under(&canonical, &root) || len > MAX_BYTES {
        return plain(StatusCode::FORBIDDEN, "not a path this page may load");
    }
    let mut body = Vec::new();
    if file.take(MAX_BYTES).read_to_end(&mut body).is_err() {
        return plain(StatusCode::NOT_FOUND, "not found");
    }
    Response::builder()
        .status(StatusCode::OK)
        .header(
            header::CONTENT_TYPE,
            skald_viewer::html::mime_for(&canonical),
        )
        .header(
            "Content-Security-Policy",
            skald_viewer::html::csp(&format!("{SCHEME}://localhost/{token}/")),
        )
        .header("X-Content-Type-Options", "nosniff")
        .header(header::CACHE_CONTROL, "no-store")
        .header("Referrer-Policy", "no-referrer")
        .body(body)
        .unwrap_or_default()
}
