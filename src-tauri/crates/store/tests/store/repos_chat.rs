//! Round trips for the chat-side repositories: sessions, stack, history,
//! tool calls, known tools, grants and the scratchpad.

use serde_json::json;
use skald_store::{
    AssistantExtras, FrameStatus, Incomplete, MessageUsage, ModelRef, NewKnownTool, NewMessage,
    NewSession, NewStackFrame, NewSummary, NewToolCall, Role, StoreError, ToolCallStatus,
};

use crate::common::{fresh, session};

#[tokio::test]
async fn sessions_round_trip() {
    let (_dir, store) = fresh().await;
    let repo = store.sessions();
    let a = repo
        .create(NewSession {
            title: "first".to_owned(),
            agent_id: "main".to_owned(),
            working_dir: None,
        })
        .await
        .unwrap();
    assert_eq!(a.id.len(), 36, "uuid text: {}", a.id);
    assert_eq!(a.permission_group, "default");
    assert_eq!(a.run_context, None);
    assert_eq!(repo.get(&a.id).await.unwrap(), Some(a.clone()));
    let b = session(&store, "second").await;
    assert_ne!(a.id, b.id);

    let ids: Vec<_> = repo
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(ids, [b.id.clone(), a.id.clone()], "newest first");
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    repo.touch(&a.id).await.unwrap();
    let ids: Vec<_> = repo
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(
        ids,
        [a.id.clone(), b.id.clone()],
        "touched moves to the top"
    );

    repo.rename(&a.id, "renamed").await.unwrap();
    repo.set_working_dir(&a.id, Some("/w")).await.unwrap();
    let ctx = json!({"allow_fs_writes": ["/w/docs"], "n": 1});
    repo.set_run_context(&a.id, Some(&ctx)).await.unwrap();
    let got = repo.get(&a.id).await.unwrap().unwrap();
    assert_eq!(got.title, "renamed");
    assert_eq!(got.working_dir.as_deref(), Some("/w"));
    assert_eq!(got.run_context, Some(ctx));
    assert!(got.updated_at >= a.updated_at);

    assert!(matches!(
        repo.rename("missing", "x").await,
        Err(StoreError::NotFound {
            what: "session",
            ..
        })
    ));
    assert!(repo.delete(&a.id).await.unwrap());
    assert_eq!(repo.get(&a.id).await.unwrap(), None);
}

#[tokio::test]
async fn a_chat_keeps_its_own_model_until_cleared_without_moving_in_the_list() {
    let (_dir, store) = fresh().await;
    let repo = store.sessions();
    let a = session(&store, "a").await;
    let b = session(&store, "b").await;
    assert_eq!(a.model, None, "a new chat uses the default");
    let pick = ModelRef {
        provider: "work".to_owned(),
        model: "big-model".to_owned(),
    };
    repo.set_model(&a.id, Some(&pick)).await.unwrap();
    let read = repo.get(&a.id).await.unwrap().unwrap();
    assert_eq!(read.model, Some(pick));
    assert_eq!(
        read.updated_at, a.updated_at,
        "picking a model is no use of the chat"
    );
    assert_eq!(
        repo.get(&b.id).await.unwrap().unwrap().model,
        None,
        "only that chat"
    );
    repo.set_model(&a.id, None).await.unwrap();
    assert_eq!(repo.get(&a.id).await.unwrap().unwrap().model, None);
    assert!(
        repo.set_model("nope", None).await.is_err(),
        "an unknown chat is an error"
    );
}

