//! The one static list of built-in tools. The app, the CLI and the catalogue
//! docs all come from [`builtin_registry`], so they cannot drift apart.

use crate::{ToolRegistry, ast_outline, exec, fs, restart};

/// What built-in tools need from their host.
#[derive(Clone, Default)]
pub struct BuiltinDeps {
    /// Raised by the `restart` tool; the host decides how to restart.
    pub restart: restart::RestartSignal,
}

/// A registry holding every built-in tool.
pub fn builtin_registry(deps: &BuiltinDeps) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    fs::register(&mut registry);
    ast_outline::register(&mut registry);
    exec::register(&mut registry);
    restart::register(&mut registry, deps.restart.clone());
    registry
}
