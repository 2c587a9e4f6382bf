//! Human bypasses: "stop asking me about X for a while". In memory only,
//! set only by a person through the UI (no tool can reach this type), and
//! cleared when the session is stopped. A bypass turns a `require` into
//! `allow`; it never touches a `deny`.

use std::fmt;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use skald_core_api::{ToolCategory, ToolName};

use crate::call::CallContext;
use crate::decision::{Basis, Decision};
use crate::rule::Action;

/// Which calls a bypass covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "camelCase")]
pub enum BypassScope {
    /// Every tool.
    All,
    /// Tools of this category (the call must carry its category).
    Category(ToolCategory),
    /// Every tool of this MCP server (`mcp__<server>__*`).
    McpServer(String),
    /// One tool, by exact name.
    Tool(String),
}

impl BypassScope {
    /// Whether the scope covers `call`.
    pub fn covers(&self, call: &CallContext) -> bool {
        match self {
            BypassScope::All => true,
            BypassScope::Category(category) => call.category() == Some(*category),
            BypassScope::McpServer(server) => {
                ToolName::parse(call.tool()).mcp_server() == Some(server.as_str())
            }
            BypassScope::Tool(name) => call.tool() == name,
        }
    }
}

impl fmt::Display for BypassScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BypassScope::All => f.write_str("all tools"),
            BypassScope::Category(c) => write!(f, "category {}", c.as_str()),
            BypassScope::McpServer(s) => write!(f, "MCP server {s}"),
            BypassScope::Tool(t) => write!(f, "tool {t}"),
        }
    }
}

/// When a bypass stops applying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// At this monotonic instant.
    At(Instant),
    /// At this wall-clock time, unix milliseconds.
    UnixMs(i64),
}

/// "Now", on both clocks, passed in so evaluation stays pure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// The monotonic clock.
    pub instant: Instant,
    /// The wall clock, unix milliseconds.
    pub unix_ms: i64,
}

impl Now {
    /// The current time.
    pub fn current() -> Self {
        let unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Self {
            instant: Instant::now(),
            unix_ms,
        }
    }
}

/// One bypass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bypass {
    /// What it covers.
    pub scope: BypassScope,
    /// When it ends; `None` lasts until cleared.
    pub expires: Option<Expiry>,
}

impl Bypass {
    /// A bypass lasting until cleared.
    pub fn new(scope: BypassScope) -> Self {
        Self {
            scope,
            expires: None,
        }
    }

    /// The same bypass, ending at `expiry`.
    pub fn until(mut self, expiry: Expiry) -> Self {
        self.expires = Some(expiry);
        self
    }

    /// Whether it has ended (an expiry equal to `now` has).
    pub fn is_expired(&self, now: Now) -> bool {
        match self.expires {
            None => false,
            Some(Expiry::At(at)) => now.instant >= at,
            Some(Expiry::UnixMs(at)) => now.unix_ms >= at,
        }
    }
}

/// The bypasses a person has set on one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bypasses {
    list: Vec<Bypass>,
}

impl Bypasses {
    /// No bypasses.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one.
    pub fn add(&mut self, bypass: Bypass) {
        self.list.push(bypass);
    }

    /// Removes every bypass (the session was stopped).
    pub fn clear(&mut self) {
        self.list.clear();
    }

    /// Drops the bypasses that have ended.
    pub fn prune_expired(&mut self, now: Now) {
        self.list.retain(|b| !b.is_expired(now));
    }

    /// How many are set (expired ones included until pruned).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether none are set.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The bypasses, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &Bypass> {
        self.list.iter()
    }

    /// The first live bypass covering `call`.
    pub fn covering(&self, call: &CallContext, now: Now) -> Option<&Bypass> {
        self.list
            .iter()
            .find(|b| !b.is_expired(now) && b.scope.covers(call))
    }

    /// `decision`, with a `require` turned into `allow` when a live bypass
    /// covers the call. `allow` and `deny` pass through unchanged.
    pub fn apply(&self, decision: Decision, call: &CallContext, now: Now) -> Decision {
        match decision.action {
            Action::Allow | Action::Deny => decision,
            Action::Require => match self.covering(call, now) {
                Some(bypass) => {
                    let how = format!("a bypass ({})", bypass.scope);
                    decision.allowed_instead(Basis::Bypass(bypass.scope.clone()), &how)
                }
                None => decision,
            },
        }
    }
}
