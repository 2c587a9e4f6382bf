//! What a tool declares about itself reaches every face that shows or
//! judges its calls — never its name: a session tool presented as a command
//! gets the command card (live, in history, in the Inbox), and "always
//! allow" on a stored call of a declared writer is scoped as the gate
//! judged that call.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    Tool, ToolCategory, ToolDescriptionLength, ToolPresentation, ToolResult, ToolTraits, TypedTool,
};
use skald_llm::ScriptedTurn;
use skald_protocol::{ApprovalKind, SessionEvent, TurnOutcome};
use skald_session::{ApprovalManager, FrameContext, InterfaceTools, RecordingSink};

use crate::common::*;

#[derive(Debug, Deserialize, JsonSchema)]
struct RemoteInput {
    /// The command line.
    command: String,
    /// Where it runs.
    workdir: Option<String>,
}

/// Runs a command elsewhere (pretend): shown like `execute_cmd`, because it
/// says so.
#[derive(Clone)]
struct RunRemote;

impl TypedTool for RunRemote {
    type Input = RemoteInput;
    fn name(&self) -> &str {
        "run_remote"
    }
    fn description(&self) -> &str {
        "Runs a command on the build host."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Shell
    }
    fn presentation(&self) -> ToolPresentation {
        ToolPresentation::Command
    }
    fn run(&self, input: RemoteInput) -> ToolResult {
        Ok(format!(
            "ran {} in {}",
            input.command,
            input.workdir.unwrap_or_default()
        ))
    }
    fn describe(&self, args: &Value, _l: ToolDescriptionLength) -> String {
        format!("run_remote `{}`", args["command"].as_str().unwrap_or("?"))
    }
}

fn remote() -> Arc<dyn InterfaceTools> {
    Arc::new(|_: &FrameContext| -> Vec<Arc<dyn Tool>> { vec![Arc::new(RunRemote)] })
}

fn approval_requests(sink: &RecordingSink) -> Vec<skald_protocol::ApprovalRequest> {
    sink.events()
        .into_iter()
        .filter_map(|ev| match ev {
            SessionEvent::ApprovalRequired { request, .. } => Some(request),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_session_tool_presented_as_a_command_gets_the_command_card_everywhere() {
    let e = env([
        ScriptedTurn::tool_reply(
            "r1",
            "run_remote",
            r#"{"command": "make -j2 test", "workdir": "/srv/build"}"#,
        ),
        ScriptedTurn::text_reply("built"),
    ])
    .await;
    skald_session::bootstrap(&e.store).await.unwrap();
    let h = e
        .handler
        .clone()
        .with_gate(Arc::new(ApprovalManager::new(e.store.clone())))
        .with_interface_tools(remote());
    let sid = e.session().await;
    let sink = Arc::new(RecordingSink::new());
    let (h2, id, s2) = (h.clone(), sid.clone(), sink.clone());
    let turn = tokio::spawn(async move { h2.send_message(&id, "build", s2).await.unwrap() });
    wait_until("ApprovalRequired", || !approval_requests(&sink).is_empty()).await;

    let command_card = ApprovalKind::Command {
        command: "make -j2 test".into(),
        working_dir: Some("/srv/build".into()),
    };
    // The live approval card.
    let live = approval_requests(&sink).remove(0);
    assert_eq!(live.kind, command_card);
    // The live tool card says how to show it.
    let started = sink
        .events()
        .into_iter()
        .find_map(|ev| match ev {
            SessionEvent::ToolStart { call, .. } => Some(call),
            _ => None,
        })
        .unwrap();
    assert_eq!(started.presentation, ToolPresentation::Command);
    // The Inbox builds the card from the stored row, with the call's own
    // round's tools (the registry alone does not know this tool).
    let pending = h.list_pending().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].request.kind, command_card);
    assert_eq!(pending[0].request.label_short, "run_remote `make -j2 test`");

    h.approve("r1", RecordingSink::new()).await.unwrap();
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(10), turn)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    // And in history.
    let card = h
        .history(&sid)
        .await
        .unwrap()
        .into_iter()
        .flat_map(|m| m.tool_calls)
        .next()
        .unwrap();
    assert_eq!(card.presentation, ToolPresentation::Command);
    assert_eq!(
        card.result.as_deref(),
        Some("ran make -j2 test in /srv/build")
    );
}

