//! The session driver: [`ChatSessionHandler`] runs a person's message through
//! LLM rounds and tool calls, persisting every step to the store, streaming
//! [`SessionEvent`](skald_protocol::SessionEvent)s to an [`EventSink`],
//! stoppable at every step and resumable after a crash
//! ([`ChatSessionHandler::resume_pending_tools`], [`ChatSessionHandler::resume_all`]).
//!
//! It may depend on every library crate; nothing but the app and the CLI
//! depend on it. It must never depend on Tauri, and never lets a
//! `ToolExecution` near the DB: the driver mirrors state itself.

mod activate;
mod agent;
mod agents;
mod ahead;
mod approval;
mod assemble;
mod attention;
mod bus;
mod calls;
pub mod companion;
mod context;
mod delegation;
mod env_models;
mod environment;
mod error;
mod events;
mod gate;
mod handler;
mod ids;
mod images;
mod inbox;
mod interface;
mod known_tools;
mod mcp_requests;
pub mod notes;
#[cfg(feature = "test-support")]
pub mod proc_harness;
mod provider;
mod resume;
pub mod services;
mod sessions;
mod subagent;
pub mod tasks;
mod transcript;
mod turn;

pub use activate::{
    ALWAYS_ON_SETTING, ActivateTools, GroupLister, ToolGroup, always_on as mcp_always_on,
    set_always_on as set_mcp_always_on,
};
pub use agent::{AGENT_FILE, DEFAULT_AGENT, builtin_system_prompt, load_system_prompt};
pub use agents::{
    AgentCatalog, AgentDirs, AgentInfo, AgentMeta, AgentProblem, AgentSource, AgentType, META_FILE,
};
pub use approval::{
    ApprovalManager, CallCard, DECISION_ALLOW, DECISION_REQUIRE, approval_request, bootstrap,
};
pub use attention::{Attention, AttentionKind};
pub use bus::{Attached, SessionBus, session_of};
pub use companion::{CompanionTools, QuestionBoard};
pub use context::{CONTEXT_WINDOW_SETTING, DEFAULT_CONTEXT_WINDOW};
pub use env_models::{
    ENV_MODEL_SETTING, EnvEndpoint, EnvModelChoice, env_endpoints, env_model_choice, set_env_model,
};
pub use environment::environment_block;
pub use error::SessionError;
pub use events::{EventSink, FnSink, NullSink, RecordingSink};
pub use gate::{
    AllowAll, ApprovalGate, CallTool, GateCall, GateDecision, PendingApproval, Verdict,
};
pub use handler::{ChatSessionHandler, HandlerConfig, ResumedSession, SessionParams, TurnOptions};
pub use interface::{FrameContext, FrameEvents, InterfaceTools, current_call_id};
pub use known_tools::{StoreKnownTools, catalog_with_known};
pub use mcp_requests::{
    ALLOW_SAMPLING_SETTING, allow_sampling as mcp_allow_sampling,
    parse_reply as parse_elicitation_reply, set_allow_sampling as set_mcp_allow_sampling,
};
pub use notes::retry_line;
pub use provider::{DefaultProviderResolver, FixedProvider, ProviderResolver, ResolvedModel};
pub use resume::ResumeReport;
