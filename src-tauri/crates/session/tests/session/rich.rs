//! Rich results and live progress: a tool's image reaches the model as its
//! provider accepts it (an image, or words), is stored with the call and
//! comes back from history after the store is reopened; `execute_cmd`
//! streams its output to its card before its result, which is unchanged.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use skald_core_api::{
    BoxFuture, ContentBlock, SimpleExecution, Tool, ToolCategory, ToolError, ToolExecution,
    ToolOutput, ToolResult,
};
use skald_llm::{ImagePart, LlmProvider, Message, ScriptedTurn};
use skald_protocol::{SessionEvent, TurnOutcome};
use skald_session::{
    ChatSessionHandler, FixedProvider, FrameContext, InterfaceTools, RecordingSink,
};
use skald_store::Store;
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::*;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn image() -> ContentBlock {
    ContentBlock::Image {
        mime: "image/png".into(),
        data_base64: PNG.into(),
    }
}

/// A tool whose result is a text, an image and a link to a file.
struct Snap;

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
        Box::new(SimpleExecution::new(Box::pin(async {
            Ok::<_, ToolError>(ToolOutput::text("snapped").with_block(image()).with_block(
                ContentBlock::ResourceLink {
                    uri: "/w/snap.png".into(),
                    name: None,
                    mime: Some("image/png".into()),
                },
            ))
        })))
    }
}

fn snaps(_f: &FrameContext) -> Vec<Arc<dyn Tool>> {
    vec![Arc::new(Snap)]
}

fn turns() -> Vec<ScriptedTurn> {
    vec![
        ScriptedTurn::tool_reply("s1", "snap", "{}"),
        ScriptedTurn::text_reply("A pixel."),
    ]
}

/// Runs one snap turn against a provider that does or does not take
/// images; the request after the call.
async fn snap_turn(images: bool) -> (Env, String, RecordingSink, Message) {
    let e = env(turns()).await;
    e.fake.set_tool_images(images);
    let handler = e
        .handler
        .clone()
        .with_interface_tools(Arc::new(snaps) as Arc<dyn InterfaceTools>);
    let sid = e.session().await;
    let sink = RecordingSink::new();
    let outcome = handler.send_message(&sid, "snap", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let answer = last_message(&e.request(1)).clone();
    (e, sid, sink, answer)
}

#[tokio::test]
async fn an_image_reaches_a_model_that_takes_images_and_words_reach_one_that_does_not() {
    let (_e, _sid, sink, answer) = snap_turn(true).await;
    assert_eq!(
        answer,
        Message::tool_result_with_images(
            "s1",
            "snapped\n[file: /w/snap.png]",
            vec![ImagePart {
                mime: "image/png".into(),
                data_base64: PNG.into(),
            }],
        )
    );
    let done = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::ToolDone { result, blocks, .. } => Some((result, blocks)),
            _ => None,
        })
        .unwrap();
    assert_eq!(done.0, "snapped");
    assert_eq!(done.1.len(), 2);
    assert_eq!(done.1[0], image());

    let (_e, _sid, _sink, answer) = snap_turn(false).await;
    let Message::Tool {
        content, images, ..
    } = &answer
    else {
        panic!("not a tool result: {answer:?}");
    };
    assert!(images.is_empty());
    assert!(
        content.starts_with("snapped\n[file: /w/snap.png]\n[image: image/png, 0 KB]"),
        "{content}"
    );
}

#[tokio::test]
async fn blocks_are_stored_with_the_call_and_history_returns_them_after_reopening() {
    let (e, sid, _sink, _answer) = snap_turn(true).await;
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows[0].result.as_deref(), Some("snapped"));
    assert!(
        rows[0]
            .blocks
            .as_deref()
            .unwrap()
            .contains("\"type\":\"image\"")
    );
    // The tool message keeps the words for the link (the image goes from the row).
    let history = e.history_rows(&sid).await;
    assert!(
        history
            .iter()
            .any(|r| r.content == "snapped\n[file: /w/snap.png]")
    );
    let data = e.dir.path().canonicalize().unwrap().join("data");
    // Everything but the directory goes: the store is opened afresh.
    let Env {
        dir,
        store,
        handler,
        fake,
        ..
    } = e;
    drop((handler, fake));
    store.close().await;

    let store = Store::open(&data).await.unwrap();
    let provider: Arc<dyn LlmProvider> = Arc::new(skald_llm::FakeProvider::new([]));
    let handler = ChatSessionHandler::new(
        store,
        Arc::new(builtin_registry(&BuiltinDeps::default())),
        Arc::new(FixedProvider::new(provider, "test-model")),
        data.join("no-agents"),
    );
    let history = handler.history(&sid).await.unwrap();
    let card = history
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .find(|c| c.id == "s1")
        .unwrap();
    assert_eq!(card.result.as_deref(), Some("snapped"));
    assert_eq!(card.blocks.len(), 2);
    assert_eq!(card.blocks[0], image());
    assert!(matches!(
        &card.blocks[1],
        ContentBlock::ResourceLink { uri, .. } if uri == "/w/snap.png"
    ));
    drop(dir);
}

#[tokio::test]
async fn execute_cmd_streams_its_output_before_it_is_done_and_the_result_is_unchanged() {
    let command = "for i in 1 2 3; do echo $i; sleep 0.3; done";
    let e = env([
        ScriptedTurn::tool_reply(
            "x1",
            "execute_cmd",
            json!({ "command": command }).to_string(),
        ),
        ScriptedTurn::text_reply("Counted."),
    ])
    .await;
    let sid = e.session().await;
    let started = Instant::now();
    let stamped = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = stamped.clone();
    let sink = skald_session::FnSink(move |ev: SessionEvent| {
        log.lock().unwrap().push((started.elapsed(), ev));
    });
    let outcome = e.handler.send_message(&sid, "count", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let events = stamped.lock().unwrap().clone();
    let done_at = events
        .iter()
        .position(|(_, ev)| matches!(ev, SessionEvent::ToolDone { tool_call_id, .. } if tool_call_id == "x1"))
        .unwrap();
    let progress: Vec<(std::time::Duration, String)> = events[..done_at]
        .iter()
        .filter_map(|(t, ev)| match ev {
            SessionEvent::ToolProgress {
                tool_call_id,
                output,
                ..
            } if tool_call_id == "x1" => Some((*t, output.clone())),
            _ => None,
        })
        .collect();
    assert!(progress.len() >= 2, "{progress:?}");
    // The first lines arrived while the command was still running.
    let (first_at, first) = &progress[0];
    assert!(first.starts_with("1\n"), "{first:?}");
    let done_time = events[done_at].0;
    assert!(
        done_time.saturating_sub(*first_at).as_millis() >= 300,
        "first output at {first_at:?}, done at {done_time:?}"
    );
    assert!(
        progress.iter().any(|(_, o)| o.starts_with("1\n2\n")),
        "{progress:?}"
    );
    // Nothing after the result; the result is what it always was.
    assert!(
        !events[done_at..]
            .iter()
            .any(|(_, ev)| matches!(ev, SessionEvent::ToolProgress { .. }))
    );
    let rows = e.tool_rows(&sid).await;
    assert_eq!(rows[0].result.as_deref(), Some("1\n2\n3\n[exit code: 0]"));
    assert_eq!(rows[0].blocks, None);
}
