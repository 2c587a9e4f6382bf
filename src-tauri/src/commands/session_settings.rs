//! A session's RunContext (group, extra prompt, allow lists, working
//! directory) and its human bypasses.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use skald_approval::{Bypass, BypassScope, Expiry, RunContext};
use skald_protocol::{BypassScopeView, ErrorCode, IpcError, RunContextView};

use crate::AppState;

fn invalid(e: impl std::fmt::Display) -> IpcError {
    IpcError::new(ErrorCode::InvalidInput, e.to_string())
}

fn strings(v: &[PathBuf]) -> Vec<String> {
    v.iter().map(|p| p.display().to_string()).collect()
}

fn paths(v: Vec<String>) -> Result<Vec<PathBuf>, IpcError> {
    v.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .map(|s| {
            let p = PathBuf::from(&s);
            if p.is_absolute() {
                Ok(p)
            } else {
                Err(invalid(format!(
                    "allow-list entries must be absolute paths: {s}"
                )))
            }
        })
        .collect()
}

#[tauri::command]
pub async fn get_run_context(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<RunContextView, IpcError> {
    let ctx = state
        .approvals
        .run_context(&session_id, None)
        .await
        .map_err(invalid)?;
    Ok(RunContextView {
        permission_group: ctx.permission_group,
        extra_system_prompt: ctx.extra_system_prompt,
        allow_fs_reads: strings(&ctx.allow_fs_reads),
        allow_fs_writes: strings(&ctx.allow_fs_writes),
        working_dir: ctx.working_dir.map(|p| p.display().to_string()),
    })
}

#[tauri::command]
pub async fn set_run_context(
    state: tauri::State<'_, AppState>,
    session_id: String,
    ctx: RunContextView,
) -> Result<(), IpcError> {
    let working_dir = ctx
        .working_dir
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    if let Some(dir) = &working_dir
        && !dir.is_dir()
    {
        return Err(invalid(format!("{} is not a directory", dir.display())));
    }
    let run_context = RunContext {
        permission_group: ctx.permission_group.trim().to_string(),
        extra_system_prompt: ctx.extra_system_prompt.filter(|p| !p.trim().is_empty()),
        allow_fs_reads: paths(ctx.allow_fs_reads)?,
        allow_fs_writes: paths(ctx.allow_fs_writes)?,
        working_dir,
    };
    state
        .approvals
        .set_run_context(&session_id, &run_context)
        .await
        .map_err(invalid)?;
    Ok(())
}

/// Lets `scope` through without asking in this session (never over a deny)
/// for `minutes`, or until the session's turn is stopped.
#[tauri::command]
pub fn add_bypass(
    state: tauri::State<'_, AppState>,
    session_id: String,
    scope: BypassScopeView,
    minutes: Option<u32>,
) -> Result<(), IpcError> {
    let scope = match scope {
        BypassScopeView::All => BypassScope::All,
        BypassScopeView::Tool { name } => BypassScope::Tool(name),
        BypassScopeView::Category { category } => BypassScope::Category(category),
        BypassScopeView::McpServer { server } => BypassScope::McpServer(server),
    };
    let expires =
        minutes.map(|m| Expiry::At(Instant::now() + Duration::from_secs(u64::from(m) * 60)));
    state
        .approvals
        .add_bypass(&session_id, Bypass { scope, expires });
    Ok(())
}

#[tauri::command]
pub fn clear_bypasses(state: tauri::State<'_, AppState>, session_id: String) {
    state.approvals.clear_bypasses(&session_id);
}
