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
use std::sync::Arc;

use skald_core_api::Tool;
use skald_store::Store;

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
}

/// Builds a kind of InterfaceTool for a frame.
pub trait InterfaceTools: Send + Sync {
    fn build(&self, frame: &FrameContext) -> Vec<Arc<dyn Tool>>;
}

impl<F> InterfaceTools for F
where
    F: Fn(&FrameContext) -> Vec<Arc<dyn Tool>> + Send + Sync,
{
    fn build(&self, frame: &FrameContext) -> Vec<Arc<dyn Tool>> {
        self(frame)
    }
}
