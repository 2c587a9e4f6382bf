//! Seeding on a real SQLite file: idempotent across runs and restarts, the
//! person's edits and deletions kept, no copies after a lost marker, and the
//! loaded snapshot equal to the one the decision table uses.

use serde_json::json;
use skald_approval::{
    Action, ApprovalError, CallContext, Decision, RunContext, SEED_MARKER_KEY, SEED_RULES, decide,
    evaluate, load_snapshot, seed_default_rules, validate_new_rule,
};
use skald_approval::{Bypasses, Now};
use skald_store::{DEFAULT_GROUP, NewApprovalRule, RuleAction, Store};
use skald_tools::tool_names as tn;

use crate::common::*;

async fn default_rules(store: &Store) -> Vec<(String, Option<String>, RuleAction)> {
    store
        .approval()
        .list_rules(DEFAULT_GROUP)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.tool_pattern, r.path_pattern, r.action))
        .collect()
}

#[tokio::test]
async fn fresh_ids_match_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let report = seed_default_rules(&store).await.unwrap();
    assert_eq!(report.inserted, (1..=14).collect::<Vec<i64>>());
    assert_eq!(load_snapshot(&store).await.unwrap(), seeded_snapshot());
}

/// The session's own tools (companion tools, delegation, listing) run
/// without asking on a fresh install: each has its seeded `allow`, not the
/// catch-all's `require`.
#[tokio::test]
async fn session_tools_run_without_asking_on_a_fresh_install() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    let snapshot = load_snapshot(&store).await.unwrap();
    let ws = Workspace::new();
    let ctx = RunContext::in_dir(&ws.root);
    for tool in [
        tn::UPDATE_SCRATCHPAD,
        tn::WRITE_TODOS,
        tn::ASK_USER_CLARIFICATION,
        tn::NOTIFY,
        tn::READ_NOTIFICATION,
        tn::SHOW_FILE_TO_USER,
        tn::ACTIVATE_TOOLS,
        tn::EXECUTE_TASK,
        tn::LIST_ITEMS,
    ] {
        let call = CallContext::for_run(tool, &json!({}), &ctx);
        let d = evaluate(&snapshot, &call, &ctx);
        let rule = d.rule.expect("a rule decides");
        assert_eq!(
            d.action,
            Action::Allow,
            "{tool}: decided by {}",
            rule.tool_pattern
        );
        assert_eq!(
            rule.tool_pattern.to_string(),
            tool,
            "{tool}: an exact seed, not a wider rule"
        );
    }
    // Whatever else is unknown still asks.
    let call = CallContext::for_run("some_new_tool", &json!({}), &ctx);
    assert_eq!(evaluate(&snapshot, &call, &ctx).action, Action::Require);
}

#[tokio::test]
async fn seeding_is_idempotent_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    let first = default_rules(&store).await;
    assert_eq!(first.len(), SEED_RULES.len());

    let again = seed_default_rules(&store).await.unwrap();
    assert!(again.inserted.is_empty());
    assert_eq!(again.already_seeded, SEED_RULES.len());
    assert_eq!(default_rules(&store).await, first);

    store.close().await;
    let store = Store::open(dir.path()).await.unwrap();
    let after_restart = seed_default_rules(&store).await.unwrap();
    assert!(after_restart.inserted.is_empty());
    assert_eq!(default_rules(&store).await, first);
    // Exactly one copy of each seed.
    for seed in &SEED_RULES {
        let copies = first
            .iter()
            .filter(|(t, p, _)| t == seed.tool_pattern && p.as_deref() == seed.path_pattern)
            .count();
        assert_eq!(copies, 1, "{}", seed.key);
    }
}

