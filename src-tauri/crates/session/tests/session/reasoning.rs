//! Reasoning kept across tool rounds: a provider that refuses any request whose earlier
//! tool-calling assistant messages lack the reasoning it produced (as Anthropic does for
//! thinking blocks, DeepSeek for `reasoning_content`, Gemini for `reasoning_details`).

use std::sync::Arc;

use skald_llm::{
    ChatRequest, EventStream, FakeProvider, LlmError, LlmProvider, Message, ReasoningEffort,
    ReasoningPart, ScriptedTurn, StopReason, StreamEvent,
};
use skald_protocol::{ChatRole, SessionEvent, TurnOutcome};
use skald_session::{ChatSessionHandler, FixedProvider, RecordingSink, SessionParams};
use skald_store::Store;
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::{AGENT_MD, RULES_MD};

/// The signature the provider gives the thinking block before call `id`.
fn signature(id: &str) -> String {
    format!("sig-{id}")
}

/// Wraps the scripted provider: every assistant message with tool calls must carry the
/// thinking block (with its signature) the provider sent with those calls.
struct RequiresReasoningBack {
    fake: FakeProvider,
}

impl RequiresReasoningBack {
    fn check(req: &ChatRequest) -> Result<(), String> {
        for m in &req.messages {
            if let Message::Assistant {
                tool_calls,
                reasoning,
                ..
            } = m
                && let Some(first) = tool_calls.first()
            {
                let want = ReasoningPart::Thinking {
                    thinking: format!("I need {}.", first.id),
                    signature: signature(&first.id),
                };
                if !reasoning.contains(&want) {
                    return Err(format!(
                        "messages: the assistant turn with {} lacks its thinking block",
                        first.id
                    ));
                }
            }
        }
        Ok(())
    }
}

impl LlmProvider for RequiresReasoningBack {
    fn name(&self) -> &str {
        "reasoning-required"
    }

    fn stream<'a>(&'a self, req: &'a ChatRequest) -> EventStream<'a> {
        match Self::check(req) {
            Ok(()) => self.fake.stream(req),
            Err(message) => Box::pin(futures_util::stream::once(async move {
                Err(LlmError::Provider {
                    provider: "reasoning-required".into(),
                    kind: "invalid_request_error".into(),
                    message,
                    retriable: false,
                })
            })),
        }
    }
}

/// One round: thinking (streamed, then the signed block), then a call.
fn round(id: &str, command: &str) -> ScriptedTurn {
    ScriptedTurn::new()
        .reasoning(format!("I need {id}."))
        .event(StreamEvent::Reasoning(ReasoningPart::Thinking {
            thinking: format!("I need {id}."),
            signature: signature(id),
        }))
        .tool_call(
            0,
            id,
            "execute_cmd",
            format!(r#"{{"command": "{command}"}}"#),
        )
        .usage(100, 20)
        .done(StopReason::ToolUse)
}

#[tokio::test]
async fn a_provider_that_requires_its_reasoning_back_completes_three_tool_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let agents = root.join("agents");
    std::fs::create_dir_all(agents.join("main")).unwrap();
    std::fs::write(agents.join("main/AGENT.md"), AGENT_MD).unwrap();
    std::fs::write(agents.join("main/rules.md"), RULES_MD).unwrap();
    let workdir = root.join("work");
    std::fs::create_dir_all(&workdir).unwrap();
    let store = Store::open(&root.join("data")).await.unwrap();
    let provider = Arc::new(RequiresReasoningBack {
        fake: FakeProvider::new([
            round("r1", "echo one"),
            round("r2", "echo two"),
            round("r3", "echo three"),
            ScriptedTurn::new()
                .reasoning("All three ran.")
                .text("one two three")
                .done(StopReason::EndTurn),
        ]),
    });
    let handler = ChatSessionHandler::new(
        store.clone(),
        Arc::new(builtin_registry(&BuiltinDeps::default())),
        Arc::new(
            FixedProvider::new(provider.clone(), "test-model")
                .with_reasoning(Some(ReasoningEffort::High)),
        ),
        agents,
    );
    let sid = handler
        .create_session(SessionParams {
            working_dir: Some(workdir),
            ..SessionParams::default()
        })
        .await
        .unwrap()
        .id;
    let sink = RecordingSink::new();
    let outcome = handler.send_message(&sid, "count", &sink).await.unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    let requests = provider.fake.requests();
    assert_eq!(requests.len(), 4, "three tool rounds and the answer");
    for r in &requests {
        assert_eq!(RequiresReasoningBack::check(r), Ok(()));
        assert_eq!(
            r.reasoning,
            Some(ReasoningEffort::High),
            "the model's setting"
        );
    }

    // Stored in history (a restart sends it back too) and shown: each assistant message
    // with its reasoning text and usage.
    let history = handler.history(&sid).await.unwrap();
    let assistants: Vec<_> = history
        .iter()
        .filter(|m| m.role == ChatRole::Assistant)
        .collect();
    assert_eq!(assistants.len(), 4);
    assert_eq!(assistants[0].reasoning.as_deref(), Some("I need r1."));
    assert_eq!(assistants[3].reasoning.as_deref(), Some("All three ran."));
    assert_eq!(assistants[0].usage.map(|u| u.input_tokens), Some(100));
    assert!(sink.events().iter().any(|e| matches!(
        e,
        SessionEvent::ReasoningDelta { text, .. } if text == "I need r2."
    )));

    // Without the stored reasoning the same provider refuses: the check bites.
    let mut stripped = requests[3].clone();
    for m in &mut stripped.messages {
        if let Message::Assistant { reasoning, .. } = m {
            reasoning.clear();
        }
    }
    assert!(RequiresReasoningBack::check(&stripped).is_err());
}
