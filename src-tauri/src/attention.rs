//! Getting the person's attention when a call waits for them: the tray's
//! tooltip and title carry the count, a system notification fires when a
//! new call starts waiting while the window is hidden, and the UI hears
//! `approvals-changed` (its Inbox badge). Pending rows in the database are
//! the truth, so this also covers calls waiting from before a restart. This
//! process's own changes wake it at once; a slow poll catches those of other
//! processes (`skald` commands on the same database).

use std::collections::HashSet;
use std::time::Duration;

use skald_store::{Store, ToolCallStatus};
use tauri::{Emitter, Manager};
use tauri_plugin_notification::NotificationExt;
use tokio::sync::watch;

const POLL: Duration = Duration::from_secs(3);
/// The event the UI listens to; its payload is how many calls wait.
pub const APPROVALS_CHANGED: &str = "approvals-changed";

pub fn watch(app: tauri::AppHandle, store: Store, mut changes: watch::Receiver<u64>) {
    tauri::async_runtime::spawn(async move {
        let mut seen: HashSet<String> = HashSet::new();
        loop {
            if let Ok(mut rows) = store
                .tool_calls()
                .list_by_status(&[ToolCallStatus::Pending])
                .await
            {
                // Questions wait for the person too (their calls run).
                let questions = store
                    .clarifications()
                    .list_pending()
                    .await
                    .unwrap_or_default();
                let asking: HashSet<String> =
                    questions.iter().map(|q| q.tool_call_id.clone()).collect();
                if let Ok(running) = store
                    .tool_calls()
                    .list_by_status(&[ToolCallStatus::Running])
                    .await
                {
                    rows.extend(running.into_iter().filter(|r| asking.contains(&r.id)));
                }
                let ids: HashSet<String> = rows.iter().map(|r| r.id.clone()).collect();
                if ids != seen {
                    let _ = app.emit(APPROVALS_CHANGED, ids.len());
                }
                let fresh: Vec<_> = rows.iter().filter(|r| !seen.contains(&r.id)).collect();
                update_tray(&app, ids.len());
                let hidden = app
                    .get_webview_window("main")
                    .and_then(|w| w.is_visible().ok())
                    .is_some_and(|visible| !visible);
                if hidden && let Some(first) = fresh.first() {
                    let body = if fresh.len() == 1 && asking.contains(&first.id) {
                        "A question waits for your answer.".to_string()
                    } else if fresh.len() == 1 {
                        format!("{} waits for your approval.", first.name)
                    } else {
                        format!("{} calls wait for your approval.", fresh.len())
                    };
                    if let Err(e) = app
                        .notification()
                        .builder()
                        .title("Skald")
                        .body(body)
                        .show()
                    {
                        tracing::debug!(error = %e, "notification not shown");
                    }
                }
                seen = ids;
            }
            tokio::select! {
                r = changes.changed() => {
                    if r.is_err() {
                        // The manager is gone (shutting down): poll only.
                        tokio::time::sleep(POLL).await;
                    }
                }
                () = tokio::time::sleep(POLL) => {}
            }
        }
    });
}

fn update_tray(app: &tauri::AppHandle, waiting: usize) {
    let Some(tray) = app.tray_by_id("main") else {
        return;
    };
    let text = match waiting {
        0 => "Skald".to_string(),
        1 => "Skald — 1 call waits for you".to_string(),
        n => format!("Skald — {n} calls wait for you"),
    };
    let _ = tray.set_tooltip(Some(&text));
    // The title shows next to the icon where the platform supports it (a badge).
    let _ = tray.set_title((waiting > 0).then(|| waiting.to_string()));
}

/// The "background task ended" hook: a system notification when an async
/// task or a cron run ends while the window is hidden (the window itself
/// hears `TaskEnded` on the session bus). Named for the shared "attention
/// when hidden" helper to take over once there is one.
pub fn on_task_ended(app: tauri::AppHandle, sessions: &skald_session::ChatSessionHandler) {
    sessions.on_task_ended(std::sync::Arc::new(move |ended| {
        let hidden = app
            .get_webview_window("main")
            .and_then(|w| w.is_visible().ok())
            .is_some_and(|visible| !visible);
        if !hidden {
            return;
        }
        let icon = if ended.kind == "cron" { "📅" } else { "🚀" };
        let body = format!("{icon} {} — {}", ended.title, ended.status);
        if let Err(e) = app
            .notification()
            .builder()
            .title("Skald: background task ended")
            .body(body)
            .show()
        {
            tracing::debug!(error = %e, "notification not shown");
        }
    }));
}
