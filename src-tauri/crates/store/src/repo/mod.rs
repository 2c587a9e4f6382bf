//! One repository per aggregate. Each is a small struct holding a pool clone,
//! obtained from [`crate::Store`]; none of them knows about the others' tables
//! beyond the foreign keys the schema declares.

pub mod approval;
pub mod clarifications;
pub mod grants;
pub mod history;
pub mod jobs;
pub mod known_tools;
pub mod mcp_servers;
pub mod providers;
pub mod scratchpad;
pub mod secrets;
pub mod sessions;
pub mod settings;
pub mod stack;
pub mod summaries;
pub mod tool_calls;
