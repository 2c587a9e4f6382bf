//! Doing a turn again: Retry a failed one, regenerate the last answer, edit
//! and resend the last message, and "compact" (a summary of all but the last
//! turn, on the person's request). Each claims the session before it reads
//! the history and holds it until its turn ends, so no other turn runs
//! between the cut and the new answer.

use skald_protocol::SummaryView;
use skald_store::MessageRow;

use super::*;
use crate::context::summary::{self, Summarise, cut_points};
use crate::context::{after, window_for};

impl ChatSessionHandler {
    /// Keeps a message that could not be sent (no provider, a broken agent)
    /// with why, so it is not lost and Retry can send it later.
    pub(crate) async fn keep_unsent(&self, session_id: &str, text: &str, why: &SessionError) {
        let kept = async {
            let session = self.session_row(session_id).await?;
            let frame = root_frame(&self.inner.store, &session).await?;
            let id = self.append_user(&session, frame.id, text).await?;
            self.inner
                .store
                .history()
                .set_error(id, Some(&why.to_string()))
                .await?;
            Ok::<_, SessionError>(())
        };
        if let Err(e) = kept.await {
            tracing::warn!(session = %session_id, error = %e, "cannot keep the unsent message");
        }
    }

    /// Records a failed turn's error on the last message of its frame.
    pub(crate) async fn record_error(
        &self,
        frame_id: i64,
        message: &str,
    ) -> Result<(), SessionError> {
        let history = self.inner.store.history();
        if let Some(last) = history.list_for_frame(frame_id).await?.last() {
            history.set_error(last.id, Some(message)).await?;
        }
        Ok(())
    }

    /// The root frame's messages, oldest first.
    async fn root_rows(&self, session: &SessionRow) -> Result<Vec<MessageRow>, SessionError> {
        let frame = root_frame(&self.inner.store, session).await?;
        Ok(self.inner.store.history().list_for_frame(frame.id).await?)
    }

    /// Runs the failed last turn again: a cut answer is dropped, the error
    /// cleared, and the model asked again from where the turn stopped (tool
    /// calls that finished are not run twice). Also sends a message kept
    /// when there was no provider.
    pub async fn retry_turn(
        &self,
        session_id: &str,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        self.retry_turn_with(session_id, TurnOptions::default(), sink)
            .await
    }

    /// [`retry_turn`](Self::retry_turn) asking `options.model` this once
    /// (`None`: the chat's own model, else the default).
    pub async fn retry_turn_with(
        &self,
        session_id: &str,
        options: TurnOptions,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        // Claimed before the history is read: what is cut is what was read.
        let slot = self.claim(session_id)?;
        let session = self.session_row(session_id).await?;
        let rows = self.root_rows(&session).await?;
        let Some(last) = rows.last() else {
            return Err(SessionError::NothingToDo(
                "nothing to retry: the chat is empty".into(),
            ));
        };
        // The error sits on the last message the failed turn stored; an
        // older failure already answered by a later turn is history.
        if last.error.is_none() && last.role != Role::User {
            return Err(SessionError::NothingToDo(
                "nothing to retry: the last turn did not fail".into(),
            ));
        }
        let drop_after = match last {
            r if r.role == Role::Assistant
                && r.extras.incomplete.is_some()
                && r.tool_calls.is_none() =>
            {
                rows.iter().rev().nth(1).map(|r| r.id)
            }
            _ => None,
        };
        self.again(slot, session_id, drop_after, options.model.as_deref(), sink)
            .await
    }

    /// Drops the last answer (everything after the person's last message)
    /// and asks the model again.
    pub async fn regenerate(
        &self,
        session_id: &str,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        self.regenerate_with(session_id, TurnOptions::default(), sink)
            .await
    }

    /// [`regenerate`](Self::regenerate) asking `options.model` this once.
    pub async fn regenerate_with(
        &self,
        session_id: &str,
        options: TurnOptions,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        let slot = self.claim(session_id)?;
        let session = self.session_row(session_id).await?;
        let rows = self.root_rows(&session).await?;
        let Some(user) = rows.iter().rev().find(|r| r.role == Role::User) else {
            return Err(SessionError::NothingToDo(
                "nothing to regenerate: no message was sent yet".into(),
            ));
        };
        self.again(
            slot,
            session_id,
            Some(user.id),
            options.model.as_deref(),
            sink,
        )
        .await
    }

