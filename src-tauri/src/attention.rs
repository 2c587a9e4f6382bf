//! Getting the person's attention. Waiting calls: the tray's tooltip and
//! title carry the count, a system notification fires when a new call
//! starts waiting while the window is hidden, and the UI hears
//! `approvals-changed` (its Inbox badge). Pending rows in the database are
//! the truth, so this also covers calls waiting from before a restart. This
//! process's own changes wake it at once; a slow poll catches those of other
//! processes (`skald` commands on the same database).
//!
//! The other moments — a turn finished, a notification delivered into
//! Home, a background task ended — come from the session driver
//! ([`skald_session::Attention`]) and are shown the same way, only while
//! the window is hidden: in front of the window the person sees them there.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::Value;
use skald_session::{Attention, ChatSessionHandler};
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
                if window_hidden(&app)
                    && let Some(first) = fresh.first()
                {
                    let body = if fresh.len() == 1 && asking.contains(&first.id) {
                        "A question waits for your answer.".to_string()
                    } else if fresh.len() == 1 {
                        format!("{} waits for your approval.", first.name)
                    } else {
                        format!("{} calls wait for your approval.", fresh.len())
                    };
                    show(&app, "Skald", &body);
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

/// Shows what the session driver asks the person to look at, while the
/// window is hidden, for the app's life.
pub fn watch_moments(app: tauri::AppHandle, sessions: &ChatSessionHandler) {
    let mut moments = sessions.subscribe_attention();
    tauri::async_runtime::spawn(async move {
        loop {
            match moments.recv().await {
                Ok(moment) => {
                    if window_hidden(&app) {
                        show_moment(&app, &moment);
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::debug!(missed = n, "attention moments skipped");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}

fn show_moment(app: &tauri::AppHandle, moment: &Attention) {
    let title = if moment.title == "Skald" {
        moment.title.clone()
    } else {
        format!("Skald — {}", moment.title)
    };
    show(app, &title, &moment.body);
}

/// The setting that records the person was told Skald stays in the tray.
pub const TRAY_NOTE_SHOWN: &str = "ui.tray_note_shown";

/// The window was hidden to the tray (Ctrl+W, closing it): the first time
/// ever, a notification says Skald keeps running there and how to quit.
pub fn hidden_to_tray(app: &tauri::AppHandle, store: Store) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let settings = store.settings();
        match settings.get(TRAY_NOTE_SHOWN).await {
            Ok(Some(Value::Bool(true))) => return,
            Ok(_) => {}
            Err(e) => {
                // Unknown whether it was shown: better silent than nagging.
                tracing::debug!(error = %e, "cannot read the tray note setting");
                return;
            }
        }
        if let Err(e) = settings.set(TRAY_NOTE_SHOWN, &Value::Bool(true)).await {
            tracing::debug!(error = %e, "cannot record the tray note");
            return;
        }
        show(
            &app,
            "Skald keeps running in the tray",
            "Agents go on working while the window is closed. Open it again or quit from the tray icon.",
        );
    });
}

/// Whether the main window is out of sight (hidden to the tray or minimised).
fn window_hidden(app: &tauri::AppHandle) -> bool {
    app.get_webview_window("main").is_some_and(|w| {
        w.is_visible().is_ok_and(|visible| !visible) || w.is_minimized().unwrap_or(false)
    })
}

fn show(app: &tauri::AppHandle, title: &str, body: &str) {
    if let Err(e) = app.notification().builder().title(title).body(body).show() {
        tracing::debug!(error = %e, "notification not shown");
    }
}
