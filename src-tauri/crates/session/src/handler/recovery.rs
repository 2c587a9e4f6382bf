//! Crash recovery on the handler: repairing one session's interrupted calls
//! (`resume_pending_tools`), answering every interrupted session at start
//! (`resume_all`) and resuming one (`resume_session`).

use super::*;

impl ChatSessionHandler {
    /// Crash resume for one session: repairs its history so every tool call
    /// has a result, re-runs interrupted calls whose restart hint allows it
    /// and reports the others to the model as interrupted. Runs no LLM round.
    pub async fn resume_pending_tools(
        &self,
        session_id: &str,
        sink: impl EventSink,
    ) -> Result<ResumeReport, SessionError> {
        let slot = self.claim(session_id)?;
        let root = self.root_of(session_id).await?;
        let turn = self.inner.settling_turn(
            &root.session,
            &root.frame,
            &root.session.agent_id,
            &root.workdir,
            &sink,
        );
        resume_session(&turn, slot.token.clone()).await
    }

    /// On start: resumes every session a crash left mid-turn (a frame still
    /// active) or with unfinished tool calls, and answers the turns that were
    /// cut short (a trailing user message or tool results). Sessions resume
    /// side by side, so one waiting for a person holds up no other; a session
    /// that is busy or fails is logged and skipped.
    pub async fn resume_all(
        &self,
        model: Option<&str>,
        sink: impl EventSink,
    ) -> Result<Vec<ResumedSession>, SessionError> {
        let store = &self.inner.store;
        let with_pending: HashSet<String> = store
            .tool_calls()
            .list_by_status(&[ToolCallStatus::Running, ToolCallStatus::Pending])
            .await?
            .into_iter()
            .map(|r| r.session_id)
            .collect();
        let mut todo = Vec::new();
        for session in store.sessions().list().await? {
            // A task's session is the task machinery's: a crash ended its
            // run, which is reported, never continued (`recover_tasks`).
            if crate::tasks::is_background_session(session.run_context.as_ref()) {
                continue;
            }
            let interrupted = store
                .stack()
                .list_for_session(&session.id)
                .await?
                .iter()
                .any(|f| f.depth == 0 && f.status == FrameStatus::Active);
            if interrupted || with_pending.contains(&session.id) {
                todo.push((session.id, interrupted));
            }
        }
        // Side by side (a few at a time, not a stampede on the provider): a
        // session whose re-run call waits for a person in the Inbox must not
        // hold up the others.
        let sink: &dyn EventSink = &sink;
        // Owned ids and boxed futures: a closure borrowing `todo` would make
        // the stream's future lose `Send` for higher-ranked lifetimes.
        let resumes: Vec<BoxFuture<'_, (String, Result<ResumedSession, SessionError>)>> = todo
            .into_iter()
            .map(|(id, interrupted)| {
                Box::pin(async move {
                    let result = self.resume_one(&id, interrupted, model, sink).await;
                    (id, result)
                }) as BoxFuture<'_, _>
            })
            .collect();
        let results: Vec<_> = futures_util::stream::iter(resumes)
            .buffer_unordered(RESUME_AT_ONCE)
            .collect()
            .await;
        let mut out = Vec::new();
        for (id, result) in results {
            match result {
                Ok(r) => out.push(r),
                Err(e) => tracing::warn!(session = %id, error = %e, "resume failed"),
            }
        }
        Ok(out)
    }

    /// Resumes one session as [`resume_all`](Self::resume_all) would (after
    /// `skald answer` gave the answer its re-run call will find). `None`
    /// when another process runs the session: its waiting call has the
    /// answer within a poll.
    pub async fn resume_session(
        &self,
        session_id: &str,
        model: Option<&str>,
        sink: impl EventSink,
    ) -> Result<Option<ResumedSession>, SessionError> {
        let interrupted = self
            .inner
            .store
            .stack()
            .list_for_session(session_id)
            .await?
            .iter()
            .any(|f| f.depth == 0 && f.status == FrameStatus::Active);
        match self.resume_one(session_id, interrupted, model, &sink).await {
            Ok(r) => Ok(Some(r)),
            Err(SessionError::BusyElsewhere(_) | SessionError::Busy(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn resume_one(
        &self,
        session_id: &str,
        answer: bool,
        model: Option<&str>,
        sink: &dyn EventSink,
    ) -> Result<ResumedSession, SessionError> {
        let settle_only = |this: &Self| {
            let this = this.clone();
            async move {
                let report = this.resume_pending_tools(session_id, sink).await?;
                Ok::<_, SessionError>(ResumedSession {
                    session_id: session_id.to_string(),
                    report,
                    outcome: None,
                })
            }
        };
        if !answer {
            return settle_only(self).await;
        }
        let slot = self.claim(session_id)?;
        let prepared = match self.prepare(session_id, model).await {
            Ok(p) => p,
            Err(e) => {
                // No provider (or a broken agent) yet: settle the tool calls
                // now; the frame stays active, so a later start answers.
                tracing::warn!(session = %session_id, error = %e, "cannot answer the interrupted turn");
                drop(slot);
                return settle_only(self).await;
            }
        };
        let turn = self.turn(&prepared, sink);
        turn.emit(SessionEvent::TurnStarted {
            session_id: session_id.to_string(),
        });
        let cancel = slot.token.clone();
        let mut report = None;
        let result = async {
            let r = resume_session(&turn, cancel.clone()).await?;
            let needs_answer = r.needs_answer;
            report = Some(r);
            if needs_answer {
                run_rounds(&turn, cancel).await
            } else {
                Ok(TurnOutcome::Completed)
            }
        }
        .await;
        let outcome = self.end_turn(&turn, result).await;
        Ok(ResumedSession {
            session_id: session_id.to_string(),
            report: report.unwrap_or_default(),
            outcome: Some(outcome),
        })
    }
}
