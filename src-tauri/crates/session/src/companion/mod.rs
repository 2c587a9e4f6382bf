//! The session's companion tools — the InterfaceTools that make an agent
//! work with the person rather than at them, each showing its state to the
//! person and letting them change it: `update_scratchpad` (the session's
//! shared, persisted blackboard, injected into every agent's requests),
//! `write_todos` (an agent's private checklist), `show_file_to_user` (opens
//! a file in the person's viewer) and `ask_user_clarification` (a question
//! that waits for the person's answer, across restarts).

mod api;
mod notify;
mod question;
mod scratchpad;
mod show_file;
mod todos;

use std::sync::Arc;

use skald_core_api::Tool;

use crate::interface::{FrameContext, InterfaceTools};

pub use notify::{
    BATCH_WINDOW, HOME_SESSION_KEY, Notification, NotificationQueue, NotifyTool, ReadNotification,
    may_notify,
};
pub use question::{AskUserClarification, QuestionBoard};
pub use scratchpad::{UpdateScratchpad, scratchpad_block};
pub use show_file::ShowFileToUser;
pub use todos::{Todo, TodoStatus, WriteTodos, parse_todos};

/// The agent kind that never gets person-facing tools (`ask_user_clarification`).
pub const SYSTEM_AGENT_PREFIX: &str = "system";

/// Whether `agent_id` names a hidden system agent.
pub fn is_system_agent(agent_id: &str) -> bool {
    agent_id == SYSTEM_AGENT_PREFIX
        || agent_id.starts_with("system/")
        || agent_id.starts_with("system-")
}

/// Builds the companion tools for every frame.
#[derive(Clone, Default)]
pub struct CompanionTools {
    pub(crate) questions: QuestionBoard,
    pub(crate) notifications: NotificationQueue,
}

impl CompanionTools {
    pub fn new(questions: QuestionBoard, notifications: NotificationQueue) -> Self {
        Self {
            questions,
            notifications,
        }
    }
}

impl CompanionTools {
    /// Every companion tool of frame `f`, each with whether `f` is offered it.
    fn all(&self, f: &FrameContext) -> Vec<(Arc<dyn Tool>, bool)> {
        vec![
            (
                Arc::new(UpdateScratchpad::new(f.store.clone(), f.session_id.clone())),
                true,
            ),
            (Arc::new(WriteTodos), true),
            (
                Arc::new(ShowFileToUser::new(
                    f.session_id.clone(),
                    f.working_dir.clone(),
                    f.events.clone(),
                )),
                true,
            ),
            (
                Arc::new(NotifyTool::new(self.notifications.clone())),
                may_notify(&f.agent_id, f.run_context.as_ref()),
            ),
            (Arc::new(ReadNotification), f.depth == 0),
            (
                Arc::new(AskUserClarification::new(f, self.questions.clone())),
                !is_system_agent(&f.agent_id),
            ),
        ]
    }

    fn of_frame(&self, f: &FrameContext, offered: bool) -> Vec<Arc<dyn Tool>> {
        self.all(f)
            .into_iter()
            .filter(|(_, o)| *o == offered)
            .map(|(t, _)| t)
            .collect()
    }
}

impl InterfaceTools for CompanionTools {
    fn build(&self, f: &FrameContext) -> Vec<Arc<dyn Tool>> {
        self.of_frame(f, true)
    }

    fn not_offered(&self, f: &FrameContext) -> Vec<Arc<dyn Tool>> {
        self.of_frame(f, false)
    }

    fn question_board(&self) -> Option<QuestionBoard> {
        Some(self.questions.clone())
    }

    fn notification_queue(&self) -> Option<NotificationQueue> {
        Some(self.notifications.clone())
    }
}
