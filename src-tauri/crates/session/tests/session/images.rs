//! Result images in the requests a real OpenAI-compatible client sends (the
//! JSON the mock server received): sent while recent, a note once older;
//! shrunk under the provider's limit; not sent at all when the person
//! turned images off for the model.

use std::io::Cursor;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use skald_core_api::{
    BoxFuture, ContentBlock, SimpleExecution, Tool, ToolCategory, ToolError, ToolExecution,
    ToolOutput, ToolResult,
};
use skald_llm::{ChatRequest, EventStream, LlmProvider, OpenAiCompatible};
use skald_llm_mock::{MockServer, sse_text, sse_tool_call};
use skald_protocol::TurnOutcome;
use skald_session::{
    ChatSessionHandler, FixedProvider, FrameContext, InterfaceTools, RecordingSink,
};
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::*;

const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// A noisy PNG (PNG cannot compress it away) of `side` × `side`, base64.
fn noise_png(side: u32) -> String {
    let img = image::RgbImage::from_fn(side, side, |x, y| {
        let v = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) as u8;
        image::Rgb([v, v.wrapping_mul(3), v.wrapping_add(y as u8)])
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    STANDARD.encode(out)
}

/// A tool whose result is "snapped" and one PNG.
struct Snap(String);

impl Tool for Snap {
    fn name(&self) -> &str {
        "snap"
    }
    fn description(&self) -> &str {
        "Takes a picture."
    }
    fn parameters_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Introspection
    }
    fn execute_async<'a>(&'a self, _args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(Ok("snapped".to_string())))
    }
    fn run<'a>(&'a self, _args: Value) -> Box<dyn ToolExecution + 'a> {
        let data = self.0.clone();
        Box::new(SimpleExecution::new(Box::pin(async move {
            Ok::<_, ToolError>(ToolOutput::text("snapped").with_block(ContentBlock::Image {
                mime: "image/png".into(),
                data_base64: data,
            }))
        })))
    }
}

/// The OpenAI-compatible client with a smaller image limit.
struct Limited(OpenAiCompatible, usize);

impl LlmProvider for Limited {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a> {
        self.0.stream(req)
    }
    fn accepts_tool_images(&self) -> bool {
        self.0.accepts_tool_images()
    }
    fn max_tool_image_bytes(&self) -> usize {
        self.1
    }
}

/// A handler whose model is the mock behind the real client (image limit
/// `limit`), with the snap tool returning `png`.
fn handler(e: &Env, mock: &MockServer, limit: usize, png: String) -> ChatSessionHandler {
    let client = OpenAiCompatible::new(mock.base_url(), Some("test-key".into())).unwrap();
    let provider: Arc<dyn LlmProvider> = Arc::new(Limited(client, limit));
    let png = Arc::new(png);
    let snaps = move |_f: &FrameContext| -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(Snap(png.as_ref().clone()))]
    };
    ChatSessionHandler::new(
        e.store.clone(),
        Arc::new(builtin_registry(&BuiltinDeps::default())),
        Arc::new(FixedProvider::new(provider, "test-model")),
        e.dir.path().canonicalize().unwrap().join("agents"),
    )
    .with_interface_tools(Arc::new(snaps) as Arc<dyn InterfaceTools>)
}

/// The `image_url` URLs of a request body, in order.
fn image_urls(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|p| p["type"] == "image_url")
        .map(|p| p["image_url"]["url"].as_str().unwrap().to_string())
        .collect()
}