#[tokio::test]
async fn edits_and_deletions_survive_reseeding() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    let repo = store.approval();
    // The person lets execute_cmd run and deletes the restart rule.
    let exec = repo.get_rule(EXEC_REQUIRE).await.unwrap().unwrap();
    let edited = NewApprovalRule {
        group_name: exec.group_name,
        agent_id: exec.agent_id,
        source: exec.source,
        tool_pattern: exec.tool_pattern,
        path_pattern: exec.path_pattern,
        action: RuleAction::Allow,
        note: Some("I trust it".to_string()),
        priority: exec.priority,
    };
    repo.update_rule(EXEC_REQUIRE, &edited).await.unwrap();
    assert!(repo.delete_rule(RESTART_REQUIRE).await.unwrap());

    store.close().await;
    let store = Store::open(dir.path()).await.unwrap();
    let report = seed_default_rules(&store).await.unwrap();
    assert!(report.inserted.is_empty());
    let repo = store.approval();
    let exec = repo.get_rule(EXEC_REQUIRE).await.unwrap().unwrap();
    assert_eq!(exec.action, RuleAction::Allow);
    assert_eq!(exec.note.as_deref(), Some("I trust it"));
    assert!(repo.get_rule(RESTART_REQUIRE).await.unwrap().is_none());
    assert_eq!(default_rules(&store).await.len(), SEED_RULES.len() - 1);

    // The edited rule now decides.
    let ws = Workspace::new();
    let ctx = RunContext::in_dir(&ws.root);
    let snapshot = load_snapshot(&store).await.unwrap();
    let call = CallContext::for_run(tn::EXECUTE_CMD, &json!({"command": "ls"}), &ctx);
    let d = evaluate(&snapshot, &call, &ctx);
    assert_eq!(
        (d.action, d.rule.map(|r| r.id)),
        (Action::Allow, Some(EXEC_REQUIRE))
    );
}

#[tokio::test]
async fn a_lost_marker_makes_no_copies() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    // A crash between inserting the rules and recording them.
    assert!(store.settings().delete(SEED_MARKER_KEY).await.unwrap());
    let report = seed_default_rules(&store).await.unwrap();
    assert!(report.inserted.is_empty());
    assert_eq!(report.adopted, SEED_RULES.len());
    assert_eq!(default_rules(&store).await.len(), SEED_RULES.len());
    let marker = store
        .settings()
        .get(SEED_MARKER_KEY)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(marker.as_array().unwrap().len(), SEED_RULES.len());
}

#[tokio::test]
async fn a_second_catch_all_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    store.approval().create_group("dev", "").await.unwrap();
    let existing = store.approval().list_all_rules().await.unwrap();
    let catch_all = NewApprovalRule {
        group_name: "dev".to_string(),
        agent_id: None,
        source: None,
        tool_pattern: "*".to_string(),
        path_pattern: None,
        action: RuleAction::Allow,
        note: None,
        priority: 0,
    };
    let err = validate_new_rule(&catch_all, &existing).unwrap_err();
    assert!(matches!(err, ApprovalError::DuplicateCatchAll { existing } if existing == CATCH_ALL));
}

#[tokio::test]
async fn an_unparseable_stored_rule_means_asking() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    store
        .approval()
        .add_rule(&NewApprovalRule {
            group_name: DEFAULT_GROUP.to_string(),
            agent_id: None,
            source: None,
            tool_pattern: "@fs_everything".to_string(),
            path_pattern: None,
            action: RuleAction::Deny,
            note: None,
            priority: 0,
        })
        .await
        .unwrap();
    let err = load_snapshot(&store).await.unwrap_err();
    assert!(
        matches!(err, ApprovalError::InvalidStoredRule { .. }),
        "{err}"
    );
    // The gate then decides with require_load_failure — even for a tool the
    // seeds would allow.
    let d = load_snapshot(&store)
        .await
        .map(|rules| {
            let ws = Workspace::new();
            let ctx = RunContext::in_dir(&ws.root);
            let call = CallContext::for_run(tn::WRITE_TODOS, &json!({}), &ctx);
            decide(&rules, &call, &ctx, &Bypasses::new(), Now::current())
        })
        .unwrap_or_else(|_| Decision::require_load_failure());
    assert_eq!(d.action, Action::Require);
}
