//! The plain file view behind clickable tool paths: same secrets policy as
//! the read tools, text only, bounded.

use skald_protocol::{ErrorCode, IpcError};

const MAX_VIEW_BYTES: u64 = 2 * 1024 * 1024;

#[tauri::command]
pub async fn view_file(path: String) -> Result<String, IpcError> {
    tokio::task::spawn_blocking(move || read_for_view(&path))
        .await
        .map_err(|e| IpcError::new(ErrorCode::Internal, format!("the viewer stopped: {e}")))?
}

/// Reads through the handle the read tools' policy judged, so a path
/// swapped for a link into `secrets/` after the check is never shown.
fn read_for_view(path: &str) -> Result<String, IpcError> {
    use std::io::Read;
    let denied = |m: String| IpcError::new(ErrorCode::InvalidInput, m);
    let resolved = skald_tools::fs::resolve(path);
    let (_, file, len) =
        skald_tools::fs::open_for_read(&resolved).map_err(|e| denied(e.to_string()))?;
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
