//! Session bookkeeping of [`ChatSessionHandler`]: create, list, open,
//! delete, history, and the root agent frame each session has. No turn logic.

use std::path::{Path, PathBuf};

use skald_protocol::{ChatMessage, SessionSearchHit, SessionSummary};
use skald_store::{FrameStatus, NewSession, NewStackFrame, SessionRow, StackFrameRow, Store};

use crate::error::SessionError;
use crate::handler::{ChatSessionHandler, SessionParams};
use crate::transcript::{Rows, transcript};
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

    /// "New chat": the newest untitled session without a message (same agent
    /// and working directory) when there is one, else a new session — so
    /// clicking New chat twice does not leave empty sessions behind.
    pub async fn new_chat(&self, params: SessionParams) -> Result<SessionSummary, SessionError> {
        if params.title.as_deref().is_none_or(str::is_empty) {
            let agent = params
                .agent_id
                .clone()
                .unwrap_or_else(|| self.inner.config.default_agent.clone());
            let dir = match &params.working_dir {
                Some(dir) => Some(absolute_dir(dir)?.to_string_lossy().into_owned()),
                None => None,
            };
            let sessions = self.inner.store.sessions();
            if let Some(row) = sessions.newest_empty(&agent, dir.as_deref()).await? {
                sessions.touch(&row.id).await?;
                return self.open_session(&row.id).await;
            }
        }
        self.create_session(params).await
    }

    /// Gives the session a title of the person's choosing.
    pub async fn rename_session(
        &self,
        session_id: &str,
        title: &str,
    ) -> Result<SessionSummary, SessionError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(SessionError::InvalidInput("a chat needs a title".into()));
        }
        self.session_row(session_id).await?;
        self.inner
            .store
            .sessions()
            .rename(session_id, title)
            .await?;
        self.open_session(session_id).await
    }

    /// Sessions whose title or messages contain `text`, with the matching
    /// part of the first message that does.
    pub async fn search_sessions(&self, text: &str) -> Result<Vec<SessionSearchHit>, SessionError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(self
                .list_sessions()
                .await?
                .into_iter()
                .map(|session| SessionSearchHit {
                    session,
                    snippet: None,
                })
                .collect());
        }
        let hits = self.inner.store.sessions().search(text).await?;
        Ok(hits
            .into_iter()
            .map(|(row, content)| SessionSearchHit {
                session: summary(&row),
                snippet: content.map(|c| snippet(&c, text)),
            })
            .collect())
    }

    /// Every chat session, most recently used first. Background sessions
    /// (a task's or a cron run's) are not chats: the Tasks view links to
    /// their transcripts, and `open_session` still opens them by id.
    pub async fn list_sessions(&self) -> Result<Vec<SessionSummary>, SessionError> {
        let rows = self.inner.store.sessions().list().await?;
        Ok(rows
            .iter()
            .filter(|r| !crate::tasks::is_background_session(r.run_context.as_ref()))
            .map(summary)
            .collect())
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

    /// The session's messages, each assistant message with its tool cards,
    /// and under a card that started a sub-agent, that sub-agent's own
    /// messages and cards (at every depth), as they showed live.
    pub async fn history(&self, session_id: &str) -> Result<Vec<ChatMessage>, SessionError> {
        let session = self.session_row(session_id).await?;
        let store = &self.inner.store;
        let root = root_frame(store, &session).await?;
        let frames = store.stack().list_for_session(session_id).await?;
        let messages = store.history().list_for_session(session_id).await?;
        let calls = store.tool_calls().list_for_session(session_id).await?;
        let summaries = store.summaries().list_for_session(session_id).await?;
        let base = session_workdir(&session).ok();
        let rows = Rows {
            session: &session,
            root: &root,
            frames: &frames,
            messages,
            calls: &calls,
            summaries: &summaries,
            workdir: base.as_deref().unwrap_or_else(|| Path::new("/")),
        };
        Ok(with_display_base(base.as_deref(), || {
            transcript(&self.inner, rows)
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

/// About 120 characters of `content` around the first (ASCII case-insensitive)
/// occurrence of `needle`, on one line.
fn snippet(content: &str, needle: &str) -> String {
    const SIDE: usize = 60;
    let flat: String = content.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = flat.to_ascii_lowercase();
    let at = lower.find(&needle.to_ascii_lowercase()).unwrap_or(0);
    let start = flat[..at]
        .char_indices()
        .rev()
        .nth(SIDE)
        .map_or(0, |(i, _)| i);
    let end = flat[at..]
        .char_indices()
        .nth(needle.len() + SIDE)
        .map_or(flat.len(), |(i, _)| at + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&flat[start..end]);
    if end < flat.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn snippets_centre_on_the_match_and_say_where_they_cut() {
        assert_eq!(snippet("short text here", "TEXT"), "short text here");
        let long = format!("{} needle {}", "a ".repeat(100), "b ".repeat(100));
        let s = snippet(&long, "needle");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("needle"));
        assert!(s.chars().count() < 140, "{}", s.chars().count());
        // Multi-byte text never splits a character.
        let s = snippet(
            &format!("{}ß needle ü{}", "é".repeat(80), "ö".repeat(80)),
            "needle",
        );
        assert!(s.contains("ß needle ü"), "{s}");
    }
}
