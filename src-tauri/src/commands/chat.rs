//! Chat commands: sessions, history, one turn streamed over a Channel, stop.

use std::path::PathBuf;

use skald_protocol::{
    ChatMessage, IpcError, SessionEvent, SessionSearchHit, SessionSummary, SummaryView, TurnOutcome,
};
use skald_session::{EventSink, SessionParams};
use tauri::ipc::Channel;

use crate::AppState;

/// Forwards a turn's events to the webview, in order.
pub(crate) struct ChannelSink(pub(crate) Channel<SessionEvent>);

impl EventSink for ChannelSink {
    fn emit(&self, event: SessionEvent) {
        if let Err(e) = self.0.send(event) {
            // The window went away mid-turn; the turn still completes and
            // is stored, the UI reloads it from history.
            tracing::debug!(error = %e, "turn event not delivered");
        }
    }
}

#[tauri::command]
pub async fn list_sessions(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<SessionSummary>, IpcError> {
    state.sessions.list_sessions().await.map_err(|e| e.to_ipc())
}

#[tauri::command]
pub async fn create_session(
    state: tauri::State<'_, AppState>,
    title: Option<String>,
    working_dir: Option<String>,
) -> Result<SessionSummary, IpcError> {
    let working_dir = working_dir
        .filter(|d| !d.trim().is_empty())
        .map(PathBuf::from)
        .or_else(|| Some(state.default_workdir.clone()));
    state
        .sessions
        .new_chat(SessionParams {
            title,
            agent_id: None,
            working_dir,
        })
        .await
        .map_err(|e| e.to_ipc())
}

#[tauri::command]
pub async fn rename_session(
    state: tauri::State<'_, AppState>,
    session_id: String,
    title: String,
) -> Result<SessionSummary, IpcError> {
    state
        .sessions
        .rename_session(&session_id, &title)
        .await
        .map_err(|e| e.to_ipc())
}

/// Deletes a session for good (the UI offers Undo before it calls this).
#[tauri::command]
pub async fn delete_session(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<bool, IpcError> {
    state
        .sessions
        .delete_session(&session_id)
        .await
        .map_err(|e| e.to_ipc())
}

#[tauri::command]
pub async fn search_sessions(
    state: tauri::State<'_, AppState>,
    text: String,
) -> Result<Vec<SessionSearchHit>, IpcError> {
    state
        .sessions
        .search_sessions(&text)
        .await
        .map_err(|e| e.to_ipc())
}

#[tauri::command]
pub async fn session_history(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<Vec<ChatMessage>, IpcError> {
    state
        .sessions
        .history(&session_id)
        .await
        .map_err(|e| e.to_ipc())
}

/// Runs one turn; resolves when it ends, with how it ended.
#[tauri::command]
pub async fn send_message(
    state: tauri::State<'_, AppState>,
    session_id: String,
    text: String,
    on_event: Channel<SessionEvent>,
) -> Result<TurnOutcome, IpcError> {
    state
        .sessions
        .send_message(&session_id, &text, ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc())
}

/// Runs the failed last turn again (a cut answer dropped, the error
/// cleared); also sends a message kept when there was no provider.
#[tauri::command]
pub async fn retry_turn(
    state: tauri::State<'_, AppState>,
    session_id: String,
    on_event: Channel<SessionEvent>,
) -> Result<TurnOutcome, IpcError> {
    state
        .sessions
        .retry_turn(&session_id, ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc())
}

/// Drops the last answer and asks the model again.
#[tauri::command]
pub async fn regenerate_answer(
    state: tauri::State<'_, AppState>,
    session_id: String,
    on_event: Channel<SessionEvent>,
) -> Result<TurnOutcome, IpcError> {
    state
        .sessions
        .regenerate(&session_id, ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc())
}

/// Replaces the person's last message (and what followed) with `text`.
#[tauri::command]
pub async fn edit_last_message(
    state: tauri::State<'_, AppState>,
    session_id: String,
    text: String,
    on_event: Channel<SessionEvent>,
) -> Result<TurnOutcome, IpcError> {
    state
        .sessions
        .edit_last_message(&session_id, &text, ChannelSink(on_event))
        .await
        .map_err(|e| e.to_ipc())
}

/// Summarises every turn but the last; later requests send the summary.
#[tauri::command]
pub async fn compact_session(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<SummaryView, IpcError> {
    state
        .sessions
        .compact(&session_id)
        .await
        .map_err(|e| e.to_ipc())
}

/// Re-attaches a page to the session's running turn, whoever started it
/// (another page, crash resume on start): its events so far are sent at once,
/// then the live ones until the turn ends. Returns whether a turn runs.
#[tauri::command]
pub fn attach_session(
    state: tauri::State<'_, AppState>,
    session_id: String,
    on_event: Channel<SessionEvent>,
) -> bool {
    let attached = state.sessions.attach(&session_id);
    let running = !attached.so_far.is_empty();
    let sink = ChannelSink(on_event);
    for event in attached.so_far {
        sink.emit(event);
    }
    if running {
        let mut live = attached.live;
        tauri::async_runtime::spawn(async move {
            loop {
                match live.recv().await {
                    Ok(event) if skald_session::session_of(&event) == session_id => {
                        let end = matches!(event, SessionEvent::TurnEnded { .. });
                        sink.emit(event);
                        if end {
                            break;
                        }
                    }
                    Ok(_) => {}
                    // Fell behind: the page reloads history when the turn ends.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                        tracing::debug!(missed = n, "attached page fell behind");
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
            }
        });
    }
    running
}

/// Sessions whose turn, cut short by a crash, the app is answering now
/// (the chat shows them with a "resumed after a crash" banner).
#[tauri::command]
pub fn resumed_turns(state: tauri::State<'_, AppState>) -> Vec<String> {
    state.resumed.running()
}

/// Stops the session's running turn (no-op when none runs).
#[tauri::command]
pub fn stop_turn(state: tauri::State<'_, AppState>, session_id: String) -> bool {
    state.sessions.stop(&session_id)
}