#[tokio::test]
async fn stack_round_trip() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let repo = store.stack();
    let root = repo
        .push(&NewStackFrame {
            session_id: s.id.clone(),
            parent_id: None,
            agent_id: "main".to_owned(),
            task: None,
            status: FrameStatus::Active,
        })
        .await
        .unwrap();
    assert_eq!(root.depth, 0);
    let child = repo
        .push(&NewStackFrame {
            session_id: s.id.clone(),
            parent_id: Some(root.id),
            agent_id: "researcher".to_owned(),
            task: Some("find it".to_owned()),
            status: FrameStatus::Active,
        })
        .await
        .unwrap();
    assert_eq!(child.depth, 1);
    assert_eq!(repo.get(child.id).await.unwrap(), Some(child.clone()));
    assert_eq!(repo.top(&s.id).await.unwrap().map(|f| f.id), Some(child.id));

    repo.set_status(root.id, FrameStatus::Waiting)
        .await
        .unwrap();
    repo.set_status(child.id, FrameStatus::Done).await.unwrap();
    assert_eq!(repo.top(&s.id).await.unwrap().map(|f| f.id), Some(root.id));
    let all = repo.list_for_session(&s.id).await.unwrap();
    assert_eq!(
        all.iter().map(|f| f.status).collect::<Vec<_>>(),
        [FrameStatus::Waiting, FrameStatus::Done]
    );

    let orphan = NewStackFrame {
        session_id: s.id.clone(),
        parent_id: Some(9999),
        agent_id: "x".to_owned(),
        task: None,
        status: FrameStatus::Active,
    };
    assert!(matches!(
        repo.push(&orphan).await,
        Err(StoreError::NotFound { .. })
    ));

    assert!(repo.delete(root.id).await.unwrap());
    assert!(
        repo.list_for_session(&s.id).await.unwrap().is_empty(),
        "children cascade"
    );
}

#[tokio::test]
async fn history_round_trip() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let repo = store.history();
    let user = repo
        .append(&NewMessage {
            session_id: s.id.clone(),
            stack_id: None,
            role: Role::User,
            content: "list files".to_owned(),
            tool_calls: None,
            tool_call_id: None,
        })
        .await
        .unwrap();
    let calls = json!([{"id": "c1", "name": "list_files", "arguments": "{}"}]);
    let asst = repo
        .append(&NewMessage {
            session_id: s.id.clone(),
            stack_id: None,
            role: Role::Assistant,
            content: String::new(),
            tool_calls: Some(calls.clone()),
            tool_call_id: None,
        })
        .await
        .unwrap();
    let tool = repo
        .append(&NewMessage {
            session_id: s.id.clone(),
            stack_id: None,
            role: Role::Tool,
            content: "a.txt".to_owned(),
            tool_calls: None,
            tool_call_id: Some("c1".to_owned()),
        })
        .await
        .unwrap();
    assert_eq!(
        repo.get(asst.id).await.unwrap().unwrap().tool_calls,
        Some(calls)
    );
    assert_eq!(
        repo.list_for_session(&s.id).await.unwrap(),
        [user.clone(), asst.clone(), tool.clone()]
    );

    repo.update_content(user.id, "list all files")
        .await
        .unwrap();
    assert_eq!(
        repo.get(user.id).await.unwrap().unwrap().content,
        "list all files"
    );
    assert_eq!(repo.truncate_after(&s.id, user.id).await.unwrap(), 2);
    assert_eq!(repo.list_for_session(&s.id).await.unwrap().len(), 1);
    assert!(repo.delete(user.id).await.unwrap());
    assert!(matches!(
        repo.update_content(user.id, "x").await,
        Err(StoreError::NotFound { .. })
    ));
}

#[tokio::test]
async fn assistant_reasoning_and_usage_round_trip() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let repo = store.history();
    let reasoning = json!([
        {"kind": "thinking", "thinking": "Check the file.", "signature": "EqQBCgIYAhIM"},
        {"kind": "details", "details": [{"type": "reasoning.encrypted", "data": "x"}]}
    ]);
    let extras = AssistantExtras {
        reasoning: Some(reasoning.clone()),
        usage: Some(MessageUsage {
            input_tokens: 1290,
            output_tokens: 89,
            cache_read_tokens: 512,
            cache_write_tokens: 0,
            reasoning_tokens: 41,
            cost_usd: Some(0.001913),
        }),
        incomplete: Some(Incomplete::Cut("connection reset".to_owned())),
        model: Some(ModelRef {
            provider: "openrouter".to_owned(),
            model: "qwen3-coder".to_owned(),
        }),
    };
    let new = NewMessage {
        session_id: s.id.clone(),
        stack_id: None,
        role: Role::Assistant,
        content: "Reading.".to_owned(),
        tool_calls: None,
        tool_call_id: None,
    };
    let stored = repo.append_with(&new, &extras).await.unwrap();
    assert_eq!(stored.extras, extras);
    let read = repo.get(stored.id).await.unwrap().unwrap();
    assert_eq!(read.extras, extras, "read back from the file");
    let plain = repo.append(&new).await.unwrap();
    assert_eq!(plain.extras, AssistantExtras::default());
    // The column refuses what is not JSON.
    let bad = sqlx::query("UPDATE chat_history SET reasoning = '{nope' WHERE id = ?")
        .bind(stored.id)
        .execute(store.pool())
        .await;
    assert!(bad.is_err(), "{bad:?}");
}

