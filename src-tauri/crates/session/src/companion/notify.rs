//! `notify(source, summary, event_type?, event_time?, refs?)` for background
//! and system agents, and their delivery: notifications arriving within
//! [`BATCH_WINDOW`] of the first are batched into the Home conversation as
//! one pre-completed `read_notification` call (`result_type` json), and the
//! Home session's root turn resumes to tell the person.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skald_core_api::{
    BoxFuture, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, TypedTool,
    truncate_label,
};
use skald_llm::ToolCall;
use skald_protocol::TurnOutcome;
use skald_store::{NewMessage, NewToolCall, Role, ToolCallStatus};
use skald_tools::tool_names as tn;
use tokio::sync::Notify;

use crate::attention::{Attention, AttentionKind};
use crate::error::SessionError;
use crate::events::EventSink;
use crate::ids::new_tool_call_id;
use crate::sessions::root_frame;
use crate::{ChatSessionHandler, SessionParams};

/// Notifications arriving this close to the first of a batch join it.
pub const BATCH_WINDOW: Duration = Duration::from_millis(200);
/// The setting naming the Home conversation's session.
pub const HOME_SESSION_KEY: &str = "home.session_id";
/// How long delivery waits for a busy Home session before trying again.
const BUSY_RETRY: Duration = Duration::from_millis(250);

/// One structured notification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Notification {
    /// Who noticed (`cron:backup`, `mail-watcher`).
    pub source: String,
    /// One or two sentences for the person.
    pub summary: String,
    /// A kind to group by (`job_failed`, `new_mail`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_type: Option<String>,
    /// When it happened (ISO 8601), if not now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_time: Option<String>,
    /// Paths, URLs or ids the person may want to open.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
}

/// The queue `notify` writes and delivery drains.
#[derive(Clone, Default)]
pub struct NotificationQueue {
    items: Arc<Mutex<Vec<Notification>>>,
    arrived: Arc<Notify>,
}

impl NotificationQueue {
    pub fn push(&self, n: Notification) {
        self.items
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(n);
        self.arrived.notify_one();
    }