/// The built-ins declare theirs too: `execute_cmd` a command, the question
/// tool a question; every other built-in the generic card.
#[test]
fn built_ins_declare_their_presentation() {
    let registry = skald_tools::builtin_registry(&skald_tools::BuiltinDeps::default());
    let declared: Vec<(String, ToolPresentation)> = registry
        .all()
        .iter()
        .filter(|t| !t.presentation().is_generic())
        .map(|t| (t.name().to_string(), t.presentation()))
        .collect();
    assert_eq!(
        declared,
        vec![("execute_cmd".to_string(), ToolPresentation::Command)]
    );
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SurveyInput {
    /// The directory to survey (default: the working directory).
    path: Option<String>,
}

/// A session tool that reads a directory, the working directory when no
/// path is given (`ToolTraits::READS_DIR`, like `list_files`).
#[derive(Clone)]
struct Survey;

impl TypedTool for Survey {
    type Input = SurveyInput;
    fn name(&self) -> &str {
        "survey"
    }
    fn description(&self) -> &str {
        "Surveys a directory."
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }
    fn traits(&self) -> ToolTraits {
        ToolTraits::READS_DIR
    }
    fn run(&self, input: SurveyInput) -> ToolResult {
        Ok(format!("surveyed {}", input.path.unwrap_or_default()))
    }
}

/// "Always allow" on a stored call judges it with the tools of its round:
/// the session's directory tool, called without a path, gets a rule scoped
/// to the working directory, as `list_files` would. Judged by its name
/// alone (no such built-in), it would get a rule for every path.
#[tokio::test]
async fn always_allow_on_a_stored_call_uses_the_traits_its_tool_declares() {
    let e = env([
        ScriptedTurn::tool_reply("s1", "survey", "{}"),
        ScriptedTurn::text_reply("done"),
    ])
    .await;
    skald_session::bootstrap(&e.store).await.unwrap();
    let mgr = ApprovalManager::new(e.store.clone());
    let survey: Arc<dyn InterfaceTools> =
        Arc::new(|_: &FrameContext| -> Vec<Arc<dyn Tool>> { vec![Arc::new(Survey)] });
    let h = e
        .handler
        .clone()
        .with_gate(Arc::new(mgr.clone()))
        .with_interface_tools(survey);
    let sid = e.session().await;
    let (h2, id) = (h.clone(), sid.clone());
    let turn =
        tokio::spawn(async move { h2.send_message(&id, "look", RecordingSink::new()).await });
    let store = e.store.clone();
    let decided = || {
        let store = store.clone();
        async move {
            store
                .tool_calls()
                .get("s1")
                .await
                .unwrap()
                .is_some_and(|r| r.decision.is_some())
        }
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !decided().await {
        assert!(
            std::time::Instant::now() < deadline,
            "the call was never decided"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }

    let rule = skald_session::services::rules::always_allow_rule(&h, &mgr, "s1")
        .await
        .unwrap();
    assert_eq!(rule.tool_pattern, "survey");
    let workdir = e.workdir.display().to_string();
    assert_eq!(rule.path_pattern, Some(format!("{workdir}/*")), "{rule:?}");

    if e.store
        .tool_calls()
        .get("s1")
        .await
        .unwrap()
        .unwrap()
        .status
        == skald_store::ToolCallStatus::Pending
    {
        h.approve("s1", RecordingSink::new()).await.unwrap();
    }
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(10), turn)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
}