#[tokio::test]
async fn why_an_answer_is_incomplete_outlives_clearing_the_errors() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let repo = store.history();
    let answer = |text: &str| NewMessage {
        session_id: s.id.clone(),
        stack_id: None,
        role: Role::Assistant,
        content: text.to_owned(),
        tool_calls: None,
        tool_call_id: None,
    };
    let kept = |why: Incomplete| AssistantExtras {
        incomplete: Some(why),
        ..AssistantExtras::default()
    };
    let cut = repo
        .append_with(
            &answer("The answer is"),
            &kept(Incomplete::Cut("connection reset".to_owned())),
        )
        .await
        .unwrap();
    repo.set_error(cut.id, Some("connection reset"))
        .await
        .unwrap();
    let stopped = repo
        .append_with(&answer("Well"), &kept(Incomplete::Stopped))
        .await
        .unwrap();
    // A retry clears the session's errors; the cut answer still reads as cut.
    assert_eq!(repo.clear_errors(&s.id).await.unwrap(), 1);
    let cut = repo.get(cut.id).await.unwrap().unwrap();
    assert_eq!(cut.error, None);
    assert_eq!(
        cut.extras.incomplete,
        Some(Incomplete::Cut("connection reset".to_owned()))
    );
    let stopped = repo.get(stopped.id).await.unwrap().unwrap();
    assert_eq!(stopped.extras.incomplete, Some(Incomplete::Stopped));
    // The column takes only the two causes.
    let bad = sqlx::query("UPDATE chat_history SET incomplete_cause = 'tired' WHERE id = ?")
        .bind(stopped.id)
        .execute(store.pool())
        .await;
    assert!(bad.is_err(), "{bad:?}");
}

#[tokio::test]
async fn history_by_frame() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let frame = store
        .stack()
        .push(&NewStackFrame {
            session_id: s.id.clone(),
            parent_id: None,
            agent_id: "main".to_owned(),
            task: None,
            status: FrameStatus::Active,
        })
        .await
        .unwrap();
    for (stack_id, text) in [(Some(frame.id), "in frame"), (None, "outside")] {
        store
            .history()
            .append(&NewMessage {
                session_id: s.id.clone(),
                stack_id,
                role: Role::System,
                content: text.to_owned(),
                tool_calls: None,
                tool_call_id: None,
            })
            .await
            .unwrap();
    }
    let in_frame = store.history().list_for_frame(frame.id).await.unwrap();
    assert_eq!(in_frame.len(), 1);
    assert_eq!(in_frame[0].content, "in frame");
}

