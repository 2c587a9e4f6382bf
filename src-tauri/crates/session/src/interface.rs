//! InterfaceTools: tools the session builds for one session or frame, with
//! what they need (session, frame, agent, depth, working directory, the
//! store) captured at build time — the spec's `execute_task`, `write_todos`,
//! `notify`, `show_file_to_user`, … A kind of them is one
//! [`InterfaceTools`] factory registered on the handler
//! ([`ChatSessionHandler::with_interface_tools`]); every round's
//! [`ToolSet`](skald_tools::ToolSet) gets what it builds, so the model can
//! call them, the gate sees their category and source, and their labels
//! and paths reach the cards like any built-in's.
//!
//! [`ChatSessionHandler::with_interface_tools`]: crate::ChatSessionHandler::with_interface_tools

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use skald_core_api::Tool;
use skald_protocol::SessionEvent;
use skald_store::Store;

/// Events a frame's tools raise (`OpenFile`); the turn sends them, in
/// order, to its sink and the session bus before its next event.
#[derive(Clone, Default)]
pub struct FrameEvents(Arc<Mutex<Vec<SessionEvent>>>);

impl FrameEvents {
    pub fn emit(&self, event: SessionEvent) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }

    pub(crate) fn take(&self) -> Vec<SessionEvent> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The id of the tool call whose execution is being polled, for a tool
/// that keys state by its call (a question asked once, re-asked after a
/// restart). `None` outside the driver.
pub use skald_core_api::current_call_id;

/// The frame a set of tools is built for.
#[derive(Clone)]
pub struct FrameContext {
    pub session_id: String,
    pub frame_id: i64,
    pub agent_id: String,
    /// 0 for the root agent.
    pub depth: u32,
    pub working_dir: PathBuf,
    /// The session's stored RunContext (JSON), inherited by its tasks.
    pub run_context: Option<serde_json::Value>,
    pub store: Store,
    /// Where the frame's tools raise events for the person's UI.
    pub events: FrameEvents,
}

/// Builds a kind of InterfaceTool for a frame.
pub trait InterfaceTools: Send + Sync {
    /// The tools `frame` is offered.
    fn build(&self, frame: &FrameContext) -> Vec<Arc<dyn Tool>>;

    /// The tools of this kind `frame` is not offered (they are another kind
    /// of agent's or session's). The frame's tool set still holds them, so
    /// a call of one — stored by another frame, or sent by a model that was
    /// not offered it — gets its label and path from the tool itself, and
    /// the catalogue lists them.
    fn not_offered(&self, _frame: &FrameContext) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }

    /// The lazy tool groups it offers, for the factory of `activate_tools`
    /// (`<!-- MCP_LIST -->` lists them).
    fn tool_groups(&self) -> Option<Vec<crate::ToolGroup>> {
        None
    }

    /// The board its questions wait on, for a factory that asks the person.
    fn question_board(&self) -> Option<crate::QuestionBoard> {
        None
    }

    /// The queue its notifications go to, for a factory that notifies.
    fn notification_queue(&self) -> Option<crate::companion::NotificationQueue> {
        None
    }
}

impl<F> InterfaceTools for F
where
    F: Fn(&FrameContext) -> Vec<Arc<dyn Tool>> + Send + Sync,
{
    fn build(&self, frame: &FrameContext) -> Vec<Arc<dyn Tool>> {
        self(frame)
    }
}