    /// Replaces the person's last message with `text` (dropping it and
    /// everything after it) and runs the turn.
    pub async fn edit_last_message(
        &self,
        session_id: &str,
        text: &str,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        self.edit_last_message_with(session_id, text, TurnOptions::default(), sink)
            .await
    }

    /// [`edit_last_message`](Self::edit_last_message) asking
    /// `options.model` this once.
    pub async fn edit_last_message_with(
        &self,
        session_id: &str,
        text: &str,
        options: TurnOptions,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        // One claim from reading the history, through the cut, to the end of
        // the new turn: no other send can slip in between.
        let slot = self.claim(session_id)?;
        let session = self.session_row(session_id).await?;
        let rows = self.root_rows(&session).await?;
        let Some(user) = rows.iter().rev().find(|r| r.role == Role::User) else {
            return Err(SessionError::NothingToDo(
                "nothing to edit: no message was sent yet".into(),
            ));
        };
        let prepared = self.prepare(session_id, options.model.as_deref()).await;
        let store = &self.inner.store;
        // With no usable provider the edited text still replaces the old
        // message, kept unsent with why (as a send keeps it), so Retry sends
        // it once a provider is set up; other refusals cut nothing.
        let cut = match &prepared {
            Ok(_) | Err(SessionError::NoProvider(_) | SessionError::Llm(_)) => true,
            Err(_) => false,
        };
        if cut {
            store
                .history()
                .truncate_after(session_id, user.id.saturating_sub(1))
                .await?;
            store.history().clear_errors(session_id).await?;
        }
        let prepared = match prepared {
            Ok(p) => p,
            Err(e) => {
                if cut {
                    self.keep_unsent(session_id, text, &e).await;
                }
                return Err(e);
            }
        };
        let turn = self.turn(&prepared, &sink);
        turn.emit(SessionEvent::TurnStarted {
            session_id: session_id.to_string(),
        });
        let result = self
            .user_turn(&turn, &prepared, text, slot.token.clone())
            .await;
        Ok(self.end_turn(&turn, result).await)
    }

    /// Cuts the history after message `drop_after` (when given), clears the
    /// errors and runs rounds without a new message from the person.
    async fn again(
        &self,
        slot: Slot<'_>,
        session_id: &str,
        drop_after: Option<i64>,
        model: Option<&str>,
        sink: impl EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        let prepared = self.prepare(session_id, model).await?;
        let store = &self.inner.store;
        if let Some(id) = drop_after {
            store.history().truncate_after(session_id, id).await?;
        }
        store.history().clear_errors(session_id).await?;
        let turn = self.turn(&prepared, &sink);
        turn.emit(SessionEvent::TurnStarted {
            session_id: session_id.to_string(),
        });
        let cancel = slot.token.clone();
        let result = async {
            store
                .stack()
                .set_status(prepared.frame.id, FrameStatus::Active)
                .await?;
            resume_session(&turn, cancel.clone()).await?;
            run_rounds(&turn, cancel).await
        }
        .await;
        Ok(self.end_turn(&turn, result).await)
    }

    /// Summarises every turn but the last with the session's model; later
    /// requests send the summary in their place (the person's "compact").
    /// The divider reaches every window through `ContextSummarized`.
    pub async fn compact(&self, session_id: &str) -> Result<SummaryView, SessionError> {
        self.compact_with(session_id, None).await
    }

    /// [`compact`](Self::compact) with `model` as the summariser (`None`: the default).
    pub async fn compact_with(
        &self,
        session_id: &str,
        model: Option<&str>,
    ) -> Result<SummaryView, SessionError> {
        let slot = self.claim(session_id)?;
        let p = self.prepare(session_id, model).await?;
        let store = &self.inner.store;
        let rows = store.history().list_for_frame(p.frame.id).await?;
        let previous = store.summaries().latest_for_frame(p.frame.id).await?;
        let visible = after(&rows, previous.as_ref());
        let Some(&cut) = cut_points(visible).last() else {
            return Err(SessionError::NothingToDo(
                "nothing to compact: only the last turn is left to send in full".into(),
            ));
        };
        let row = summary::summarise(
            Summarise {
                store,
                session_id,
                frame_id: p.frame.id,
                model: &p.model,
                window: Some(window_for(&self.inner, &p.model).await),
                previous: previous.as_ref(),
                rows: &visible[..cut],
                manual: true,
            },
            slot.token.clone(),
        )
        .await?;
        let view = summary::view(&row);
        self.inner.bus.publish(&SessionEvent::ContextSummarized {
            session_id: session_id.to_string(),
            summary: view.clone(),
        });
        Ok(view)
    }
}
