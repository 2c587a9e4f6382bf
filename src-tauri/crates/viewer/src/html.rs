//! Serving an HTML file's directory tree to a sandboxed iframe.
//!
//! The app registers a custom protocol; a view gets a token naming the HTML
//! file's directory, and `<scheme>://localhost/<token>/<path>` serves only
//! files beneath it. The caller opens the file through its path policy and
//! checks the judged path is still under the root (a symlink out of the tree
//! is refused). Every response carries a CSP ([`csp`]): no connections anywhere
//! (so no IPC and no asset protocol), no framing by anything but the app,
//! no forms, no navigation of the top window (that part is the iframe's
//! `sandbox`, which also withholds `allow-same-origin`, so the page has an
//! opaque origin and cannot touch its parent). See [`csp`].

use std::path::{Component, Path, PathBuf};

/// The policy for a page served under `base` (`skald-html://localhost/<token>/`):
/// scripts, styles, images, fonts and media from the page's own tree (and
/// inline); nothing fetched, posted or framed. The tree is named rather than
/// `'self'`: a sandboxed page's origin is opaque, which `'self'` never matches.
pub fn csp(base: &str) -> String {
    format!(
        "default-src 'none'; script-src {base} 'unsafe-inline'; style-src {base} 'unsafe-inline'; \
         img-src {base} data: blob:; font-src {base} data:; media-src {base} data: blob:; \
         connect-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; \
         object-src 'none'; form-action 'none'; base-uri 'none'; \
         frame-ancestors tauri://localhost http://tauri.localhost http://localhost:5173"
    )
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HtmlPathError {
    #[error("not a path this page may load")]
    Outside,
    #[error("a malformed path")]
    Malformed,
}

/// The file a request path names, beneath `root`: percent-decoded, with no
/// `..`, no absolute part and no NUL. The query and fragment are dropped;
/// an empty path or a directory path is not served.
pub fn request_path(root: &Path, url_path: &str) -> Result<PathBuf, HtmlPathError> {
    let path = url_path.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path.trim_start_matches('/'))?;
    if decoded.is_empty() || decoded.ends_with('/') || decoded.contains('\0') {
        return Err(HtmlPathError::Malformed);
    }
    let rel = Path::new(&decoded);
    let mut out = root.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return Err(HtmlPathError::Outside),
        }
    }
    Ok(out)
}

fn percent_decode(s: &str) -> Result<String, HtmlPathError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(HtmlPathError::Malformed)?;
            let hex = std::str::from_utf8(hex).map_err(|_| HtmlPathError::Malformed)?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| HtmlPathError::Malformed)?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| HtmlPathError::Malformed)
}

/// The Content-Type for a served file.
pub fn mime_for(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "bmp" => "image/bmp",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
