//! `LlmProvider`: the one trait every chat model backend implements.

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;

use crate::accumulator::{AssistantResponse, ResponseAccumulator};
use crate::error::LlmError;
use crate::event::StreamEvent;
use crate::types::ChatRequest;

/// The stream of a response: deltas, then `Usage`, then `Done` — or an error.
/// After an `Err` the stream ends.
pub type EventStream<'a> = BoxStream<'a, Result<StreamEvent, LlmError>>;

/// A chat model backend that streams its answer.
///
/// Dropping the returned stream aborts the HTTP request (that is how `/stop` drops an
/// in-flight call); nothing keeps running in the background.
pub trait LlmProvider: Send + Sync {
    /// A short name for logs and error messages (`openai`, `anthropic`, `ollama`, ...).
    fn name(&self) -> &str;

    /// Starts a streamed completion. Retriable failures that happen before the first event are
    /// retried inside the stream according to the provider's retry policy.
    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a>;

    /// Whether images in tool results ([`Message::Tool`](crate::Message::Tool)`.images`)
    /// reach the model. Without, the session describes each image in words instead.
    fn accepts_tool_images(&self) -> bool {
        false
    }

    /// The context window of `model` in tokens, when this provider knows it (reported by its
    /// model list, or set on a test fake). `None`: ask [`crate::known_context_window`].
    fn context_window(&self, _model: &str) -> Option<u32> {
        None
    }

    /// Asks the endpoint for `model`'s context window (its model list or model details;
    /// see [`crate::model_context_window`]). `None`: it does not say, or cannot be asked.
    /// One request each call: callers cache the answer.
    fn discover_context_window<'a>(&'a self, _model: &'a str) -> BoxFuture<'a, Option<u32>> {
        Box::pin(async { None })
    }

    /// The largest image, in bytes, the provider takes (larger ones are shrunk or named
    /// in words by the session). Anthropic documents 5 MB per image, OpenAI 20 MB; the
    /// smaller is the default.
    fn max_tool_image_bytes(&self) -> usize {
        5 * 1024 * 1024
    }
}

/// Runs a whole request and folds it into the final response; `Err` on the first error.
pub async fn complete(
    provider: &dyn LlmProvider,
    req: &ChatRequest,
) -> Result<AssistantResponse, LlmError> {
    let mut acc = ResponseAccumulator::new();
    let mut stream = provider.stream(req);
    while let Some(event) = stream.next().await {
        acc.push(&event?);
    }
    Ok(acc.finish())
}
