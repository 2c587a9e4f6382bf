//! The companion tools' panels: the scratchpad (read, edit, delete), each
//! agent's todo list, and questions waiting for an answer.

use skald_protocol::{IpcError, PendingQuestionView, ScratchpadEntryView, TodoListView};

use crate::AppState;

#[tauri::command]
pub async fn get_scratchpad(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<Vec<ScratchpadEntryView>, IpcError> {
    Ok(state.sessions.scratchpad(&session_id).await?)
}

/// Writes an entry (an empty value deletes it); every agent's next request sees it.
#[tauri::command]
pub async fn set_scratchpad_entry(
    state: tauri::State<'_, AppState>,
    session_id: String,
    key: String,
    value: String,
) -> Result<Vec<ScratchpadEntryView>, IpcError> {
    state
        .sessions
        .set_scratchpad_entry(&session_id, &key, &value)
        .await?;
    Ok(state.sessions.scratchpad(&session_id).await?)
}

#[tauri::command]
pub async fn remove_scratchpad_entry(
    state: tauri::State<'_, AppState>,
    session_id: String,
    key: String,
) -> Result<Vec<ScratchpadEntryView>, IpcError> {
    state
        .sessions
        .remove_scratchpad_entry(&session_id, &key)
        .await?;
    Ok(state.sessions.scratchpad(&session_id).await?)
}

#[tauri::command]
pub async fn session_todos(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<Vec<TodoListView>, IpcError> {
    Ok(state.sessions.todos(&session_id).await?)
}

#[tauri::command]
pub async fn list_questions(
    state: tauri::State<'_, AppState>,
) -> Result<Vec<PendingQuestionView>, IpcError> {
    Ok(state.sessions.pending_questions().await?)
}

/// Answers a waiting question; the asking turn goes on with it.
#[tauri::command]
pub async fn answer_question(
    state: tauri::State<'_, AppState>,
    tool_call_id: String,
    answer: String,
) -> Result<(), IpcError> {
    Ok(state
        .sessions
        .answer_question(&tool_call_id, &answer)
        .await?)
}
