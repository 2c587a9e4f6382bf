//! A session's RunContext (group, extra prompt, allow lists, working
//! directory) as the session-settings form edits it, and the person's
//! bypasses.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use skald_approval::{Bypass, BypassScope, Expiry, RunContext};
use skald_protocol::{BypassScopeView, BypassView, RunContextView};

use super::ServiceError;
use crate::ApprovalManager;

fn strings(v: &[PathBuf]) -> Vec<String> {
    v.iter().map(|p| p.display().to_string()).collect()
}

/// Allow-list entries: trimmed, blanks dropped, each absolute.
fn paths(v: Vec<String>) -> Result<Vec<PathBuf>, ServiceError> {
    v.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .map(|s| {
            let p = PathBuf::from(&s);
            if p.is_absolute() {
                Ok(p)
            } else {
                Err(ServiceError::Invalid(format!(
                    "allow-list entries must be absolute paths: {s}"
                )))
            }
        })
        .collect()
}

pub async fn get(
    approvals: &ApprovalManager,
    session_id: &str,
) -> Result<RunContextView, ServiceError> {
    let ctx = approvals.run_context(session_id, None).await?;
    Ok(RunContextView {
        permission_group: ctx.permission_group,
        extra_system_prompt: ctx.extra_system_prompt,
        allow_fs_reads: strings(&ctx.allow_fs_reads),
        allow_fs_writes: strings(&ctx.allow_fs_writes),
        working_dir: ctx.working_dir.map(|p| p.display().to_string()),
    })
}

/// Stores the form's RunContext; a working directory must exist.
pub async fn set(
    approvals: &ApprovalManager,
    session_id: &str,
    ctx: RunContextView,
) -> Result<(), ServiceError> {
    let working_dir = ctx
        .working_dir
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    if let Some(dir) = &working_dir
        && !dir.is_dir()
    {
        return Err(ServiceError::Invalid(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let run_context = RunContext {
        permission_group: ctx.permission_group.trim().to_string(),
        extra_system_prompt: ctx.extra_system_prompt.filter(|p| !p.trim().is_empty()),
        allow_fs_reads: paths(ctx.allow_fs_reads)?,
        allow_fs_writes: paths(ctx.allow_fs_writes)?,
        working_dir,
    };
    approvals.set_run_context(session_id, &run_context).await?;
    Ok(())
}

/// Lets `scope` through without asking in this session (never over a deny)
/// for `minutes`, or until the session's turn is stopped.
pub fn add_bypass(
    approvals: &ApprovalManager,
    session_id: &str,
    scope: BypassScopeView,
    minutes: Option<u32>,
) {
    let scope = match scope {
        BypassScopeView::All => BypassScope::All,
        BypassScopeView::Tool { name } => BypassScope::Tool(name),
        BypassScopeView::Category { category } => BypassScope::Category(category),
        BypassScopeView::McpServer { server } => BypassScope::McpServer(server),
    };
    let expires =
        minutes.map(|m| Expiry::At(Instant::now() + Duration::from_secs(u64::from(m) * 60)));
    approvals.add_bypass(session_id, Bypass { scope, expires });
}

/// The session's live bypasses with the time each has left (expired ones
/// are dropped).
pub fn list_bypasses(approvals: &ApprovalManager, session_id: &str) -> Vec<BypassView> {
    let now = Instant::now();
    let unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    approvals
        .bypasses(session_id)
        .into_iter()
        .map(|b| BypassView {
            scope: match b.scope {
                BypassScope::All => BypassScopeView::All,
                BypassScope::Tool(name) => BypassScopeView::Tool { name },
                BypassScope::Category(category) => BypassScopeView::Category { category },
                BypassScope::McpServer(server) => BypassScopeView::McpServer { server },
            },
            remaining_ms: b.expires.map(|e| match e {
                Expiry::At(at) => {
                    u64::try_from(at.saturating_duration_since(now).as_millis()).unwrap_or(u64::MAX)
                }
                Expiry::UnixMs(at) => u64::try_from(at.saturating_sub(unix_ms)).unwrap_or(0),
            }),
        })
        .collect()
}
