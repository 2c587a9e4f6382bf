//! The tool set of a frame: the registry, the other sources, the
//! session's own tools (`execute_task`, `list_items`, …) and the
//! InterfaceTools built for the frame — with the session's tools the frame
//! is not offered held only to label their calls — and the catalogue of
//! the session's own tools derived from the same set.

use std::sync::Arc;

use skald_core_api::Tool;
use skald_protocol::{ToolInfo, ToolKind};
use skald_store::SessionRow;
use skald_tools::{ItemSource, ToolSet};

use super::Inner;
use crate::interface::{FrameContext, FrameEvents};

impl Inner {
    /// The tools of a frame's round: the registry, the other sources, the
    /// session's own (`execute_task`, `list_items`), then the InterfaceTools built for the
    /// frame. Which of them a sub-agent is offered is the audience's call
    /// (no `root_agent_only`, plus `sub_agents_only`), each once by name.
    pub(crate) fn toolset(
        &self,
        session: &SessionRow,
        frame_id: i64,
        depth: u32,
        agent_id: &str,
        workdir: &std::path::Path,
    ) -> ToolSet {
        self.frame_tools(session, frame_id, depth, agent_id, workdir)
            .0
    }

    /// [`toolset`](Self::toolset) and where its tools raise events.
    pub(crate) fn frame_tools(
        &self,
        session: &SessionRow,
        frame_id: i64,
        depth: u32,
        agent_id: &str,
        workdir: &std::path::Path,
    ) -> (ToolSet, FrameEvents) {
        let frame = FrameContext {
            session_id: session.id.clone(),
            frame_id,
            agent_id: agent_id.to_string(),
            depth,
            working_dir: workdir.to_path_buf(),
            run_context: session.run_context.clone(),
            store: self.store.clone(),
            events: FrameEvents::default(),
        };
        (self.tools_of(&frame), frame.events)
    }

    /// The tool set of `frame`: what it is offered, plus the session's
    /// tools it is not (to label their calls).
    fn tools_of(&self, frame: &FrameContext) -> ToolSet {
        use skald_tools::source::{HISTORY, SYNTHETIC};
        let mut set = ToolSet::new();
        set.add_source(self.registry.as_ref());
        for s in &self.sources {
            set.add_source(s.as_ref());
        }
        // Background sessions get `execute_subtask` (sync only) instead of
        // `execute_task`; only interactive ones read (never) agent results.
        let background = crate::tasks::is_background_session(frame.run_context.as_ref());
        let delegation = |subtask: bool| {
            crate::subagent::tool_for(
                &frame.agent_id,
                frame.depth,
                self.config.max_task_depth,
                &self.agents,
                subtask,
                &self.tasks.time_zone(),
            )
        };
        set.add(delegation(background), SYNTHETIC);
        set.add_described(delegation(!background), SYNTHETIC);
        let read_result: Arc<dyn Tool> = Arc::new(crate::tasks::ReadAgentResult);
        if background {
            set.add_described(read_result, SYNTHETIC);
        } else {
            set.add(read_result, SYNTHETIC);
        }
        let cron: Arc<dyn ItemSource> = Arc::new(crate::tasks::CronItems(self.me.clone()));
        let mut listed: Vec<Arc<dyn ItemSource>> = vec![
            Arc::new(crate::tasks::AgentItems(self.agents.clone())),
            cron.clone(),
        ];
        listed.extend(self.items.iter().cloned());
        let mut toggled = vec![cron];
        toggled.extend(self.items.iter().filter(|i| i.toggles()).cloned());
        set.add(Arc::new(skald_tools::ListItems::new(listed)), SYNTHETIC);
        set.add(Arc::new(skald_tools::ToggleItem::new(toggled)), SYNTHETIC);
        set.add(
            Arc::new(crate::tasks::DeleteCronJob::new(self.me.clone())),
            SYNTHETIC,
        );
        for f in &self.interface {
            for tool in f.build(frame) {
                set.add(tool, SYNTHETIC);
            }
        }
        for f in &self.interface {
            for tool in f.not_offered(frame) {
                set.add_described(tool, SYNTHETIC);
            }
        }
        // Records only: a task's delivered ending, a legacy name.
        set.add_described(Arc::new(crate::tasks::TaskCompleted), HISTORY);
        set.add_described(Arc::new(crate::delegation::LegacyRunSubtask), HISTORY);
        set
    }

    /// Every tool the session driver builds besides the registry and its
    /// other sources, offered to some frame or other, as each declares
    /// itself: the catalogue's synthetic tools.
    pub(super) fn synthetic_tools(&self) -> Vec<ToolInfo> {
        let frame = FrameContext {
            // A frame of no session: only what the tools say of themselves
            // is read.
            session_id: String::new(),
            frame_id: 0,
            agent_id: String::new(),
            depth: 0,
            working_dir: std::path::PathBuf::from("/"),
            run_context: None,
            store: self.store.clone(),
            events: FrameEvents::default(),
        };
        self.tools_of(&frame)
            .every_tool()
            .into_iter()
            .filter(|(_, source)| *source == skald_tools::source::SYNTHETIC)
            .map(|(tool, _)| skald_tools::tool_info(tool.as_ref(), ToolKind::Synthetic))
            .collect()
    }
}
