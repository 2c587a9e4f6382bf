//! The Agent Inbox on [`ChatSessionHandler`]: every call waiting for a
//! person, across sessions, and the answers.
//!
//! Pending rows in the DB are the truth (`chat_llm_tools.status = pending`
//! with their stored decision reason and previews), so the Inbox survives a
//! restart. Answering a call a live turn waits on hands the answer to that
//! turn. Answering a call nobody waits on (the app restarted, or its turn
//! was dropped) settles it here, on its own session: approved → run through
//! the registry and `drive_execution`; rejected → recorded with the note;
//! either way the `tool` result is appended to the history and, when no
//! other approval of the session is pending and a provider resolves, the
//! turn is continued (the model answers). Without a provider the result is
//! only recorded, and the next turn (or `resume_all`) carries on from it.

use skald_protocol::{ApprovalResolution, PendingApprovalView, SessionEvent, TurnOutcome};
use skald_store::{FrameStatus, ToolCallStatus};

use crate::approval::{awaits_approval, request_of_row};
use crate::assemble::arguments_value;
use crate::calls::{apply_verdict, emit_start, record, run_tool};
use crate::error::SessionError;
use crate::events::EventSink;
use crate::gate::Verdict;
use crate::handler::ChatSessionHandler;
use crate::resume::resume_session;
use crate::sessions::session_workdir;
use crate::turn::run_rounds;
use skald_tools::fs::with_display_base;

impl ChatSessionHandler {
    /// Every call waiting for approval, across sessions, oldest first.
    pub async fn list_pending(&self) -> Result<Vec<PendingApprovalView>, SessionError> {
        let store = &self.inner.store;
        let rows = store
            .tool_calls()
            .list_by_status(&[ToolCallStatus::Pending])
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let live = self.inner.gate.is_waiting(&row.id);
            if !live && !awaits_approval(&row) {
                continue;
            }
            let session = store.sessions().get(&row.session_id).await?;
            let base = session.as_ref().and_then(|s| session_workdir(s).ok());
            let title = session.map(|s| s.title).unwrap_or_default();
            // The card as the call's own round would show it: a session
            // tool's labels and presentation come from that tool.
            let tools = self.tools_of_call(&row).await.map(|(t, _)| t);
            let request = with_display_base(base.as_deref(), || match &tools {
                Ok(tools) => request_of_row(tools, &row),
                Err(_) => request_of_row(self.inner.registry.as_ref(), &row),
            });
            out.push(PendingApprovalView {
                session_id: row.session_id.clone(),
                session_title: title,
                request,
                created_at: row.created_at,
                live,
            });
        }
        Ok(out)
    }

    /// Approves a pending call: it runs (see the module docs for a call no
    /// turn waits on). `sink` gets the events of a call settled here.
    pub async fn approve(
        &self,
        tool_call_id: &str,
        sink: impl EventSink,
    ) -> Result<ApprovalResolution, SessionError> {
        self.answer_approval(tool_call_id, Verdict::Allow, &sink)
            .await
    }

    /// Rejects a pending call; the model reads exactly "User rejected this
    /// tool call." plus " Reason: <note>" when a note is given.
    pub async fn reject(
        &self,
        tool_call_id: &str,
        note: Option<&str>,
        sink: impl EventSink,
    ) -> Result<ApprovalResolution, SessionError> {
        let verdict = Verdict::UserReject {
            note: note.map(str::to_string),
        };
        self.answer_approval(tool_call_id, verdict, &sink).await
    }

    async fn answer_approval(
        &self,
        id: &str,
        verdict: Verdict,
        sink: &dyn EventSink,
    ) -> Result<ApprovalResolution, SessionError> {
        if self.inner.gate.answer(id, verdict.clone()) {
            return Ok(ApprovalResolution::Live);
        }
        let store = &self.inner.store;
        let row = store.tool_calls().get(id).await?;
        // A rule or a bypass added while it waited let it through just
        // before this answer came ("always allow" adds its rule first): the
        // live turn runs it.
        if row.as_ref().is_some_and(|r| {
            !r.status.is_terminal()
                && r.decision.as_deref() == Some(crate::approval::DECISION_ALLOW)
        }) {
            return Ok(ApprovalResolution::Live);
        }
        let row = row
            .filter(|r| r.status == ToolCallStatus::Pending)
            .ok_or_else(|| SessionError::NoPendingApproval(id.to_string()))?;
        let slot = self.claim(&row.session_id)?;
        let cancel = slot.token.clone();
        // With a provider the turn is continued; without, only recorded.
        let prepared = match self.prepare(&row.session_id, None).await {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::info!(session = %row.session_id, error = %e,
                    "approval settled without continuing the turn");
                None
            }
        };
        let root;
        let turn = match &prepared {
            Some(p) => self.turn(p, sink),
            None => {
                root = self.root_of(&row.session_id).await?;
                self.inner.settling_turn(
                    &root.session,
                    &root.frame,
                    &root.session.agent_id,
                    &root.workdir,
                    sink,
                )
            }
        };
        if turn.model.is_some() {
            store
                .stack()
                .set_status(turn.frame_id, FrameStatus::Active)
                .await?;
            turn.emit(SessionEvent::TurnStarted {
                session_id: row.session_id.clone(),
            });
        }
        // A sub-agent's call is settled in its own frame; the root turn then
        // continues that sub-agent through the call that started it.
        let own_frame = match row.message_id {
            Some(m) => store.history().get(m).await?.and_then(|msg| msg.stack_id),
            None => None,
        };
        let child = match own_frame {
            Some(f) if f != turn.frame_id => store.stack().get(f).await?,
            _ => None,
        };
        let child_turn = child.as_ref().map(|f| {
            self.inner
                .settling_turn(turn.session, f, &f.agent_id, turn.workdir, sink)
        });
        let settle_in = child_turn.as_ref().unwrap_or(&turn);
        let result = async {
            let args = arguments_value(&row.arguments);
            let outcome = match apply_verdict(settle_in, id, verdict).await? {
                Some(outcome) => outcome,
                None => {
                    emit_start(settle_in, id, &row.name, args.clone());
                    run_tool(settle_in, &row.id, &row.name, args, cancel.clone()).await
                }
            };
            record(settle_in, id, outcome).await?;
            let still_waiting = store
                .tool_calls()
                .list_for_session(&row.session_id)
                .await?
                .iter()
                .any(|r| r.status == ToolCallStatus::Pending);
            if still_waiting || turn.model.is_none() {
                return Ok(TurnOutcome::Completed);
            }
            let report = resume_session(&turn, cancel.clone()).await?;
            if report.needs_answer {
                run_rounds(&turn, cancel).await
            } else {
                Ok(TurnOutcome::Completed)
            }
        }
        .await;
        if turn.model.is_some() {
            self.end_turn(&turn, result).await;
        } else {
            result?;
        }
        Ok(ApprovalResolution::Settled)
    }
}
