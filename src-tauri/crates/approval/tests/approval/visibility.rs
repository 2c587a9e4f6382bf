//! The visibility filter: a deny by name hides a tool from the model; MCP
//! tools are never hidden; path-specific denies do not hide; the lazy config
//! group's definitions go through the same filter.

use serde_json::{Value, json};
use skald_approval::Action::{Allow, Deny, Require};
use skald_approval::{
    Rule, RulesSnapshot, RunContext, tool_def_name, visible_tool_defs, visible_tool_defs_for_agent,
};
use skald_tools::tool_names as tn;
use skald_tools::{BuiltinDeps, builtin_registry};

use crate::common::*;

fn def(name: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "description": "", "parameters": {}}})
}

fn names(defs: &[Value]) -> Vec<String> {
    defs.iter()
        .filter_map(tool_def_name)
        .map(str::to_string)
        .collect()
}

fn with(extra: Vec<Rule>) -> RulesSnapshot {
    let mut rules = seeded_rules();
    rules.extend(extra);
    RulesSnapshot::new(rules)
}

fn group(name: &str) -> RunContext {
    RunContext {
        permission_group: name.to_string(),
        ..RunContext::default()
    }
}

fn builtin_defs() -> Vec<Value> {
    builtin_registry(&BuiltinDeps::default()).openai_definitions()
}

fn config_defs() -> Vec<Value> {
    [
        tn::SET_SECRET,
        tn::LIST_SECRETS,
        tn::REGISTER_MCP,
        tn::DELETE_MCP,
        tn::CONFIGURE_PLUGIN,
        tn::DELETE_CRON_JOB,
        tn::TOGGLE_ITEM,
    ]
    .into_iter()
    .map(def)
    .collect()
}

#[test]
fn seeded_rules_hide_nothing() {
    let defs = builtin_defs();
    assert!(names(&defs).contains(&tn::READ_FILE.to_string()));
    // The secrets deny is path-specific: read_file and write_file stay offered.
    let visible = visible_tool_defs(defs.clone(), &seeded_snapshot(), &group("default"));
    assert_eq!(names(&visible), names(&defs));
}

#[test]
fn a_deny_by_name_hides_the_tool_in_its_group_only() {
    let rules = with(vec![Rule::new(101, "dev", tn::EXECUTE_CMD, Deny).unwrap()]);
    let dev = names(&visible_tool_defs(builtin_defs(), &rules, &group("dev")));
    assert!(!dev.contains(&tn::EXECUTE_CMD.to_string()));
    assert_eq!(dev.len(), builtin_defs().len() - 1);
    let default = names(&visible_tool_defs(
        builtin_defs(),
        &rules,
        &group("default"),
    ));
    assert!(default.contains(&tn::EXECUTE_CMD.to_string()));
}

#[test]
fn a_class_deny_hides_the_class() {
    let rules = with(vec![Rule::new(101, "dev", "@fs_write", Deny).unwrap()]);
    let visible = names(&visible_tool_defs(builtin_defs(), &rules, &group("dev")));
    for w in [
        tn::WRITE_FILE,
        tn::EDIT_FILE,
        tn::INSERT_AT_LINE,
        tn::REPLACE_LINES,
    ] {
        assert!(!visible.contains(&w.to_string()), "{w}");
    }
    for r in [
        tn::READ_FILE,
        tn::GREP_FILES,
        tn::LIST_FILES,
        tn::SEARCH_FILE,
        tn::GET_AST_OUTLINE,
    ] {
        assert!(visible.contains(&r.to_string()), "{r}");
    }
}

#[test]
fn a_path_specific_deny_does_not_hide() {
    let rules = with(vec![
        Rule::new(101, "dev", tn::READ_FILE, Deny)
            .unwrap()
            .with_path("*")
            .unwrap(),
    ]);
    let visible = names(&visible_tool_defs(builtin_defs(), &rules, &group("dev")));
    assert!(visible.contains(&tn::READ_FILE.to_string()));
}

