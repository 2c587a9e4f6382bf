//! The tools: [`ToolRegistry`] (the built-in catalogue entries), [`ToolCatalog`]
//! (registry + synthetic + MCP), [`ToolDiscovery`] (every tool ever offered,
//! recorded for gating), the [`tool_names`] constants, and every built-in tool
//! with the filesystem path policy they share.
//!
//! This crate must never touch the database or the UI directly: discovery
//! writes through a [`KnownToolsSink`] and tools return strings.

pub mod ast_outline;
mod builtin;
mod catalog;
mod discovery;
pub mod exec;
pub mod fs;
mod items;
mod registry;
pub mod restart;
pub mod tool_names;
mod toolset;

pub use builtin::{BuiltinDeps, builtin_registry, builtin_traits};
pub use catalog::{McpToolSource, ToolCatalog};
pub use discovery::{DiscoveredTool, KnownToolsSink, ToolDiscovery};
pub use items::{ItemSource, ListItems, ToggleItem};
pub use registry::{ToolRegistry, tool_info};
pub use toolset::{Audience, CallLabels, ToolSet, ToolSource, source};
