//! `FakeProvider`: a scripted provider for driver tests, with no network at all.
//!
//! Each call to `stream` consumes the next scripted turn and replays it step by step (events,
//! errors, delays, or hanging forever so `/stop` can be tested), and records the request it
//! was given so tests can assert on what the driver sent.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::error::LlmError;
use crate::event::{StopReason, StreamEvent, Usage};
use crate::provider::{EventStream, LlmProvider};
use crate::types::ChatRequest;

/// One step of a scripted turn.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptStep {
    /// Yield this event.
    Event(StreamEvent),
    /// Yield this error; the stream ends.
    Error(LlmError),
    /// Wait this long before the next step.
    Delay(Duration),
    /// Never yield anything again (until the stream is dropped).
    Hang,
}

/// The scripted answer to one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScriptedTurn {
    /// The steps, in order.
    pub steps: Vec<ScriptStep>,
}

impl ScriptedTurn {
    /// An empty turn (add steps with the builder methods).
    pub fn new() -> Self {
        Self::default()
    }

    /// A complete text answer: the text, usage 10/5, `Done(EndTurn)`.
    pub fn text_reply(text: impl Into<String>) -> Self {
        Self::new()
            .text(text)
            .usage(10, 5)
            .done(StopReason::EndTurn)
    }

    /// A complete answer calling one tool: the call, usage 10/5, `Done(ToolUse)`.
    pub fn tool_reply(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self::new()
            .tool_call(0, id, name, arguments)
            .usage(10, 5)
            .done(StopReason::ToolUse)
    }

    /// Adds any event.
    pub fn event(mut self, event: StreamEvent) -> Self {
        self.steps.push(ScriptStep::Event(event));
        self
    }

    /// Adds a text delta.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.event(StreamEvent::TextDelta(text.into()))
    }

    /// Adds a reasoning delta.
    pub fn reasoning(self, text: impl Into<String>) -> Self {
        self.event(StreamEvent::ReasoningDelta(text.into()))
    }

    /// Adds a whole tool call at `index` as one delta.
    pub fn tool_call(
        self,
        index: usize,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        self.event(StreamEvent::ToolCallDelta {
            index,
            id: Some(id.into()),
            name: Some(name.into()),
            arguments_fragment: arguments.into(),
        })
    }

    /// Adds a bare argument fragment for the call at `index`.
    pub fn tool_fragment(self, index: usize, fragment: impl Into<String>) -> Self {
        self.event(StreamEvent::ToolCallDelta {
            index,
            id: None,
            name: None,
            arguments_fragment: fragment.into(),
        })
    }

    /// Adds a usage snapshot.
    pub fn usage(self, input_tokens: u64, output_tokens: u64) -> Self {
        self.event(StreamEvent::Usage(Usage {
            input_tokens,
            output_tokens,
            ..Usage::default()
        }))
    }

    /// Adds the final `Done`.
    pub fn done(self, stop_reason: StopReason) -> Self {
        self.event(StreamEvent::Done { stop_reason })
    }

    /// Adds an error (the stream ends there).
    pub fn error(mut self, error: LlmError) -> Self {
        self.steps.push(ScriptStep::Error(error));
        self
    }

    /// Adds a pause.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.steps.push(ScriptStep::Delay(delay));
        self
    }

    /// Hangs forever at this point (to test `/stop` during an LLM call).
    pub fn hang(mut self) -> Self {
        self.steps.push(ScriptStep::Hang);
        self
    }
}

/// A provider that replays [`ScriptedTurn`]s and records every request.
#[derive(Debug)]
pub struct FakeProvider {
    name: String,
    turns: Mutex<VecDeque<ScriptedTurn>>,
    requests: Mutex<Vec<ChatRequest>>,
    tool_images: AtomicBool,
    /// The context window it reports for every model (0: none).
    context_window: std::sync::atomic::AtomicU32,
}

impl Default for FakeProvider {
    /// A fake with an empty script.
    fn default() -> Self {
        Self::new([])
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl FakeProvider {
    /// A fake named `fake` that answers with `turns`, one per request.
    pub fn new(turns: impl IntoIterator<Item = ScriptedTurn>) -> Self {
        FakeProvider {
            name: "fake".into(),
            turns: Mutex::new(turns.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
            tool_images: AtomicBool::new(false),
            context_window: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// Plays a provider that takes images in tool results (default: one that does not).
    pub fn set_tool_images(&self, on: bool) {
        self.tool_images.store(on, Ordering::Relaxed);
    }

    /// Plays a provider reporting a context window of `tokens` for every model (`None`:
    /// reports none), so session tests can fill a small window.
    pub fn set_context_window(&self, tokens: Option<u32>) {
        self.context_window
            .store(tokens.unwrap_or(0), Ordering::Relaxed);
    }

    /// Appends a turn to the script.
    pub fn push_turn(&self, turn: ScriptedTurn) {
        lock(&self.turns).push_back(turn);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        lock(&self.requests).clone()
    }

    /// How many scripted turns are still unused.
    pub fn remaining_turns(&self) -> usize {
        lock(&self.turns).len()
    }
}

impl LlmProvider for FakeProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn accepts_tool_images(&self) -> bool {
        self.tool_images.load(Ordering::Relaxed)
    }

    fn context_window(&self, _model: &str) -> Option<u32> {
        Some(self.context_window.load(Ordering::Relaxed)).filter(|n| *n > 0)
    }

    /// Records `req` immediately and replays the next turn; without one the stream yields
    /// [`LlmError::ScriptExhausted`].
    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a> {
        lock(&self.requests).push(req.clone());
        let steps: VecDeque<ScriptStep> = match lock(&self.turns).pop_front() {
            Some(turn) => turn.steps.into(),
            None => VecDeque::from([ScriptStep::Error(LlmError::ScriptExhausted)]),
        };
        Box::pin(futures_util::stream::unfold(
            steps,
            |mut steps| async move {
                loop {
                    match steps.pop_front()? {
                        ScriptStep::Event(e) => return Some((Ok(e), steps)),
                        ScriptStep::Error(e) => {
                            steps.clear();
                            return Some((Err(e), steps));
                        }
                        ScriptStep::Delay(d) => tokio::time::sleep(d).await,
                        ScriptStep::Hang => std::future::pending::<()>().await,
                    }
                }
            },
        ))
    }
}