#[test]
fn only_the_first_match_by_name_counts() {
    let require_first = with(vec![
        Rule::new(101, "dev", tn::WRITE_FILE, Require)
            .unwrap()
            .with_priority(10),
        Rule::new(102, "dev", tn::WRITE_FILE, Deny).unwrap(),
    ]);
    let visible = names(&visible_tool_defs(
        builtin_defs(),
        &require_first,
        &group("dev"),
    ));
    assert!(visible.contains(&tn::WRITE_FILE.to_string()));
    let deny_first = with(vec![
        Rule::new(101, "dev", tn::WRITE_FILE, Allow).unwrap(),
        Rule::new(102, "dev", tn::WRITE_FILE, Deny)
            .unwrap()
            .with_priority(10),
    ]);
    let visible = names(&visible_tool_defs(
        builtin_defs(),
        &deny_first,
        &group("dev"),
    ));
    assert!(!visible.contains(&tn::WRITE_FILE.to_string()));
}

#[test]
fn mcp_tools_are_never_hidden() {
    let rules = with(vec![
        Rule::new(101, "dev", "*", Deny).unwrap().with_priority(-10),
        Rule::new(102, "dev", "mcp__*", Deny).unwrap(),
        Rule::new(103, "dev", "mcp__gmail__send", Deny).unwrap(),
    ]);
    let mut defs = builtin_defs();
    defs.push(def("mcp__gmail__send"));
    defs.push(def("mcp__github__list"));
    let visible = names(&visible_tool_defs(defs, &rules, &group("dev")));
    assert_eq!(visible, ["mcp__gmail__send", "mcp__github__list"]);
}

#[test]
fn agent_specific_denies_hide_for_that_agent() {
    let rules = with(vec![
        Rule::new(101, "dev", tn::EXECUTE_CMD, Deny)
            .unwrap()
            .with_agent("coder"),
    ]);
    let ctx = group("dev");
    let exec = tn::EXECUTE_CMD.to_string();
    assert!(names(&visible_tool_defs(builtin_defs(), &rules, &ctx)).contains(&exec));
    let coder = visible_tool_defs_for_agent(builtin_defs(), &rules, &ctx, Some("coder"));
    assert!(!names(&coder).contains(&exec));
    let other = visible_tool_defs_for_agent(builtin_defs(), &rules, &ctx, Some("other"));
    assert!(names(&other).contains(&exec));
}

#[test]
fn source_specific_denies_do_not_hide() {
    let rules = with(vec![
        Rule::new(101, "dev", "*", Deny)
            .unwrap()
            .with_source("builtin"),
    ]);
    let visible = visible_tool_defs(builtin_defs(), &rules, &group("dev"));
    assert_eq!(visible.len(), builtin_defs().len());
}

#[test]
fn the_config_group_is_filtered_the_same() {
    let rules = with(vec![
        Rule::new(101, "dev", tn::REGISTER_MCP, Deny).unwrap(),
        Rule::new(102, "dev", "delete_*", Deny).unwrap(),
    ]);
    let ctx = group("dev");
    let visible = names(&visible_tool_defs(config_defs(), &rules, &ctx));
    assert_eq!(
        visible,
        [
            tn::SET_SECRET,
            tn::LIST_SECRETS,
            tn::CONFIGURE_PLUGIN,
            tn::TOGGLE_ITEM
        ]
    );
    // Activating config brings nothing the base filter would hide.
    let mut all = builtin_defs();
    all.extend(config_defs());
    let filtered_together = names(&visible_tool_defs(all, &rules, &ctx));
    let mut filtered_apart = names(&visible_tool_defs(builtin_defs(), &rules, &ctx));
    filtered_apart.extend(visible);
    assert_eq!(filtered_together, filtered_apart);
    // And in a group without those rules nothing is hidden.
    assert_eq!(
        visible_tool_defs(config_defs(), &rules, &group("default")).len(),
        config_defs().len()
    );
}

#[test]
fn order_is_kept_and_odd_definitions_handled() {
    let rules = with(vec![Rule::new(101, "dev", tn::NOTIFY, Deny).unwrap()]);
    let defs = vec![
        def(tn::WRITE_TODOS),
        json!({"name": tn::NOTIFY}),
        json!({"type": "function"}),
        def(tn::ACTIVATE_TOOLS),
    ];
    let visible = visible_tool_defs(defs, &rules, &group("dev"));
    assert_eq!(visible.len(), 3);
    assert_eq!(tool_def_name(&visible[0]), Some(tn::WRITE_TODOS));
    assert_eq!(tool_def_name(&visible[1]), None);
    assert_eq!(tool_def_name(&visible[2]), Some(tn::ACTIVATE_TOOLS));
}
