//! How a call runs is the tool's declaration (`Tool::route`), never its
//! name: a session tool of another name that declares itself a sync
//! sub-agent is run as one — a child frame linked to the call, its final
//! answer the result, neighbouring calls side by side — and the same tool
//! declaring a plain execution runs its own body.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use skald_core_api::{CallRoute, Tool, ToolCategory, ToolResult, TypedTool};
use skald_llm::{ScriptedTurn, StopReason};
use skald_protocol::TurnOutcome;
use skald_session::{FrameContext, HandlerConfig, RecordingSink};
use skald_store::FrameStatus;

use crate::multi_agent::*;

#[derive(Debug, Deserialize, JsonSchema)]
struct HandOffInput {
    /// A short title.
    title: String,
    /// What to do (the sub-agent reads it from the arguments).
    #[allow(dead_code)]
    prompt: String,
    /// Which task agent.
    agent_id: String,
}

/// Hands work to a task agent under a name the driver has never heard of.
#[derive(Clone)]
struct HandOff {
    route: CallRoute,
}

impl TypedTool for HandOff {
    type Input = HandOffInput;
    fn name(&self) -> &str {
        "hand_off"
    }
    fn description(&self) -> &str {
        "Hands work to a task agent."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Subagent
    }
    fn route(&self, _input: &HandOffInput) -> CallRoute {
        self.route
    }
    fn run(&self, input: HandOffInput) -> ToolResult {
        Ok(format!("ran bare: {} for {}", input.title, input.agent_id))
    }
}

fn hand_off(id: &str, agent: &str, prompt: &str) -> (String, String) {
    (
        id.to_string(),
        serde_json::json!({"title": format!("Job {id}"), "prompt": prompt, "agent_id": agent})
            .to_string(),
    )
}

async fn run_with(route: CallRoute) -> (Env, String) {
    let calls = [
        hand_off("h1", "w1", "do one"),
        hand_off("h2", "w2", "do two"),
    ];
    let mut first = ScriptedTurn::new();
    for (i, (id, args)) in calls.iter().enumerate() {
        first = first.tool_call(i, id.clone(), "hand_off", args.clone());
    }
    let slow = |text: &str| {
        ScriptedTurn::new()
            .delay(Duration::from_millis(300))
            .text(text)
            .done(StopReason::EndTurn)
    };
    let e = env_with(
        &[("w1", "task"), ("w2", "task")],
        vec![
            ("main", vec![first.done(StopReason::ToolUse), answer("ok")]),
            ("w1", vec![slow("one is done")]),
            ("w2", vec![slow("two is done")]),
        ],
        HandlerConfig::default(),
        move |h| {
            h.with_interface_tools(Arc::new(move |_f: &FrameContext| {
                vec![Arc::new(HandOff { route }) as Arc<dyn Tool>]
            }))
        },
    )
    .await;
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "go", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    (e, sid)
}

#[tokio::test]
async fn a_tool_of_any_name_declaring_a_sync_sub_agent_runs_as_one() {
    let (e, sid) = run_with(CallRoute::SyncSubAgent).await;
    // Each sub-agent got its prompt; their answers are the results, in
    // call order.
    assert_eq!(user_text(&e.requests("w1")[0].messages[0]), "do one");
    assert_eq!(user_text(&e.requests("w2")[0].messages[0]), "do two");
    assert_eq!(
        results(&e.requests("main")[1]),
        ["one is done", "two is done"]
    );
    // Side by side, as neighbouring sync sub-agent calls run.
    assert_eq!(e.peak.load(Ordering::SeqCst), 2);
    // Child frames linked to the calls (pushed as each call started, so in
    // either order).
    let frames = e.store.stack().list_for_session(&sid).await.unwrap();
    let mut children: Vec<_> = frames
        .iter()
        .filter(|f| f.depth == 1)
        .map(|f| {
            (
                f.parent_call_id.clone().unwrap(),
                f.agent_id.clone(),
                f.status,
            )
        })
        .collect();
    children.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        children,
        [
            ("h1".to_string(), "w1".to_string(), FrameStatus::Done),
            ("h2".to_string(), "w2".to_string(), FrameStatus::Done)
        ]
    );
}