    fn take(&self) -> Vec<Notification> {
        std::mem::take(&mut *self.items.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Waits for a notification, then for the batch window, and returns
    /// everything that arrived meanwhile.
    pub async fn next_batch(&self) -> Vec<Notification> {
        loop {
            let arrived = self.arrived.notified();
            let pending = !self
                .items
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_empty();
            if !pending {
                arrived.await;
            }
            tokio::time::sleep(BATCH_WINDOW).await;
            let batch = self.take();
            if !batch.is_empty() {
                return batch;
            }
        }
    }
}

/// What the person is shown of a delivered batch: its source and summary,
/// or how many arrived.
fn notification_attention(home: &str, batch: &[Notification]) -> Attention {
    let (title, body) = match batch {
        [one] => (one.source.clone(), one.summary.clone()),
        many => (
            format!("{} notifications", many.len()),
            many.iter()
                .map(|n| format!("{}: {}", n.source, n.summary))
                .collect::<Vec<_>>()
                .join(" · "),
        ),
    };
    Attention {
        kind: AttentionKind::Notification,
        session_id: home.to_string(),
        title: truncate_label(&title, 80),
        body: crate::attention::one_paragraph(&body),
    }
}

/// Whether a frame's agent may notify: background and system agents only
/// (a RunContext with `"background": true`, or a `system` agent).
pub fn may_notify(agent_id: &str, run_context: Option<&Value>) -> bool {
    super::is_system_agent(agent_id)
        || run_context
            .and_then(|c| c.get("background"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
}

#[derive(Clone)]
pub struct NotifyTool {
    queue: NotificationQueue,
}

impl NotifyTool {
    pub fn new(queue: NotificationQueue) -> Self {
        Self { queue }
    }
}

impl TypedTool for NotifyTool {
    type Input = Notification;

    fn name(&self) -> &str {
        tn::NOTIFY
    }

    fn description(&self) -> &str {
        "Tells the person about something that happened (a finished job, a failure, new \
         information): queued to the Home conversation, where the main agent tells them."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    fn validate(&self, n: &Notification) -> Result<(), ToolError> {
        if n.source.trim().is_empty() {
            return Err(self.invalid("source is empty"));
        }
        if n.summary.trim().is_empty() {
            return Err(self.invalid("summary is empty"));
        }
        Ok(())
    }

    fn run_async(&self, n: Notification) -> BoxFuture<'static, ToolResult> {
        self.queue.push(n);
        Box::pin(std::future::ready(Ok(
            "Queued for the person's Home conversation.".to_string(),
        )))
    }

    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        match args.get("summary").and_then(Value::as_str) {
            Some(s) => truncate_label(&format!("{} — {s}", tn::NOTIFY), length.max_chars()),
            None => tn::NOTIFY.to_string(),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {}

/// `read_notification`: root-only. Notifications arrive on their own, as
/// already-completed calls of this tool; calling it reads nothing new.
#[derive(Clone)]
pub struct ReadNotification;

impl TypedTool for ReadNotification {
    type Input = ReadInput;

    fn name(&self) -> &str {
        tn::READ_NOTIFICATION
    }

    fn description(&self) -> &str {
        "Notifications from background work arrive by themselves as results of this tool; tell \
         the person what they say. Calling it yourself returns nothing new."
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }

    fn root_agent_only(&self) -> bool {
        true
    }

    fn run_async(&self, _input: ReadInput) -> BoxFuture<'static, ToolResult> {
        Box::pin(std::future::ready(Ok("[]".to_string())))
    }
}

impl ChatSessionHandler {
    /// The queue `notify` writes to (delivered by [`run_notifications`](Self::run_notifications)).
    pub fn notifications(&self) -> &NotificationQueue {
        &self.inner.notifications
    }

    /// The Home conversation, created on first use.
    pub async fn home_session(&self) -> Result<String, SessionError> {
        let settings = self.inner.store.settings();
        if let Some(Value::String(id)) = settings.get(HOME_SESSION_KEY).await?
            && self.inner.store.sessions().get(&id).await?.is_some()
        {
            return Ok(id);
        }
        let s = self
            .create_session(SessionParams {
                title: Some("Home".into()),
                ..SessionParams::default()
            })
            .await?;
        settings
            .set(HOME_SESSION_KEY, &Value::String(s.id.clone()))
            .await?;
        Ok(s.id)
    }

    /// Delivers notifications for as long as it runs: each batch becomes a
    /// `read_notification` call in Home and the root turn resumes.
    pub async fn run_notifications(&self, sink: impl EventSink) {
        loop {
            let batch = self.inner.notifications.next_batch().await;
            if let Err(e) = self.deliver_notifications(&batch, &sink).await {
                tracing::warn!(error = %e, count = batch.len(), "notifications not delivered");
            }
        }
    }

    /// Writes one batch into Home as a completed `read_notification` call
    /// and runs the root agent's turn on it. Waits while Home is busy.
    pub async fn deliver_notifications(
        &self,
        batch: &[Notification],
        sink: &dyn EventSink,
    ) -> Result<TurnOutcome, SessionError> {
        let home = self.home_session().await?;
        loop {
            match self.claim(&home) {
                Ok(slot) => {
                    self.write_batch(&home, batch).await?;
                    // The person hears of it now, not once the model has
                    // put it into words.
                    self.request_attention(notification_attention(&home, batch));
                    let prepared = self.prepare(&home, None).await?;
                    let turn = self.turn(&prepared, sink);
                    turn.emit(skald_protocol::SessionEvent::TurnStarted {
                        session_id: home.clone(),
                    });
                    self.inner
                        .store
                        .stack()
                        .set_status(prepared.frame.id, skald_store::FrameStatus::Active)
                        .await?;
                    let result = crate::turn::run_rounds(&turn, slot.token.clone()).await;
                    return Ok(self.end_turn_quietly(&turn, result).await);
                }
                Err(SessionError::Busy(_) | SessionError::BusyElsewhere(_)) => {
                    tokio::time::sleep(BUSY_RETRY).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn write_batch(&self, home: &str, batch: &[Notification]) -> Result<(), SessionError> {
        let store = &self.inner.store;
        let session = self.session_row(home).await?;
        let frame = root_frame(store, &session).await?;
        let id = new_tool_call_id();
        let call = ToolCall {
            id: id.clone(),
            name: tn::READ_NOTIFICATION.to_string(),
            arguments: "{}".to_string(),
        };
        let message = store
            .history()
            .append(&NewMessage {
                session_id: home.to_string(),
                stack_id: Some(frame.id),
                role: Role::Assistant,
                content: String::new(),
                tool_calls: crate::assemble::tool_calls_json(&[call]),
                tool_call_id: None,
            })
            .await?;
        let result = serde_json::to_string(batch).unwrap_or_else(|_| "[]".into());
        store
            .tool_calls()
            .insert(&NewToolCall {
                id: id.clone(),
                session_id: home.to_string(),
                message_id: Some(message.id),
                name: tn::READ_NOTIFICATION.to_string(),
                arguments: "{}".to_string(),
                status: ToolCallStatus::Running,
            })
            .await?;
        store
            .tool_calls()
            .finish(&id, ToolCallStatus::Done, Some(&result), Some("json"))
            .await?;
        store
            .history()
            .append(&NewMessage {
                session_id: home.to_string(),
                stack_id: Some(frame.id),
                role: Role::Tool,
                content: result,
                tool_calls: None,
                tool_call_id: Some(id),
            })
            .await?;
        Ok(())
    }
}
