//! The settings services the app's commands and the CLI call: rule edits
//! reach the gate at once (its cache is invalidated), a copied group leaves
//! its catch-all behind, bad input is a clear `Invalid` error, and the
//! provider kind travels as one enum from the form to the store and back.

use skald_protocol::{
    BypassScopeView, ErrorCode, NewProviderInput, ProviderKind, RuleActionView, RuleInput,
    RunContextView,
};
use skald_session::services::{ServiceError, providers, rules, run_context};
use skald_session::{ApprovalManager, bootstrap};

use crate::common::*;

fn deny(group: &str, tool: &str) -> RuleInput {
    RuleInput {
        group: group.into(),
        tool_pattern: tool.into(),
        path_pattern: None,
        action: RuleActionView::Deny,
        note: Some("  no  ".into()),
        priority: 500,
    }
}

#[tokio::test]
async fn rule_edits_reach_the_gate_and_groups_copy_without_their_catch_all() {
    let e = env([]).await;
    bootstrap(&e.store).await.unwrap();
    let mgr = ApprovalManager::new(e.store.clone());
    // Load (and cache) the rules first, so a stale cache would show.
    let before = mgr.rules().await.unwrap().iter().count();

    let added = rules::add_rule(&mgr, deny("default", "read_file"))
        .await
        .unwrap();
    assert_eq!(added.note.as_deref(), Some("no"));
    assert_eq!(mgr.rules().await.unwrap().iter().count(), before + 1);

    let g = rules::create_group(&mgr, " strict ", "Strict", Some("default"))
        .await
        .unwrap();
    assert_eq!(g.name, "strict");
    let copied = rules::list_rules(&mgr, "strict").await.unwrap();
    let default = rules::list_rules(&mgr, "default").await.unwrap();
    assert_eq!(copied.len(), default.len() - 1, "all but the catch-all");
    assert!(
        !copied
            .iter()
            .any(|r| r.tool_pattern == "*" && r.path_pattern.is_none())
    );
    assert!(copied.iter().any(|r| r.tool_pattern == "read_file"));

    let err = rules::create_group(&mgr, "no spaces", "", None)
        .await
        .unwrap_err();
    assert!(matches!(err, ServiceError::Invalid(_)), "{err:?}");
    assert_eq!(err.to_ipc().code, ErrorCode::InvalidInput);
    let missing = rules::update_rule(&mgr, 99_999, deny("default", "x"))
        .await
        .unwrap_err();
    assert_eq!(missing.to_ipc().code, ErrorCode::NotFound);

    assert!(rules::delete_rule(&mgr, added.id).await.unwrap());
    assert_eq!(
        mgr.rules().await.unwrap().iter().count(),
        before + copied.len()
    );
}

#[tokio::test]
async fn a_provider_keeps_its_kind_and_run_contexts_are_validated() {
    let e = env([]).await;
    let view = providers::add(
        &e.store,
        NewProviderInput {
            kind: ProviderKind::Anthropic,
            name: "My Claude".into(),
            base_url: None,
            api_key: Some("sk-test".into()),
            model: " claude-x ".into(),
        },
    )
    .await
    .unwrap();
    assert_eq!(view.id, "my-claude");
    assert_eq!(view.kind, ProviderKind::Anthropic);
    assert!(view.has_api_key);
    assert_eq!(view.models[0].name, "claude-x");
    let row = e.store.providers().get("my-claude").await.unwrap().unwrap();
    assert_eq!(row.kind, ProviderKind::Anthropic);
    let bad = providers::add(
        &e.store,
        NewProviderInput {
            kind: ProviderKind::OpenAi,
            name: "x".into(),
            base_url: Some("ftp://x".into()),
            api_key: None,
            model: "m".into(),
        },
    )
    .await
    .unwrap_err();
    assert_eq!(bad.to_ipc().code, ErrorCode::InvalidInput);

    let mgr = ApprovalManager::new(e.store.clone());
    let sid = e.session().await;
    let mut ctx = run_context::get(&mgr, &sid).await.unwrap();
    ctx.allow_fs_reads = vec!["relative/path".into()];
    let err = run_context::set(&mgr, &sid, ctx).await.unwrap_err();
    assert!(err.to_string().contains("absolute"), "{err}");
    let ok = RunContextView {
        permission_group: "default".into(),
        extra_system_prompt: Some("be brief".into()),
        allow_fs_reads: vec!["/tmp".into(), "  ".into()],
        allow_fs_writes: vec![],
        working_dir: Some(e.workdir.display().to_string()),
    };
    run_context::set(&mgr, &sid, ok).await.unwrap();
    let back = run_context::get(&mgr, &sid).await.unwrap();
    assert_eq!(back.allow_fs_reads, vec!["/tmp".to_string()]);
    assert_eq!(back.extra_system_prompt.as_deref(), Some("be brief"));
}

#[tokio::test]
async fn bypasses_are_listed_with_their_time_left_and_end_when_cleared() {
    let e = env([]).await;
    let mgr = ApprovalManager::new(e.store.clone());
    let sid = e.session().await;
    assert!(run_context::list_bypasses(&mgr, &sid).is_empty());
    run_context::add_bypass(&mgr, &sid, BypassScopeView::All, Some(15));
    run_context::add_bypass(
        &mgr,
        &sid,
        BypassScopeView::Tool {
            name: "execute_cmd".into(),
        },
        None,
    );
    let listed = run_context::list_bypasses(&mgr, &sid);
    assert_eq!(listed.len(), 2, "{listed:?}");
    let all = listed
        .iter()
        .find(|b| b.scope == BypassScopeView::All)
        .unwrap();
    let left = all.remaining_ms.unwrap();
    assert!(
        left > 14 * 60_000 && left <= 15 * 60_000,
        "15 minutes less a moment: {left}"
    );
    let tool = listed
        .iter()
        .find(|b| b.scope != BypassScopeView::All)
        .unwrap();
    assert_eq!(tool.remaining_ms, None, "until stopped");
    // Another session sees none of them.
    let other = e.session().await;
    assert!(run_context::list_bypasses(&mgr, &other).is_empty());
    mgr.clear_bypasses(&sid);
    assert!(run_context::list_bypasses(&mgr, &sid).is_empty());
}
