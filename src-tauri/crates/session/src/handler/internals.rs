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
        // An explicit model (`--model`) wins; else the chat's own pick; else the default.
        let model = match (model, &session.model) {
            (None, Some(pick)) => self.inner.providers.resolve_pick(pick).await?,
            (model, _) => self.inner.providers.resolve(model).await?,
        };
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

    /// A session's root frame and working directory, for a turn without a
    /// model (see [`Inner::settling_turn`]).
    pub(crate) async fn root_of(&self, session_id: &str) -> Result<RootOf, SessionError> {
        let session = self.session_row(session_id).await?;
        let frame = root_frame(&self.inner.store, &session).await?;
        let workdir = session_workdir(&session)?;
        Ok(RootOf {
            session,
            frame,
            workdir,
        })
    }

    /// The frame a stored call was made in (a sub-agent's, or the root),
    /// with its session and working directory.
    pub(crate) async fn frame_of_call(&self, row: &ToolCallRow) -> Result<RootOf, SessionError> {
        let mut at = self.root_of(&row.session_id).await?;
        let store = &self.inner.store;
        let own = match row.message_id {
            Some(m) => store.history().get(m).await?.and_then(|msg| msg.stack_id),
            None => None,
        };
        if let Some(f) = own.filter(|f| *f != at.frame.id)
            && let Some(frame) = store.stack().get(f).await?
        {
            at.frame = frame;
        }
        Ok(at)
    }

    /// The tools of the frame a stored call was made in, as its round would
    /// offer them now (InterfaceTools and other sources included), with that
    /// frame's agent: what judges or shows a call outside a live turn.
    pub(crate) async fn tools_of_call(
        &self,
        row: &ToolCallRow,
    ) -> Result<(ToolSet, String), SessionError> {
        let at = self.frame_of_call(row).await?;
        let tools = self.inner.toolset(
            &at.session,
            at.frame.id,
            frame_depth(&at.frame),
            &at.frame.agent_id,
            &at.workdir,
        );
        Ok((tools, at.frame.agent_id))
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

/// A session with one of its frames and its working directory.
pub(crate) struct RootOf {
    pub session: SessionRow,
    pub frame: StackFrameRow,
    pub workdir: PathBuf,
}

impl Inner {
    /// A turn without a model in `frame`: what settles stored calls outside
    /// a live turn (crash repair, an Inbox answer nobody waits on). A
    /// sub-agent's frame raises its events nested under the call that
    /// started it.
    pub(crate) fn settling_turn<'a>(
        &'a self,
        session: &'a SessionRow,
        frame: &StackFrameRow,
        agent_id: &'a str,
        workdir: &'a std::path::Path,
        sink: &'a dyn EventSink,
    ) -> Turn<'a> {
        let depth = frame_depth(frame);
        let (tools, events) = self.frame_tools(session, frame.id, depth, agent_id, workdir);
        Turn {
            inner: self,
            session,
            frame_id: frame.id,
            agent_id,
            depth,
            scope: (depth > 0).then(|| crate::turn::Scope {
                parent_call_id: frame.parent_call_id.clone().unwrap_or_default(),
            }),
            workdir,
            tools,
            events,
            system: "",
            model: None,
            sink,
        }
    }
}