/// The content of the `tool` message answering `id`.
fn tool_content(request: &Value, id: &str) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn say(h: &ChatSessionHandler, sid: &str, text: &str) {
    let outcome = h
        .send_message(sid, text, RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
}

#[tokio::test]
async fn an_image_is_sent_while_recent_and_named_once_older() {
    let e = env([]).await;
    let mock = MockServer::start([
        sse_tool_call("s1", "snap", "{}"),
        sse_text("A pixel."),
        sse_text("Still a pixel."),
        sse_text("Something else."),
    ])
    .unwrap();
    let h = handler(&e, &mock, 5 * 1024 * 1024, PIXEL.into());
    let sid = e.session().await;
    say(&h, &sid, "snap").await;
    say(&h, &sid, "and?").await;
    say(&h, &sid, "new topic").await;
    let reqs = mock.bodies();
    assert_eq!(reqs.len(), 4);
    let url = format!("data:image/png;base64,{PIXEL}");
    // The round after the call, and the next turn: sent.
    assert_eq!(image_urls(&reqs[1]), vec![url.clone()]);
    assert_eq!(image_urls(&reqs[2]), vec![url]);
    // Two user messages later: words instead.
    assert!(image_urls(&reqs[3]).is_empty(), "{}", reqs[3]);
    assert_eq!(
        tool_content(&reqs[3], "s1"),
        "snapped\n[image: image/png, 1 KB, shown to the model earlier]"
    );
}

#[tokio::test]
async fn an_image_over_the_providers_limit_is_shrunk_to_fit() {
    let e = env([]).await;
    let mock = MockServer::start([sse_tool_call("s1", "snap", "{}"), sse_text("Noise.")]).unwrap();
    let big = noise_png(400);
    let limit = 40 * 1024;
    assert!(STANDARD.decode(&big).unwrap().len() > limit);
    let h = handler(&e, &mock, limit, big);
    let sid = e.session().await;
    say(&h, &sid, "snap").await;
    let urls = image_urls(&mock.bodies()[1]);
    assert_eq!(urls.len(), 1);
    let data = urls[0]
        .strip_prefix("data:image/jpeg;base64,")
        .unwrap_or_else(|| panic!("not a JPEG: {}", &urls[0][..40]));
    let bytes = STANDARD.decode(data).unwrap();
    assert!(bytes.len() <= limit, "{} bytes", bytes.len());
    assert!(image::load_from_memory(&bytes).unwrap().width() < 400);
}

#[tokio::test]
async fn an_image_that_cannot_fit_is_named_with_why() {
    let e = env([]).await;
    let mock = MockServer::start([sse_tool_call("s1", "snap", "{}"), sse_text("Hm.")]).unwrap();
    let h = handler(&e, &mock, 16, noise_png(64));
    let sid = e.session().await;
    say(&h, &sid, "snap").await;
    let req = &mock.bodies()[1];
    assert!(image_urls(req).is_empty());
    let content = tool_content(req, "s1");
    assert!(
        content.starts_with("snapped\n[image: image/png,")
            && content.ends_with(
                "not sent to the model: it could not be shrunk under the provider's 1 KB]"
            ),
        "{content}"
    );
}

#[tokio::test]
async fn the_send_images_setting_keeps_images_from_one_model() {
    let e = env([]).await;
    let mock = MockServer::start([
        sse_tool_call("s1", "snap", "{}"),
        sse_text("A pixel."),
        sse_tool_call("s2", "snap", "{}"),
        sse_text("Another."),
    ])
    .unwrap();
    let h = handler(&e, &mock, 5 * 1024 * 1024, PIXEL.into());
    let sid = e.session().await;
    skald_session::services::providers::set_send_images(
        &e.store,
        "openai",
        "test-model",
        Some(false),
    )
    .await
    .unwrap();
    assert_eq!(
        skald_session::services::providers::send_images(&e.store, "openai", "test-model")
            .await
            .unwrap(),
        Some(false)
    );
    say(&h, &sid, "snap").await;
    let req = &mock.bodies()[1];
    assert!(image_urls(req).is_empty(), "{req}");
    assert_eq!(tool_content(req, "s1"), "snapped\n[image: image/png, 0 KB]");

    // Back to the default: the provider takes images, so they go.
    skald_session::services::providers::set_send_images(&e.store, "openai", "test-model", None)
        .await
        .unwrap();
    say(&h, &sid, "snap again").await;
    // Both calls answer one of the last two user messages: both images go.
    let req = &mock.bodies()[3];
    let url = format!("data:image/png;base64,{PIXEL}");
    assert_eq!(image_urls(req), vec![url.clone(), url]);
}
