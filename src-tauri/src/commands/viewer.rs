//! The plain file view behind clickable tool paths: same secrets policy as
//! the read tools, text only, bounded.

use skald_protocol::{ErrorCode, IpcError};

const MAX_VIEW_BYTES: u64 = 2 * 1024 * 1024;

#[tauri::command]
pub async fn view_file(path: String) -> Result<String, IpcError> {
    let denied = |m: String| IpcError::new(ErrorCode::InvalidInput, m);
    let resolved = skald_tools::fs::resolve(&path);
    let canonical =
        skald_tools::fs::check_read_allowed(&resolved).map_err(|e| denied(e.to_string()))?;
    let meta = tokio::fs::metadata(&canonical)
        .await
        .map_err(|e| IpcError::new(ErrorCode::NotFound, format!("{path}: {e}")))?;
    if !meta.is_file() {
        return Err(denied(format!("{path} is not a file")));
    }
    if meta.len() > MAX_VIEW_BYTES {
        return Err(denied(format!(
            "{path} is {} bytes; the viewer shows files up to {MAX_VIEW_BYTES} bytes",
            meta.len()
        )));
    }
    let bytes = tokio::fs::read(&canonical)
        .await
        .map_err(|e| IpcError::new(ErrorCode::NotFound, format!("{path}: {e}")))?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(denied(format!("{path} is a binary file")));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