#[tokio::test]
async fn tool_calls_round_trip() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let repo = store.tool_calls();
    let new = |id: &str, status| NewToolCall {
        id: id.to_owned(),
        session_id: s.id.clone(),
        message_id: None,
        name: "write_file".to_owned(),
        arguments: r#"{"path":"x"}"#.to_owned(),
        status,
    };
    repo.insert(&new("c1", ToolCallStatus::Running))
        .await
        .unwrap();
    repo.insert(&new("c2", ToolCallStatus::Running))
        .await
        .unwrap();
    repo.insert(&new("c3", ToolCallStatus::Running))
        .await
        .unwrap();
    assert!(
        repo.insert(&new("c1", ToolCallStatus::Running))
            .await
            .is_err(),
        "id is unique"
    );

    let got = repo.get("c1").await.unwrap().unwrap();
    assert_eq!(got.name, "write_file");
    assert_eq!(got.arguments, r#"{"path":"x"}"#);
    assert_eq!(got.status, ToolCallStatus::Running);
    assert_eq!((got.result, got.finished_at), (None, None));

    repo.set_status("c2", ToolCallStatus::Pending)
        .await
        .unwrap();
    repo.set_previews("c2", Some("old"), Some("new"))
        .await
        .unwrap();
    repo.set_decision("c2", Some("approved"), Some("user clicked allow"))
        .await
        .unwrap();
    let c2 = repo.get("c2").await.unwrap().unwrap();
    assert_eq!(c2.status, ToolCallStatus::Pending);
    assert_eq!(c2.old_preview.as_deref(), Some("old"));
    assert_eq!(c2.new_preview.as_deref(), Some("new"));
    assert_eq!(c2.decision.as_deref(), Some("approved"));
    assert_eq!(c2.decision_reason.as_deref(), Some("user clicked allow"));

    repo.finish("c1", ToolCallStatus::Done, Some("ok"), Some("text"))
        .await
        .unwrap();
    let c1 = repo.get("c1").await.unwrap().unwrap();
    assert_eq!(c1.blocks, None, "a row without blocks reads as none");
    repo.set_blocks("c1", Some(r#"[{"type":"json","value":1}]"#))
        .await
        .unwrap();
    let c1 = repo.get("c1").await.unwrap().unwrap();
    assert_eq!(c1.blocks.as_deref(), Some(r#"[{"type":"json","value":1}]"#));
    assert_eq!(c1.status, ToolCallStatus::Done);
    assert_eq!(c1.result.as_deref(), Some("ok"));
    assert_eq!(c1.result_type.as_deref(), Some("text"));
    assert!(c1.finished_at.is_some());
    assert!(matches!(
        repo.finish("c3", ToolCallStatus::Pending, None, None).await,
        Err(StoreError::Invalid(_))
    ));

    let unfinished = repo
        .list_by_status(&[ToolCallStatus::Running, ToolCallStatus::Pending])
        .await
        .unwrap();
    assert_eq!(
        unfinished.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["c2", "c3"]
    );
    assert!(repo.list_by_status(&[]).await.unwrap().is_empty());
    assert_eq!(repo.list_for_session(&s.id).await.unwrap().len(), 3);

    assert_eq!(repo.get("nope").await.unwrap(), None);
    assert!(matches!(
        repo.set_status("nope", ToolCallStatus::Failed).await,
        Err(StoreError::NotFound {
            what: "tool call",
            ..
        })
    ));
}

#[tokio::test]
async fn known_tools_upsert_and_list() {
    let (_dir, store) = fresh().await;
    let repo = store.known_tools();
    let tool = |name: &str, desc: Option<&str>, source: &str| NewKnownTool {
        name: name.to_owned(),
        description: desc.map(str::to_owned),
        source: source.to_owned(),
    };
    assert_eq!(repo.upsert_many(&[]).await.unwrap(), 0);
    let n = repo
        .upsert_many(&[
            tool("read_file", Some("Read a file"), "builtin"),
            tool("mcp__gh__issues", None, "mcp"),
        ])
        .await
        .unwrap();
    assert_eq!(n, 2);
    let first = repo.get("read_file").await.unwrap().unwrap();

    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    repo.upsert_many(&[
        tool("read_file", None, "builtin"),
        tool("mcp__gh__issues", Some("List issues"), "mcp"),
        tool("activate_tools", Some("Activate"), "synthetic"),
    ])
    .await
    .unwrap();
    let list = repo.list().await.unwrap();
    assert_eq!(
        list.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["activate_tools", "mcp__gh__issues", "read_file"]
    );
    let again = &list[2];
    assert_eq!(
        again.description.as_deref(),
        Some("Read a file"),
        "kept when none offered"
    );
    assert_eq!(again.first_seen, first.first_seen);
    assert!(again.last_seen > first.last_seen);
    assert_eq!(list[1].description.as_deref(), Some("List issues"));

    assert!(repo.delete("read_file").await.unwrap());
    assert_eq!(repo.get("read_file").await.unwrap(), None);
}

#[tokio::test]
async fn grants_round_trip() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let frame = store
        .stack()
        .push(&NewStackFrame {
            session_id: s.id.clone(),
            parent_id: None,
            agent_id: "main".to_owned(),
            task: None,
            status: FrameStatus::Active,
        })
        .await
        .unwrap();
    let repo = store.grants();
    assert!(repo.grant_session(&s.id, "github").await.unwrap());
    assert!(repo.grant_session(&s.id, "config").await.unwrap());
    assert!(
        !repo.grant_session(&s.id, "github").await.unwrap(),
        "idempotent"
    );
    assert_eq!(
        repo.list_session(&s.id).await.unwrap(),
        ["config", "github"]
    );
    assert!(repo.revoke_session(&s.id, "github").await.unwrap());
    assert!(!repo.revoke_session(&s.id, "github").await.unwrap());
    assert_eq!(repo.list_session(&s.id).await.unwrap(), ["config"]);

    assert!(repo.grant_frame(frame.id, "fs").await.unwrap());
    assert!(!repo.grant_frame(frame.id, "fs").await.unwrap());
    assert_eq!(repo.list_frame(frame.id).await.unwrap(), ["fs"]);
    assert!(repo.revoke_frame(frame.id, "fs").await.unwrap());
    assert!(repo.list_frame(frame.id).await.unwrap().is_empty());
}

#[tokio::test]
async fn scratchpad_round_trip() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let repo = store.scratchpad();
    assert_eq!(repo.get(&s.id).await.unwrap(), None);
    repo.set(&s.id, "plan: a").await.unwrap();
    assert_eq!(repo.get(&s.id).await.unwrap().unwrap().content, "plan: a");
    repo.set(&s.id, "plan: b").await.unwrap();
    let row = repo.get(&s.id).await.unwrap().unwrap();
    assert_eq!(
        (row.session_id.as_str(), row.content.as_str()),
        (s.id.as_str(), "plan: b")
    );
    assert!(repo.clear(&s.id).await.unwrap());
    assert!(!repo.clear(&s.id).await.unwrap());
    assert_eq!(repo.get(&s.id).await.unwrap(), None);
}

/// Edit/regenerate cut the history after a message: the calls those messages
/// made and the summaries that covered them go too; a turn's error is kept on
/// a row until a retry clears it; a summary reaching furthest is the frame's.
#[tokio::test]
async fn truncation_errors_and_summaries() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let frame = store
        .stack()
        .push(&NewStackFrame {
            session_id: s.id.clone(),
            parent_id: None,
            agent_id: "main".to_owned(),
            task: None,
            status: FrameStatus::Active,
        })
        .await
        .unwrap();
    let repo = store.history();
    let msg = |role, text: &str| NewMessage {
        session_id: s.id.clone(),
        stack_id: Some(frame.id),
        role,
        content: text.to_owned(),
        tool_calls: None,
        tool_call_id: None,
    };
    let first = repo.append(&msg(Role::User, "one")).await.unwrap();
    let answer = repo.append(&msg(Role::Assistant, "two")).await.unwrap();
    let second = repo.append(&msg(Role::User, "three")).await.unwrap();
    let calling = repo.append(&msg(Role::Assistant, "")).await.unwrap();
    store
        .tool_calls()
        .insert(&NewToolCall {
            id: "kept".into(),
            session_id: s.id.clone(),
            message_id: Some(answer.id),
            name: "read_file".into(),
            arguments: "{}".into(),
            status: ToolCallStatus::Running,
        })
        .await
        .unwrap();
    store
        .tool_calls()
        .insert(&NewToolCall {
            id: "dropped".into(),
            session_id: s.id.clone(),
            message_id: Some(calling.id),
            name: "read_file".into(),
            arguments: "{}".into(),
            status: ToolCallStatus::Running,
        })
        .await
        .unwrap();
    let summaries = store.summaries();
    let new_summary = |last: i64, text: &str| NewSummary {
        session_id: s.id.clone(),
        stack_id: Some(frame.id),
        content: text.to_owned(),
        first_message_id: first.id,
        last_message_id: last,
        message_count: 2,
        covered_tokens: 40,
        manual: false,
    };
    let early = summaries
        .add(&new_summary(answer.id, "early"))
        .await
        .unwrap();
    let late = summaries
        .add(&new_summary(calling.id, "late"))
        .await
        .unwrap();
    assert_eq!(
        summaries.latest_for_frame(frame.id).await.unwrap(),
        Some(late)
    );

    repo.set_error(second.id, Some("boom")).await.unwrap();
    assert_eq!(
        repo.get(second.id).await.unwrap().unwrap().error.as_deref(),
        Some("boom")
    );
    assert_eq!(repo.clear_errors(&s.id).await.unwrap(), 1);
    assert_eq!(repo.get(second.id).await.unwrap().unwrap().error, None);

    assert_eq!(repo.truncate_after(&s.id, second.id).await.unwrap(), 1);
    assert!(store.tool_calls().get("dropped").await.unwrap().is_none());
    assert!(store.tool_calls().get("kept").await.unwrap().is_some());
    assert_eq!(
        summaries.latest_for_frame(frame.id).await.unwrap(),
        Some(early.clone())
    );
    assert_eq!(
        summaries.list_for_session(&s.id).await.unwrap(),
        vec![early]
    );
}

#[tokio::test]
async fn an_elicitation_is_a_question_with_its_schema_and_asking_again_resets_it() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "t").await;
    let repo = store.clarifications();
    let new = skald_store::NewClarification {
        tool_call_id: "call-1".into(),
        session_id: s.id.clone(),
        frame_id: None,
        agent_id: "mcp:everything".into(),
        title: "everything asks".into(),
        question: "Your name?".into(),
        suggestions: Vec::new(),
    };
    let schema = serde_json::json!({"type": "object", "properties": {
        "name": {"type": "string"}, "age": {"type": "integer"}}});
    let form = skald_store::ElicitationRequest {
        server: "everything".into(),
        schema: schema.clone(),
        // The server's order, not the alphabetical one the Value keeps.
        property_order: vec!["name".into(), "age".into()],
        url: None,
    };
    let row = repo.ask_form(&new, &form).await.unwrap();
    assert_eq!(row.schema.as_ref(), Some(&schema));
    assert_eq!(row.server.as_deref(), Some("everything"));
    assert_eq!(row.property_order, ["name", "age"]);
    assert_eq!(row.url, None);
    assert_eq!(row.status, "pending");
    assert!(
        repo.answer("call-1", r#"{"action":"decline"}"#)
            .await
            .unwrap()
    );
    // The same call asks again: a fresh pending question, the old answer gone.
    let again = repo
        .ask_form(
            &skald_store::NewClarification {
                question: "Your email?".into(),
                ..new.clone()
            },
            &skald_store::ElicitationRequest {
                url: Some("https://example.com/verify".into()),
                ..form.clone()
            },
        )
        .await
        .unwrap();
    assert_eq!(again.url.as_deref(), Some("https://example.com/verify"));
    assert_eq!(again.status, "pending");
    assert_eq!(again.answer, None);
    assert_eq!(again.question, "Your email?");
    assert_eq!(repo.list_pending().await.unwrap().len(), 1);
    // An agent's own question has neither.
    let plain = repo
        .ask(&skald_store::NewClarification {
            tool_call_id: "call-2".into(),
            agent_id: "main".into(),
            ..new
        })
        .await
        .unwrap();
    assert_eq!((plain.schema, plain.server), (None, None));
    assert!(plain.property_order.is_empty());
}

