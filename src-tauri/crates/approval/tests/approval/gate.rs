//! The gate's pieces outside the table: reasons, load failures, bypass
//! lifetime, validation of new rules, serialisation, and agreement with the
//! tools' own memory/ carve-out.

use serde_json::json;
use skald_approval::Action::{Allow, Deny, Require};
use skald_approval::{
    ApprovalError, Basis, Bypass, BypassScope, Bypasses, CallContext, Decision, Expiry, Now, Rule,
    RulesSnapshot, RunContext, decide, evaluate, validate_new_rule, validate_rule_update,
};
use skald_store::{ApprovalRuleRow, NewApprovalRule, RuleAction};
use skald_tools::fs::is_memory_path;
use skald_tools::tool_names as tn;

use crate::common::*;

#[test]
fn reasons_name_the_rule() {
    let ws = Workspace::new();
    let rules = RulesSnapshot::new([
        Rule::new(12, "default", "@fs_read", Allow)
            .unwrap()
            .with_path("docs/*")
            .unwrap(),
        Rule::new(13, "default", tn::EXECUTE_CMD, Require).unwrap(),
        Rule::new(14, "default", tn::RESTART, Deny).unwrap(),
    ]);
    let ctx = RunContext::in_dir(&ws.root);
    let reason =
        |tool: &str, args| evaluate(&rules, &CallContext::for_run(tool, &args, &ctx), &ctx).reason;
    assert_eq!(
        reason(tn::READ_FILE, json!({"path": "docs/a.md"})),
        "allowed by rule 12: @fs_read docs/*"
    );
    assert_eq!(
        reason(tn::EXECUTE_CMD, json!({})),
        "asked by rule 13: execute_cmd"
    );
    assert_eq!(reason(tn::RESTART, json!({})), "denied by rule 14: restart");
    assert_eq!(reason(tn::LIST_ITEMS, json!({})), "no rule matched: asking");
    assert_eq!(
        reason(tn::READ_FILE, json!({"path": "src/main.rs"})),
        "allowed by the run context: read under the working directory (no rule matched)"
    );
    let mut bypasses = Bypasses::new();
    bypasses.add(Bypass::new(BypassScope::Tool(tn::EXECUTE_CMD.to_string())));
    let call = CallContext::for_run(tn::EXECUTE_CMD, &json!({}), &ctx);
    assert_eq!(
        decide(&rules, &call, &ctx, &bypasses, Now::current()).reason,
        "allowed by a bypass (tool execute_cmd) (rule 13: execute_cmd asks)"
    );
}

#[test]
fn load_failure_asks() {
    let d = Decision::require_load_failure();
    assert_eq!(d.action, Require);
    assert_eq!(d.rule, None);
    assert_eq!(d.basis, Basis::LoadFailure);
    assert!(d.reason.contains("could not be loaded"));
}

#[test]
fn bypasses_clear_and_prune() {
    let ws = Workspace::new();
    let ctx = RunContext::in_dir(&ws.root);
    let rules = seeded_snapshot();
    let call = CallContext::for_run(tn::EXECUTE_CMD, &json!({}), &ctx);
    let now = Now::current();
    let mut bypasses = Bypasses::new();
    bypasses.add(Bypass::new(BypassScope::All).until(Expiry::UnixMs(now.unix_ms - 5)));
    bypasses.add(Bypass::new(BypassScope::All));
    assert_eq!(decide(&rules, &call, &ctx, &bypasses, now).action, Allow);
    bypasses.prune_expired(now);
    assert_eq!(bypasses.len(), 1);
    bypasses.clear(); // the session was stopped
    assert!(bypasses.is_empty());
    assert_eq!(decide(&rules, &call, &ctx, &bypasses, now).action, Require);
}

fn new_rule(group: &str, tool: &str, path: Option<&str>) -> NewApprovalRule {
    NewApprovalRule {
        group_name: group.to_string(),
        agent_id: None,
        source: None,
        tool_pattern: tool.to_string(),
        path_pattern: path.map(str::to_string),
        action: RuleAction::Require,
        note: None,
        priority: 0,
    }
}

fn row(id: i64, group: &str, tool: &str, path: Option<&str>) -> ApprovalRuleRow {
    let n = new_rule(group, tool, path);
    ApprovalRuleRow {
        id,
        group_name: n.group_name,
        agent_id: None,
        source: None,
        tool_pattern: n.tool_pattern,
        path_pattern: n.path_pattern,
        action: n.action,
        note: None,
        priority: 0,
        created_at: 0,
    }
}

#[test]
fn validation_allows_one_catch_all() {
    let existing = vec![
        row(11, "default", "*", None),
        row(12, "dev", tn::READ_FILE, None),
    ];
    let err = validate_new_rule(&new_rule("dev", "*", None), &existing).unwrap_err();
    assert!(
        matches!(err, ApprovalError::DuplicateCatchAll { existing: 11 }),
        "{err}"
    );
    // `*` with a path, an agent or a source is not a catch-all.
    validate_new_rule(&new_rule("dev", "*", Some("docs/*")), &existing).unwrap();
    let mut for_agent = new_rule("dev", "*", None);
    for_agent.agent_id = Some("coder".to_string());
    validate_new_rule(&for_agent, &existing).unwrap();
    // Editing the catch-all itself is fine; turning another rule into one is not.
    validate_rule_update(11, &new_rule("default", "*", None), &existing).unwrap();
    assert!(validate_rule_update(12, &new_rule("dev", "*", None), &existing).is_err());
    // Without one, a catch-all may be added.
    validate_new_rule(&new_rule("dev", "*", None), &existing[1..]).unwrap();
}

