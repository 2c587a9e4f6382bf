//! CHECK constraints, foreign keys and cascades declared by the schema.

use skald_store::{
    DEFAULT_GROUP, FrameStatus, NewApprovalRule, NewJob, NewMessage, NewStackFrame, NewToolCall,
    Role, RuleAction, StoreError, ToolCallStatus,
};

use crate::common::{count, fresh, session};

fn is_constraint_error(err: &sqlx::Error, needle: &str) -> bool {
    match err {
        sqlx::Error::Database(db) => db.message().contains(needle),
        _ => false,
    }
}

fn tool_call(id: &str, session_id: &str) -> NewToolCall {
    NewToolCall {
        id: id.to_owned(),
        session_id: session_id.to_owned(),
        message_id: None,
        name: "read_file".to_owned(),
        arguments: r#"{"path":"a.txt"}"#.to_owned(),
        status: ToolCallStatus::Running,
    }
}

#[tokio::test]
async fn tool_call_status_check_rejects_bogus_values() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;

    let err = sqlx::query(
        "INSERT INTO chat_llm_tools (id, session_id, name, status, created_at, updated_at)
         VALUES ('call_1', ?, 'read_file', 'exploded', 0, 0)",
    )
    .bind(&s.id)
    .execute(store.pool())
    .await
    .unwrap_err();
    assert!(
        is_constraint_error(&err, "CHECK constraint failed"),
        "{err}"
    );

    store
        .tool_calls()
        .insert(&tool_call("call_2", &s.id))
        .await
        .unwrap();
    let err = sqlx::query("UPDATE chat_llm_tools SET status = 'Done' WHERE id = 'call_2'")
        .execute(store.pool())
        .await
        .unwrap_err();
    assert!(
        is_constraint_error(&err, "CHECK constraint failed"),
        "{err}"
    );
    let row = store.tool_calls().get("call_2").await.unwrap().unwrap();
    assert_eq!(row.status, ToolCallStatus::Running);
}

#[tokio::test]
async fn other_enumerated_columns_are_checked_too() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    for (sql, what) in [
        ("INSERT INTO chat_history (session_id, role, created_at) VALUES (?, 'narrator', 0)", "role"),
        (
            "INSERT INTO session_stack (session_id, depth, agent_id, status, created_at, updated_at)
             VALUES (?, 0, 'a', 'zombie', 0, 0)",
            "frame status",
        ),
        (
            "INSERT INTO chat_sessions (title, agent_id, run_context, created_at, updated_at)
             VALUES (?, 'a', '{not json', 0, 0)",
            "run_context json",
        ),
    ] {
        let err = sqlx::query(sql).bind(&s.id).execute(store.pool()).await.unwrap_err();
        assert!(is_constraint_error(&err, "CHECK constraint failed"), "{what}: {err}");
    }
    let err = sqlx::query(
        "INSERT INTO approval_rules (group_name, action, created_at) VALUES ('default', 'ask', 0)",
    )
    .execute(store.pool())
    .await
    .unwrap_err();
    assert!(
        is_constraint_error(&err, "CHECK constraint failed"),
        "{err}"
    );
}

#[tokio::test]
async fn foreign_keys_are_enforced() {
    let (_dir, store) = fresh().await;
    let err = store
        .tool_calls()
        .insert(&tool_call("orphan", "no-such-session"))
        .await
        .unwrap_err();
    match err {
        StoreError::Sqlx(e) => assert!(is_constraint_error(&e, "FOREIGN KEY"), "{e}"),
        other => panic!("expected a FK error, got {other:?}"),
    }
}