/// A call's end and its result message go in one request: both are
/// written, and for a call with no row neither is.
#[tokio::test]
async fn finish_with_message_writes_the_row_and_the_message_or_nothing() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "calls").await;
    let repo = store.tool_calls();
    repo.insert(&NewToolCall {
        id: "c1".into(),
        session_id: s.id.clone(),
        message_id: None,
        name: "noop".into(),
        arguments: "{}".into(),
        status: ToolCallStatus::Running,
    })
    .await
    .unwrap();
    let message = |id: &str| NewMessage {
        session_id: s.id.clone(),
        stack_id: None,
        role: Role::Tool,
        content: format!("result of {id}"),
        tool_calls: None,
        tool_call_id: Some(id.into()),
    };
    repo.finish_with_message("c1", ToolCallStatus::Done, Some("ok"), None, &message("c1"))
        .await
        .unwrap();
    let c1 = repo.get("c1").await.unwrap().unwrap();
    assert_eq!(c1.status, ToolCallStatus::Done);
    assert_eq!(c1.result.as_deref(), Some("ok"));
    assert!(c1.finished_at.is_some());
    let history = store.history().list_for_session(&s.id).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].role, Role::Tool);
    assert_eq!(history[0].content, "result of c1");
    assert_eq!(history[0].tool_call_id.as_deref(), Some("c1"));

    assert!(matches!(
        repo.finish_with_message(
            "nope",
            ToolCallStatus::Done,
            Some("ok"),
            None,
            &message("nope")
        )
        .await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        repo.finish_with_message("c1", ToolCallStatus::Running, None, None, &message("c1"))
            .await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(
        store.history().list_for_session(&s.id).await.unwrap().len(),
        1,
        "no message without a row to finish"
    );
}