#[tokio::test]
async fn the_same_tool_declaring_an_execution_runs_its_own_body() {
    let (e, sid) = run_with(CallRoute::Execute).await;
    assert_eq!(
        results(&e.requests("main")[1]),
        ["ran bare: Job h1 for w1", "ran bare: Job h2 for w2"]
    );
    assert!(e.requests("w1").is_empty());
    let frames = e.store.stack().list_for_session(&sid).await.unwrap();
    assert_eq!(frames.len(), 1, "no child frame");
}

#[derive(Debug, Deserialize, JsonSchema)]
struct LaterInput {
    /// `async`.
    #[allow(dead_code)]
    mode: String,
    /// A short title.
    #[allow(dead_code)]
    title: String,
    /// What to do.
    #[allow(dead_code)]
    prompt: String,
    /// Which task agent.
    #[allow(dead_code)]
    agent_id: String,
}

/// Starts work in the background under a name the driver has never heard
/// of: it declares the background-task route, so its body never runs.
#[derive(Clone)]
struct DoLater;

impl TypedTool for DoLater {
    type Input = LaterInput;
    fn name(&self) -> &str {
        "do_later"
    }
    fn description(&self) -> &str {
        "Starts work in the background."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Subagent
    }
    fn route(&self, _input: &LaterInput) -> CallRoute {
        CallRoute::BackgroundTask
    }
    fn run(&self, _input: LaterInput) -> ToolResult {
        Ok("ran bare".to_string())
    }
}

/// A tool of another name declaring `CallRoute::BackgroundTask` is run as
/// a background task: its call returns the task's id at once, the task
/// agent works in its own background session, and its ending is delivered
/// back into the conversation, which resumes by itself.
#[tokio::test]
async fn a_tool_of_any_name_declaring_a_background_task_starts_one() {
    let args = serde_json::json!({
        "mode": "async", "title": "Count", "prompt": "count the files", "agent_id": "w1"
    });
    let e = env_with(
        &[("w1", "task")],
        vec![
            (
                "main",
                vec![
                    ScriptedTurn::new()
                        .tool_call(0, "l1", "do_later", args.to_string())
                        .done(StopReason::ToolUse),
                    answer("Started."),
                    answer("It counted 7."),
                ],
            ),
            ("w1", vec![answer("7 files")]),
        ],
        HandlerConfig::default(),
        |h| {
            h.with_interface_tools(Arc::new(|_f: &FrameContext| {
                vec![Arc::new(DoLater) as Arc<dyn Tool>]
            }))
        },
    )
    .await;
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "later, please", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    tasks_idle(&e).await;

    let main = e.requests("main");
    assert_eq!(main.len(), 3, "the conversation resumed once, by itself");
    // The call's result is the task's id, at once; its body never ran.
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&results(&main[1])[0]).unwrap(),
        serde_json::json!({"task_id": 1, "status": "started"})
    );
    // The task agent worked in its own background session.
    let w1 = e.requests("w1");
    assert_eq!(w1.len(), 1);
    assert_eq!(user_text(&w1[0].messages[0]), "count the files");
    let detail = e.handler.task(1).await.unwrap();
    assert_eq!(detail.task.kind, "async");
    assert_eq!(detail.task.state, "done");
    assert_eq!(detail.task.parent_session_id.as_deref(), Some(sid.as_str()));
    let bg = detail.runs[0].session_id.clone().unwrap();
    assert_ne!(bg, sid);
    // Its ending came back as the delivered result the model read.
    let delivered: serde_json::Value = serde_json::from_str(&results(&main[2])[0]).unwrap();
    assert_eq!(delivered["output"], "7 files");
    assert_eq!(delivered["status"], "done");
}
