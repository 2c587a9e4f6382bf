//! `restart` and the [`RestartSignal`] it raises.
//!
//! The tool only *asks* for a restart: it raises the signal and returns. The
//! host (desktop app, CLI) waits on the signal and restarts once the call is
//! recorded as done, so the row never stays `running` across the restart.
//! This module must never exit or respawn the process itself.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, RestartHint, Tool, ToolCategory, ToolDescriptionLength, ToolError, ToolResult,
    input_schema, parse_args, truncate_label,
};
use tokio::sync::Notify;

use crate::ToolRegistry;
use crate::tool_names as tn;

/// Raised by the restart tool; the host restarts once the call is recorded.
/// Clones share one signal; `Default` makes a fresh, unraised one. Once
/// raised it stays raised.
#[derive(Clone, Default)]
pub struct RestartSignal {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    requested: AtomicBool,
    reason: Mutex<Option<String>>,
    notify: Notify,
}

impl RestartSignal {
    pub fn new() -> Self {
        Self::default()
    }

    /// Raises the signal and wakes every [`RestartSignal::wait`]er.
    pub fn request(&self) {
        self.inner.requested.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    /// Raises the signal, recording why (kept for the host's log).
    pub fn request_with_reason(&self, reason: impl Into<String>) {
        if let Ok(mut r) = self.inner.reason.lock() {
            *r = Some(reason.into());
        }
        self.request();
    }

    pub fn is_requested(&self) -> bool {
        self.inner.requested.load(Ordering::SeqCst)
    }

    /// The reason given with the request, if any.
    pub fn reason(&self) -> Option<String> {
        self.inner.reason.lock().ok().and_then(|r| r.clone())
    }

    /// Resolves once the signal is raised; at once if it already is.
    pub async fn wait(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            // Register before checking the flag so a request in between is
            // not missed.
            notified.as_mut().enable();
            if self.is_requested() {
                return;
            }
            notified.await;
        }
    }
}

/// Arguments of `restart`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RestartInput {
    /// Why the restart is needed, in a few words (shown to the user and logged).
    #[serde(default)]
    reason: Option<String>,
}

/// The `restart` tool.
pub struct Restart {
    signal: RestartSignal,
}

impl Restart {
    pub fn new(signal: RestartSignal) -> Self {
        Self { signal }
    }
}

/// Registers `restart`, raising `signal` when called.
pub fn register(registry: &mut ToolRegistry, signal: RestartSignal) {
    registry.register(Restart::new(signal));
}

/// What the model is told after a successful call.
pub const RESTART_REQUESTED: &str =
    "Restart requested; Skald will restart as soon as this call is recorded.";

impl Tool for Restart {
    fn name(&self) -> &str {
        tn::RESTART
    }

    fn description(&self) -> &str {
        "Restart Skald. Use only when the user asks you to restart the app, or after changing \
         configuration that takes effect only on restart. The restart happens right after this \
         call is recorded; the conversation continues afterwards."
    }

    fn parameters_schema(&self) -> Value {
        input_schema::<RestartInput>()
    }

    /// `restart` or `restart — <reason>`.
    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let reason = args
            .get("reason")
            .and_then(Value::as_str)
            .and_then(|r| r.lines().next())
            .map(str::trim)
            .filter(|r| !r.is_empty());
        let label = match reason {
            Some(r) => format!("{} — {r}", tn::RESTART),
            None => tn::RESTART.to_string(),
        };
        truncate_label(&label, length.max_chars())
    }

    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        parse_args::<RestartInput>(tn::RESTART, args.clone()).map(drop)
    }

    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let input: RestartInput = parse_args(tn::RESTART, args)?;
            match input
                .reason
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
            {
                Some(reason) => {
                    tracing::info!(reason = %reason, "restart: requested by the agent");
                    self.signal.request_with_reason(reason);
                }
                None => {
                    tracing::info!("restart: requested by the agent");
                    self.signal.request();
                }
            }
            Ok(RESTART_REQUESTED.to_string())
        })
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Shell
    }

    fn restart_hint(&self) -> RestartHint {
        RestartHint::Reask
    }
}
