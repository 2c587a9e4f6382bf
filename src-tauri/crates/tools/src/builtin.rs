//! The one static list of built-in tools. The app, the CLI and the catalogue
//! docs all come from [`builtin_registry`], so they cannot drift apart.

use std::collections::HashMap;
use std::sync::LazyLock;

use skald_core_api::ToolTraits;

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

/// What the built-in tool `name` declares it does to files (`traits()`),
/// default for any other name. For callers that judge a call by name alone
/// (rule tests, the CLI's stored calls); a round asks its `ToolSet`, which
/// knows every source's tools.
pub fn builtin_traits(name: &str) -> ToolTraits {
    static TRAITS: LazyLock<HashMap<String, ToolTraits>> = LazyLock::new(|| {
        builtin_registry(&BuiltinDeps::default())
            .all()
            .iter()
            .map(|t| (t.name().to_string(), t.traits()))
            .collect()
    });
    TRAITS.get(name).copied().unwrap_or_default()
}