#[test]
fn validation_refuses_bad_rules() {
    let bad = [
        new_rule("dev", "", None),
        new_rule("dev", "*_file", None),
        new_rule("dev", "@fs_everything", None),
        new_rule("dev", "read file", None),
        new_rule("dev", tn::READ_FILE, Some("")),
        new_rule("dev", tn::READ_FILE, Some("docs/*/x")),
        new_rule(" ", tn::READ_FILE, None),
    ];
    for rule in &bad {
        assert!(
            validate_new_rule(rule, &[]).is_err(),
            "{rule:?} should be refused"
        );
    }
    let mut empty_agent = new_rule("dev", tn::READ_FILE, None);
    empty_agent.agent_id = Some(String::new());
    assert!(validate_new_rule(&empty_agent, &[]).is_err());
    for ok in [
        "*",
        "mcp__gmail__*",
        "@fs_read",
        "@fs_write",
        "@fs_any",
        tn::WRITE_FILE,
    ] {
        validate_new_rule(&new_rule("dev", ok, Some("docs/*")), &[]).unwrap();
    }
}

#[test]
fn stored_rules_with_bad_patterns_refuse_the_snapshot() {
    let mut r = row(7, "default", "@nope", None);
    assert!(matches!(
        Rule::from_row(&r),
        Err(ApprovalError::InvalidStoredRule { id: 7, .. })
    ));
    r.tool_pattern = tn::READ_FILE.to_string();
    r.path_pattern = Some("a*b".to_string());
    assert!(Rule::from_row(&r).is_err());
    r.path_pattern = Some("docs/*".to_string());
    let rule = Rule::from_row(&r).unwrap();
    assert_eq!(rule.to_ref().to_string(), "rule 7: read_file docs/*");
}

#[test]
fn run_context_and_decision_serialise() {
    let ctx = RunContext {
        permission_group: "dev".to_string(),
        extra_system_prompt: Some("be brief".to_string()),
        allow_fs_reads: vec!["/data".into()],
        allow_fs_writes: vec!["out".into()],
        working_dir: Some("/work".into()),
    };
    let value = serde_json::to_value(&ctx).unwrap();
    assert_eq!(value["permissionGroup"], "dev");
    assert_eq!(serde_json::from_value::<RunContext>(value).unwrap(), ctx);
    // Missing fields take their defaults (the group is `default`).
    let partial: RunContext = serde_json::from_value(json!({"workingDir": "/w"})).unwrap();
    assert_eq!(partial.permission_group, "default");

    let d = Decision::from_rule(&Rule::new(3, "default", tn::EXECUTE_CMD, Require).unwrap());
    let value = serde_json::to_value(&d).unwrap();
    assert_eq!(value["action"], "require");
    assert_eq!(value["rule"]["id"], 3);
    assert_eq!(serde_json::from_value::<Decision>(value).unwrap(), d);
}

#[test]
fn canonicalized_run_context_opens_symlinked_grants() {
    let ws = Workspace::new();
    // An allow_fs_reads entry that is itself a symlink (docs/ext -> ext).
    let ctx = RunContext {
        allow_fs_reads: vec![ws.root.join("docs/ext")],
        ..RunContext::in_dir(&ws.root)
    };
    let rules = seeded_snapshot();
    let call = CallContext::for_run(tn::READ_FILE, &json!({"path": ws.ext.join("x.txt")}), &ctx);
    assert_eq!(evaluate(&rules, &call, &ctx).action, Require);
    assert_eq!(evaluate(&rules, &call, &ctx.canonicalized()).action, Allow);
}

/// The seeded `@fs_write allow memory/*` and the tools' `is_memory_path`
/// agree on every write below memory/ (the rule also covers `memory` itself,
/// which no write tool can write).
#[test]
fn memory_rule_agrees_with_is_memory_path() {
    let ws = Workspace::new();
    let ctx = RunContext::in_dir(&ws.root);
    let rules = seeded_snapshot();
    for path in [
        "memory/notes.md",
        "memory/new/deep/n.md",
        "memory/../src/main.rs",
        "memory/link/a.md",
        "memoryX/a.md",
        "Memory/a.md",
        "src/main.rs",
        "docs/../memory/x.md",
    ] {
        let call = CallContext::for_run(tn::WRITE_FILE, &json!({"path": path}), &ctx);
        let by_rule = evaluate(&rules, &call, &ctx).rule.map(|r| r.id) == Some(MEMORY_ALLOW);
        let by_tools = is_memory_path(std::path::Path::new(path), &ws.root);
        assert_eq!(by_rule, by_tools, "{path}");
    }
}
