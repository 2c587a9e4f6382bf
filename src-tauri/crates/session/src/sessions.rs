//! Session bookkeeping of [`ChatSessionHandler`]: create, list, open,
//! delete, history, and the root agent frame each session has. No turn logic.

use std::path::{Path, PathBuf};

use skald_protocol::{ChatMessage, SessionSummary};
use skald_store::{FrameStatus, NewSession, NewStackFrame, SessionRow, StackFrameRow, Store};

use crate::assemble::chat_messages;
use crate::error::SessionError;
use crate::handler::{ChatSessionHandler, SessionParams};
use skald_tools::fs::with_display_base;

impl ChatSessionHandler {
    /// Creates a session (and its root agent frame).
    pub async fn create_session(
        &self,
        params: SessionParams,
    ) -> Result<SessionSummary, SessionError> {
        let working_dir = match params.working_dir {
            Some(dir) => Some(absolute_dir(&dir)?),
            None => None,
        };
        let row = self
            .inner
            .store
            .sessions()
            .create(NewSession {
                title: params.title.unwrap_or_default(),
                agent_id: params
                    .agent_id
                    .unwrap_or_else(|| self.inner.config.default_agent.clone()),
                working_dir: working_dir.map(|d| d.to_string_lossy().into_owned()),
            })
            .await?;
        root_frame(&self.inner.store, &row).await?;
        Ok(summary(&row))
    }

    /// Every session, most recently used first.
    pub async fn list_sessions(&self) -> Result<Vec<SessionSummary>, SessionError> {
        let rows = self.inner.store.sessions().list().await?;
        Ok(rows.iter().map(summary).collect())
    }

    /// One session's header.
    pub async fn open_session(&self, session_id: &str) -> Result<SessionSummary, SessionError> {
        Ok(summary(&self.session_row(session_id).await?))
    }

    /// Changes where the session's tools run.
    pub async fn set_working_dir(&self, session_id: &str, dir: &Path) -> Result<(), SessionError> {
        let dir = absolute_dir(dir)?;
        self.session_row(session_id).await?;
        self.inner
            .store
            .sessions()
            .set_working_dir(session_id, Some(&dir.to_string_lossy()))
            .await?;
        Ok(())
    }

    /// Deletes a session and everything in it; refused while a turn runs.
    pub async fn delete_session(&self, session_id: &str) -> Result<bool, SessionError> {
        let _slot = self.claim(session_id)?;
        Ok(self.inner.store.sessions().delete(session_id).await?)
    }

    /// The session's messages, each assistant message with its tool cards.
    pub async fn history(&self, session_id: &str) -> Result<Vec<ChatMessage>, SessionError> {
        let session = self.session_row(session_id).await?;
        let store = &self.inner.store;
        // The root agent's conversation; sub-agents' messages belong under
        // the cards of the calls that started them.
        let root = root_frame(store, &session).await?;
        let rows: Vec<_> = store
            .history()
            .list_for_session(session_id)
            .await?
            .into_iter()
            .filter(|m| m.stack_id.is_none_or(|s| s == root.id))
            .collect();
        let calls = store.tool_calls().list_for_session(session_id).await?;
        let base = session_workdir(&session).ok();
        // The session's tools label its cards (an InterfaceTool's own
        // describe), as they did live.
        let labels = self.inner.toolset(
            &session,
            0,
            0,
            &session.agent_id,
            base.as_deref().unwrap_or_else(|| std::path::Path::new("/")),
        );
        Ok(with_display_base(base.as_deref(), || {
            chat_messages(&labels, &rows, &calls)
        }))
    }
}

pub(crate) fn summary(row: &SessionRow) -> SessionSummary {
    SessionSummary {
        id: row.id.clone(),
        title: row.title.clone(),
        agent_id: row.agent_id.clone(),
        working_dir: row.working_dir.clone(),
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// `dir` made absolute (against the process directory) and checked.
pub(crate) fn absolute_dir(dir: &Path) -> Result<PathBuf, SessionError> {
    let abs = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| SessionError::WorkingDir {
                path: dir.to_path_buf(),
                reason: format!("the current directory is unusable: {e}"),
            })?
            .join(dir)
    };
    if !abs.is_dir() {
        return Err(SessionError::WorkingDir {
            path: abs,
            reason: "not a directory".into(),
        });
    }
    Ok(abs)
}

/// Where the session's tools run: its working directory, or the process's.
pub(crate) fn session_workdir(session: &SessionRow) -> Result<PathBuf, SessionError> {
    match &session.working_dir {
        Some(d) => absolute_dir(Path::new(d)),
        None => std::env::current_dir().map_err(|e| SessionError::WorkingDir {
            path: PathBuf::from("."),
            reason: format!("the session has none and the current directory is unusable: {e}"),
        }),
    }
}

/// The session's root agent frame (depth 0), created if missing.
pub(crate) async fn root_frame(
    store: &Store,
    session: &SessionRow,
) -> Result<StackFrameRow, SessionError> {
    let frames = store.stack().list_for_session(&session.id).await?;
    if let Some(f) = frames.into_iter().find(|f| f.depth == 0) {
        return Ok(f);
    }
    Ok(store
        .stack()
        .push(&NewStackFrame {
            session_id: session.id.clone(),
            parent_id: None,
            agent_id: session.agent_id.clone(),
            task: None,
            status: FrameStatus::Waiting,
        })
        .await?)
}