#[tokio::test]
async fn deleting_a_session_cascades_to_everything_it_owns() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "doomed").await;
    let keep = session(&store, "kept").await;

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
    let msg = store
        .history()
        .append(&NewMessage {
            session_id: s.id.clone(),
            stack_id: Some(frame.id),
            role: Role::User,
            content: "hi".to_owned(),
            tool_calls: None,
            tool_call_id: None,
        })
        .await
        .unwrap();
    let mut call = tool_call("call_x", &s.id);
    call.message_id = Some(msg.id);
    store.tool_calls().insert(&call).await.unwrap();
    store
        .tool_calls()
        .insert(&tool_call("call_keep", &keep.id))
        .await
        .unwrap();
    store.grants().grant_session(&s.id, "github").await.unwrap();
    store
        .grants()
        .grant_frame(frame.id, "config")
        .await
        .unwrap();
    store.scratchpad().set(&s.id, "notes").await.unwrap();
    let job = store
        .jobs()
        .create(&NewJob {
            name: "nightly".to_owned(),
            cron_expr: "0 3 * * *".to_owned(),
            prompt: "tidy".to_owned(),
            agent_id: "main".to_owned(),
            enabled: true,
            run_context: None,
            next_run_at: None,
        })
        .await
        .unwrap();
    let run = store.jobs().start_run(job.id, Some(&s.id)).await.unwrap();

    assert!(store.sessions().delete(&s.id).await.unwrap());
    assert!(!store.sessions().delete(&s.id).await.unwrap());

    assert_eq!(count(&store, "session_stack").await, 0);
    assert_eq!(count(&store, "chat_history").await, 0);
    assert_eq!(
        count(&store, "chat_llm_tools").await,
        1,
        "other session's call stays"
    );
    assert_eq!(count(&store, "session_mcp_grants").await, 0);
    assert_eq!(count(&store, "stack_mcp_grants").await, 0);
    assert_eq!(count(&store, "session_scratchpad").await, 0);
    let runs = store.jobs().list_runs(job.id, 10).await.unwrap();
    assert_eq!(runs.len(), 1, "job runs outlive their session");
    assert_eq!(runs[0].id, run.id);
    assert_eq!(runs[0].session_id, None);
}

#[tokio::test]
async fn deleting_a_message_detaches_its_tool_calls() {
    let (_dir, store) = fresh().await;
    let s = session(&store, "s").await;
    let msg = store
        .history()
        .append(&NewMessage {
            session_id: s.id.clone(),
            stack_id: None,
            role: Role::Assistant,
            content: String::new(),
            tool_calls: Some(serde_json::json!([{"id": "c1"}])),
            tool_call_id: None,
        })
        .await
        .unwrap();
    let mut call = tool_call("c1", &s.id);
    call.message_id = Some(msg.id);
    store.tool_calls().insert(&call).await.unwrap();
    assert!(store.history().delete(msg.id).await.unwrap());
    let row = store.tool_calls().get("c1").await.unwrap().unwrap();
    assert_eq!(row.message_id, None);
}

#[tokio::test]
async fn deleting_a_group_drops_its_rules_and_moves_sessions_to_default() {
    let (_dir, store) = fresh().await;
    let approval = store.approval();
    approval
        .create_group("strict", "ask for everything")
        .await
        .unwrap();
    approval
        .add_rule(&NewApprovalRule {
            group_name: "strict".to_owned(),
            agent_id: None,
            source: None,
            tool_pattern: "*".to_owned(),
            path_pattern: None,
            action: RuleAction::Require,
            note: None,
            priority: 0,
        })
        .await
        .unwrap();
    let s = session(&store, "s").await;
    store
        .sessions()
        .set_permission_group(&s.id, "strict")
        .await
        .unwrap();

    assert!(approval.delete_group("strict").await.unwrap());
    assert!(approval.list_rules("strict").await.unwrap().is_empty());
    let s = store.sessions().get(&s.id).await.unwrap().unwrap();
    assert_eq!(s.permission_group, DEFAULT_GROUP);

    let err = store
        .sessions()
        .set_permission_group(&s.id, "nope")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Sqlx(_)), "{err:?}");
}

#[tokio::test]
async fn the_default_group_cannot_be_deleted() {
    let (_dir, store) = fresh().await;
    let err = store
        .approval()
        .delete_group(DEFAULT_GROUP)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    // Even bypassing the repository, the trigger refuses.
    let err = sqlx::query("DELETE FROM permission_groups WHERE name = 'default'")
        .execute(store.pool())
        .await
        .unwrap_err();
    assert!(is_constraint_error(&err, "cannot be deleted"), "{err}");
    assert!(
        store
            .approval()
            .get_group(DEFAULT_GROUP)
            .await
            .unwrap()
            .unwrap()
            .builtin
    );
}
