//! The handler's internals: claiming a session's slot (and its cross-process
//! lease), preparing a turn (agent, model, tools of the frame) and building
//! the per-frame `Turn`.

use super::*;

impl ChatSessionHandler {
    pub(crate) fn claim(&self, session_id: &str) -> Result<Slot<'_>, SessionError> {
        let mut active = self
            .inner
            .active
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if active.contains_key(session_id) {
            return Err(SessionError::Busy(session_id.to_string()));
        }
        // Another process (the app, another `skald`) may be mid-turn here:
        // its running calls are not a crash to repair, nor a slot to share.
        let lease = match self.inner.store.try_lease_session(session_id) {
            Ok(Some(lease)) => Some(lease),
            Ok(None) => return Err(SessionError::BusyElsewhere(session_id.to_string())),
            Err(e) => {
                tracing::warn!(session = %session_id, error = %e, "cannot take the session's lease; going on without it");
                None
            }
        };
        let token = CancellationToken::new();
        active.insert(session_id.to_string(), token.clone());
        Ok(Slot {
            inner: &self.inner,
            session_id: session_id.to_string(),
            token,
            lease,
        })
    }

    pub(crate) async fn session_row(&self, session_id: &str) -> Result<SessionRow, SessionError> {
        self.inner
            .store
            .sessions()
            .get(session_id)
            .await?
            .ok_or_else(|| SessionError::SessionNotFound(session_id.to_string()))
    }

    /// Everything a turn needs before it may start; any failure here is an
    /// error of `send_message`, with nothing written.
    pub(crate) async fn prepare(
        &self,
        session_id: &str,
        model: Option<&str>,
    ) -> Result<Prepared, SessionError> {
        let session = self.session_row(session_id).await?;
        let workdir = session_workdir(&session)?;
        let mcp_list = self.inner.mcp_list(&session.id).await?;
        let system = with_extra_prompt(
            with_environment(
                self.inner.agents.catalog().system_prompt_with(
                    &session.agent_id,
                    &workdir,
                    &mcp_list,
                )?,
                &workdir,
            ),
            &session,
        );
        let model = self.inner.providers.resolve(model).await?;
        let frame = root_frame(&self.inner.store, &session).await?;
        // The turn's tool set is built once: servers it was granted that
        // are still connecting get their timeout to come up first.
        if !self.inner.sources.is_empty() {
            let grants: Vec<String> = crate::activate::granted(
                &self.inner.store,
                &session.id,
                frame.id,
                frame_depth(&frame),
            )
            .await?
            .into_iter()
            .collect();
            for s in &self.inner.sources {
                s.prepare(&grants).await;
            }
        }
        Ok(Prepared {
            session,
            frame,
            workdir,
            system,
            model,
        })
    }

    pub(crate) fn turn<'a>(&'a self, p: &'a Prepared, sink: &'a dyn EventSink) -> Turn<'a> {
        let (tools, events) = self.inner.frame_tools(
            &p.session,
            p.frame.id,
            frame_depth(&p.frame),
            &p.session.agent_id,
            &p.workdir,
        );
        Turn {
            inner: &self.inner,
            session: &p.session,
            frame_id: p.frame.id,
            agent_id: &p.session.agent_id,
            depth: 0,
            scope: None,
            workdir: &p.workdir,
            tools,
            events,
            system: &p.system,
            model: Some(&p.model),
            sink,
        }
    }
}
