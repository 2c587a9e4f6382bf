//! Editing a rule through a form without agent and source fields keeps
//! those filters, on a real database: the edited rule is no wider than
//! before.

use serde_json::json;
use skald_approval::Action::{Deny, Require};
use skald_approval::{
    CallContext, RunContext, edited_rule, evaluate, load_snapshot, seed_default_rules,
    validate_rule_update,
};
use skald_store::{DEFAULT_GROUP, NewApprovalRule, RuleAction, Store};
use skald_tools::tool_names as tn;

use crate::common::*;

#[tokio::test]
async fn an_edit_keeps_the_agent_and_source_filters() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    let repo = store.approval();
    let stored = repo
        .add_rule(&NewApprovalRule {
            group_name: DEFAULT_GROUP.to_string(),
            agent_id: Some("intern".to_string()),
            source: Some("builtin".to_string()),
            tool_pattern: tn::IMAGE_GENERATE_PROVIDERS_LIST.to_string(),
            path_pattern: None,
            action: RuleAction::Deny,
            note: None,
            priority: 0,
        })
        .await
        .unwrap();

    // What the rule editor sends: no agent or source, a new note and priority.
    let form = NewApprovalRule {
        group_name: DEFAULT_GROUP.to_string(),
        agent_id: None,
        source: None,
        tool_pattern: tn::IMAGE_GENERATE_PROVIDERS_LIST.to_string(),
        path_pattern: None,
        action: RuleAction::Deny,
        note: Some("interns never list items".to_string()),
        priority: 5,
    };
    let rule = edited_rule(&stored, form);
    validate_rule_update(stored.id, &rule, &repo.list_all_rules().await.unwrap()).unwrap();
    let after = repo.update_rule(stored.id, &rule).await.unwrap();
    assert_eq!(after.agent_id.as_deref(), Some("intern"));
    assert_eq!(after.source.as_deref(), Some("builtin"));
    assert_eq!(after.note.as_deref(), Some("interns never list items"));
    assert_eq!(after.priority, 5);

    // Still only the intern's builtin calls are denied.
    let ws = Workspace::new();
    let ctx = RunContext::in_dir(&ws.root);
    let rules = load_snapshot(&store).await.unwrap();
    let call = |agent: &str| {
        CallContext::for_run(tn::IMAGE_GENERATE_PROVIDERS_LIST, &json!({}), &ctx)
            .with_agent(agent)
            .with_source("builtin")
    };
    assert_eq!(evaluate(&rules, &call("intern"), &ctx).action, Deny);
    assert_eq!(evaluate(&rules, &call("root"), &ctx).action, Require);
}
