//! "Always allow", table-driven: every row builds the rule from a call over
//! the seeded rules (plus the row's own), checks its pattern and priority,
//! then saves it as the next id and runs the real `evaluate` over probe
//! calls — the call itself, its neighbours, and the deny the rule must never
//! open.

use serde_json::{Value, json};
use skald_approval::Action::{self, Allow, Deny, Require};
use skald_approval::{
    ALWAYS_ALLOW_NOTE, ALWAYS_ALLOW_PRIORITY, ApprovalError, CallContext, Rule, RulesSnapshot,
    RunContext, SECRETS_DENY_PRIORITY, TOOL_RULE_PRIORITY, always_allow_rule, evaluate,
    load_snapshot, seed_default_rules, validate_new_rule,
};
use skald_store::{ApprovalRuleRow, DEFAULT_GROUP, NewApprovalRule, RuleAction, Store};
use skald_tools::tool_names as tn;

use crate::common::*;

/// The id the saved rule gets (after the 11 seeds and the rows' 101..).
const NEW: i64 = 200;
const N: Option<i64> = Some(NEW);
const S: Option<i64> = Some(SECRETS_DENY);
const C: Option<i64> = Some(CATCH_ALL);

fn args_of(ws: &Workspace, path: Option<&str>) -> Value {
    match path {
        Some(p) => json!({ "path": ws.fill(p) }),
        None => json!({ "command": "ls" }),
    }
}

fn ctx_in(ws: &Workspace, group: &str) -> RunContext {
    RunContext {
        permission_group: group.to_string(),
        ..RunContext::in_dir(&ws.root)
    }
}

/// The rule as the store would hand it back with id `id`.
fn saved(new: &NewApprovalRule, id: i64) -> Rule {
    Rule::from_row(&ApprovalRuleRow {
        id,
        group_name: new.group_name.clone(),
        agent_id: new.agent_id.clone(),
        source: new.source.clone(),
        tool_pattern: new.tool_pattern.clone(),
        path_pattern: new.path_pattern.clone(),
        action: new.action,
        note: new.note.clone(),
        priority: new.priority,
        created_at: 0,
    })
    .unwrap()
}

/// A copy of the seeded secrets deny in `group` (what `create_group`'s
/// `copy_from: default` makes).
fn secrets_deny_in(id: i64, group: &str) -> Rule {
    Rule::new(id, group, "@fs_any", Deny)
        .unwrap()
        .with_path("secrets/*")
        .unwrap()
        .with_priority(SECRETS_DENY_PRIORITY)
}

struct Row {
    name: &'static str,
    group: &'static str,
    extra: Vec<Rule>,
    tool: &'static str,
    path: Option<&'static str>,
    /// Expected path pattern (`{root}` etc. filled in).
    pattern: Option<&'static str>,
    priority: i64,
    /// (tool, path, action, deciding rule) once the rule is saved.
    probes: Vec<(&'static str, Option<&'static str>, Action, Option<i64>)>,
}

fn row(name: &'static str, tool: &'static str, path: Option<&'static str>) -> Row {
    Row {
        name,
        group: DEFAULT_GROUP,
        extra: Vec::new(),
        tool,
        path,
        pattern: None,
        priority: ALWAYS_ALLOW_PRIORITY,
        probes: Vec::new(),
    }
}

impl Row {
    fn group(mut self, g: &'static str) -> Self {
        self.group = g;
        self
    }
    fn extra<const K: usize>(mut self, rules: [Rule; K]) -> Self {
        self.extra.extend(rules);
        self
    }
    fn saves(mut self, pattern: Option<&'static str>, priority: i64) -> Self {
        self.pattern = pattern;
        self.priority = priority;
        self
    }
    fn probe(
        mut self,
        tool: &'static str,
        path: Option<&'static str>,
        action: Action,
        rule: Option<i64>,
    ) -> Self {
        self.probes.push((tool, path, action, rule));
        self
    }
}

fn rows() -> Vec<Row> {
    let p = ALWAYS_ALLOW_PRIORITY;
    vec![
        row("shell tool in default now allowed", tn::EXECUTE_CMD, None)
            .saves(None, p)
            .probe(tn::EXECUTE_CMD, None, Allow, N)
            .probe(tn::RESTART, None, Require, Some(RESTART_REQUIRE))
            .probe(tn::IMAGE_GENERATE_PROVIDERS_LIST, None, Require, C),
        row("restart in default now allowed", tn::RESTART, None)
            .saves(None, p)
            .probe(tn::RESTART, None, Allow, N)
            .probe(tn::EXECUTE_CMD, None, Require, Some(EXEC_REQUIRE)),
        row(
            "write at the workdir root: the workdir, not the disk",
            tn::WRITE_FILE,
            Some("{root}/new.txt"),
        )
        .saves(Some("{root}/*"), p)
        .probe(tn::WRITE_FILE, Some("{root}/new.txt"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{root}/src/main.rs"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{root}/out/deep/x"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{ext}/x.txt"), Require, C)
        .probe(tn::WRITE_FILE, Some("/etc/skald-probe"), Require, C)
        .probe(tn::WRITE_FILE, Some("{root}X/a"), Require, C)
        .probe(tn::WRITE_FILE, Some("{root}/docs/ext/x.txt"), Require, C)
        .probe(tn::EDIT_FILE, Some("{root}/src/main.rs"), Require, C),
        row(
            "write at the root: secrets deny still wins",
            tn::WRITE_FILE,
            Some("{root}/new.txt"),
        )
        .saves(Some("{root}/*"), p)
        .probe(tn::WRITE_FILE, Some("{root}/secrets/k"), Deny, S)
        .probe(tn::WRITE_FILE, Some("{root}/secrets/new"), Deny, S)
        .probe(tn::WRITE_FILE, Some("{root}/Secrets/k"), Deny, S)
        .probe(tn::WRITE_FILE, Some("{root}/public/k"), Deny, S)
        .probe(tn::WRITE_FILE, Some("{root}/docs/link/k"), Deny, S)
        .probe(tn::WRITE_FILE, Some("{root}/src/../secrets/k"), Deny, S)
        .probe(tn::WRITE_FILE, Some("{root}/memory/sec/k"), Deny, S)
        .probe(
            tn::WRITE_FILE,
            Some("{root}/memory/notes.md"),
            Allow,
            Some(MEMORY_ALLOW),
        ),
        row("relative path at the root", tn::WRITE_FILE, Some("new.txt"))
            .saves(Some("{root}/*"), p)
            .probe(tn::WRITE_FILE, Some("src/main.rs"), Allow, N),
        row(
            "write in a subdir: that subdir",
            tn::WRITE_FILE,
            Some("{root}/src/main.rs"),
        )
        .saves(Some("{root}/src/*"), p)
        .probe(tn::WRITE_FILE, Some("{root}/src/main.rs"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{root}/src/new/x.rs"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{root}/new.txt"), Require, C)
        .probe(tn::WRITE_FILE, Some("{root}/docs/a.md"), Require, C)
        .probe(tn::WRITE_FILE, Some("{root}/srcX/a"), Require, C)
        .probe(tn::WRITE_FILE, Some("{root}/src/../secrets/k"), Deny, S),
        row(
            "write through a symlink: where it really lands",
            tn::WRITE_FILE,
            Some("{root}/docs/ext/new.txt"),
        )
        .saves(Some("{ext}/*"), p)
        .probe(tn::WRITE_FILE, Some("{ext}/x.txt"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{root}/docs/a.md"), Require, C),
        row(
            "read outside the workdir: that directory",
            tn::READ_FILE,
            Some("{ext}/x.txt"),
        )
        .saves(Some("{ext}/*"), p)
        .probe(tn::READ_FILE, Some("{ext}/x.txt"), Allow, N)
        .probe(tn::READ_FILE, Some("/etc/skald-probe"), Require, C)
        .probe(tn::WRITE_FILE, Some("{ext}/x.txt"), Require, C),
        row(
            "search_file is limited like read_file",
            tn::SEARCH_FILE,
            Some("{ext}/x.txt"),
        )
        .saves(Some("{ext}/*"), p)
        .probe(tn::SEARCH_FILE, Some("/etc/skald-probe"), Require, C),
        row(
            "list_files: the listed directory and below",
            tn::LIST_FILES,
            Some("{root}/docs/ext"),
        )
        .saves(Some("{ext}/*"), p)
        .probe(tn::LIST_FILES, Some("{ext}"), Allow, N)
        .probe(tn::LIST_FILES, Some("{ext}/.."), Require, C)
        .probe(tn::LIST_FILES, Some("/etc"), Require, C),
        row(
            "read in a strict group: limited, and its secrets deny copy wins",
            tn::READ_FILE,
            Some("{root}/docs/a.md"),
        )
        .group("strict")
        .extra([
            secrets_deny_in(101, "strict"),
            Rule::new(102, "strict", "@fs_read", Require).unwrap(),
        ])
        .saves(Some("{root}/docs/*"), p)
        .probe(tn::READ_FILE, Some("{root}/docs/sub/b.md"), Allow, N)
        .probe(
            tn::READ_FILE,
            Some("{root}/src/main.rs"),
            Require,
            Some(102),
        )
        .probe(tn::READ_FILE, Some("{root}/docs/link/k"), Deny, Some(101))
        .probe(tn::READ_FILE, Some("{root}/secrets/k"), Deny, Some(101)),
        row(
            "grep_files without a path: the workdir",
            tn::GREP_FILES,
            None,
        )
        .group("strict")
        .extra([
            secrets_deny_in(101, "strict"),
            Rule::new(102, "strict", "@fs_read", Require).unwrap(),
        ])
        .saves(Some("{root}/*"), p)
        .probe(tn::GREP_FILES, Some("{root}/src"), Allow, N)
        .probe(tn::GREP_FILES, Some("{ext}"), Require, Some(102))
        .probe(tn::GREP_FILES, Some("{root}/secrets"), Deny, Some(101)),
        row(
            "a write in a group with the secrets deny copied",
            tn::WRITE_FILE,
            Some("{root}/new.txt"),
        )
        .group("dev")
        .extra([secrets_deny_in(101, "dev")])
        .saves(Some("{root}/*"), p)
        .probe(tn::WRITE_FILE, Some("{root}/src/main.rs"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{root}/secrets/k"), Deny, Some(101))
        .probe(tn::WRITE_FILE, Some("{root}/public/k"), Deny, Some(101)),
        row(
            "shell tool in a custom group (no deny names it)",
            tn::EXECUTE_CMD,
            None,
        )
        .group("dev")
        .saves(None, p)
        .probe(tn::EXECUTE_CMD, None, Allow, N),
        row(
            "placed below a lower deny of the group naming the tool",
            tn::WRITE_FILE,
            Some("{root}/src/main.rs"),
        )
        .extra([Rule::new(101, "default", "@fs_write", Deny)
            .unwrap()
            .with_path("src/gen/*")
            .unwrap()])
        .saves(Some("{root}/src/*"), -1)
        .probe(tn::WRITE_FILE, Some("{root}/src/main.rs"), Allow, N)
        .probe(tn::WRITE_FILE, Some("{root}/src/gen/x.rs"), Deny, Some(101))
        .probe(tn::WRITE_FILE, Some("{root}/secrets/k"), Deny, S),
        row(
            "a deny of another tool does not lower it",
            tn::WRITE_FILE,
            Some("{root}/src/main.rs"),
        )
        .extra([Rule::new(101, "default", tn::READ_FILE, Deny)
            .unwrap()
            .with_path("src/*")
            .unwrap()])
        .saves(Some("{root}/src/*"), p),
        row(
            "MCP tool without a path: tool only",
            "mcp__gmail__send",
            None,
        )
        .saves(None, p)
        .probe("mcp__gmail__send", None, Allow, N)
        .probe("mcp__gmail__delete", None, Require, C),
        row(
            "MCP tool with a path: limited like a file tool",
            "mcp__fs__write",
            Some("{root}/src/main.rs"),
        )
        .saves(Some("{root}/src/*"), p)
        .probe("mcp__fs__write", Some("{root}/src/x.rs"), Allow, N)
        .probe("mcp__fs__write", Some("{root}/docs/a.md"), Require, C)
        .probe("mcp__fs__write", None, Require, C),
        row(
            "a file right under / gets exactly that file",
            tn::READ_FILE,
            Some("/skald-no-such-file.txt"),
        )
        .saves(Some("/skald-no-such-file.txt"), p)
        .probe(tn::READ_FILE, Some("/skald-no-such-file.txt"), Allow, N)
        .probe(tn::READ_FILE, Some("/skald-other.txt"), Require, C),
    ]
}

#[test]
fn always_allow_table() {
    let ws = Workspace::new();
    let mut failures = Vec::new();
    let rows = rows();
    for row in &rows {
        let rules = RulesSnapshot::new(seeded_rules().into_iter().chain(row.extra.clone()));
        let ctx = ctx_in(&ws, row.group);
        let call = CallContext::for_run(row.tool, &args_of(&ws, row.path), &ctx);
        let new = match always_allow_rule(&rules, &call, &ctx) {
            Ok(new) => new,
            Err(e) => {
                failures.push(format!("{}: refused: {e}", row.name));
                continue;
            }
        };
        let want = NewApprovalRule {
            group_name: row.group.to_string(),
            agent_id: None,
            source: None,
            tool_pattern: row.tool.to_string(),
            path_pattern: row.pattern.map(|p| ws.fill(p)),
            action: RuleAction::Allow,
            note: Some(ALWAYS_ALLOW_NOTE.to_string()),
            priority: row.priority,
        };
        if new != want {
            failures.push(format!("{}: built {new:?}, expected {want:?}", row.name));
            continue;
        }
        let after = RulesSnapshot::new(rules.iter().cloned().chain([saved(&new, NEW)]));
        // The call the rule was made from is always the first probe.
        let own = (row.tool, row.path, Allow, N);
        for (tool, path, action, rule) in std::iter::once(own).chain(row.probes.iter().copied()) {
            let probe = CallContext::for_run(tool, &args_of(&ws, path), &ctx);
            let d = evaluate(&after, &probe, &ctx);
            let got = (d.action, d.rule.as_ref().map(|r| r.id));
            if got != (action, rule) {
                failures.push(format!(
                    "{}: {tool} {path:?}: expected {action:?} by {rule:?}, got {got:?} ({})",
                    row.name, d.reason
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures over {} rows:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// The bug this replaces: at the seeded rules' own priority the new rule
/// sorts after the seeded `require` (same priority, higher id) and does
/// nothing.
#[test]
fn the_seeded_priority_would_have_had_no_effect() {
    let ws = Workspace::new();
    let ctx = ctx_in(&ws, DEFAULT_GROUP);
    let call = CallContext::for_run(tn::EXECUTE_CMD, &json!({"command": "ls"}), &ctx);
    let old = Rule::new(NEW, DEFAULT_GROUP, tn::EXECUTE_CMD, Allow)
        .unwrap()
        .with_priority(TOOL_RULE_PRIORITY);
    let rules = RulesSnapshot::new(seeded_rules().into_iter().chain([old]));
    let d = evaluate(&rules, &call, &ctx);
    assert_eq!(
        (d.action, d.rule.map(|r| r.id)),
        (Require, Some(EXEC_REQUIRE))
    );
}

fn refusal(group: &str, extra: Vec<Rule>, tool: &str, path: Option<&str>) -> ApprovalError {
    let ws = Workspace::new();
    let rules = RulesSnapshot::new(seeded_rules().into_iter().chain(extra));
    let ctx = ctx_in(&ws, group);
    let call = CallContext::for_run(tool, &args_of(&ws, path), &ctx);
    match always_allow_rule(&rules, &call, &ctx) {
        Ok(new) => panic!("{tool} {path:?} in {group}: expected a refusal, built {new:?}"),
        Err(e) => e,
    }
}

#[test]
fn a_group_without_the_secrets_deny_is_refused_a_file_rule() {
    // dev's rules all come before default's: an allow there would open
    // secrets/ whatever its priority.
    for tool in [tn::WRITE_FILE, tn::READ_FILE, tn::LIST_FILES] {
        let err = refusal("dev", Vec::new(), tool, Some("{root}/src/main.rs"));
        assert!(
            matches!(&err, ApprovalError::AlwaysAllowOverridesDeny { group, deny }
                if group == "dev" && deny.id == SECRETS_DENY),
            "{tool}: {err}"
        );
        assert!(
            err.to_string().contains("rule 1: @fs_any secrets/*"),
            "{err}"
        );
    }
    // A copy narrowed to one agent does not cover the deny.
    let narrowed = secrets_deny_in(101, "dev").with_agent("a1");
    let err = refusal(
        "dev",
        vec![narrowed],
        tn::WRITE_FILE,
        Some("{root}/new.txt"),
    );
    assert!(
        matches!(&err, ApprovalError::AlwaysAllowOverridesDeny { .. }),
        "{err}"
    );
    // A default deny of the tool by name is never overridden either.
    let by_name = Rule::new(101, DEFAULT_GROUP, tn::EXECUTE_CMD, Deny).unwrap();
    let err = refusal("dev", vec![by_name], tn::EXECUTE_CMD, None);
    assert!(
        matches!(&err, ApprovalError::AlwaysAllowOverridesDeny { deny, .. } if deny.id == 101),
        "{err}"
    );
}

#[test]
fn a_rule_that_would_not_decide_the_call_is_refused() {
    // The person's own require above ALWAYS_ALLOW_PRIORITY still comes first.
    let ask = Rule::new(101, DEFAULT_GROUP, tn::WRITE_FILE, Require)
        .unwrap()
        .with_path("src/*")
        .unwrap()
        .with_priority(ALWAYS_ALLOW_PRIORITY + 100);
    let err = refusal(
        DEFAULT_GROUP,
        vec![ask],
        tn::WRITE_FILE,
        Some("{root}/src/main.rs"),
    );
    assert!(
        matches!(&err, ApprovalError::AlwaysAllowHasNoEffect { decided_by }
            if decided_by.contains("rule 101")),
        "{err}"
    );
    // A call a deny stops gets no allow either.
    let err = refusal(
        DEFAULT_GROUP,
        Vec::new(),
        tn::WRITE_FILE,
        Some("{root}/secrets/k"),
    );
    assert!(
        matches!(&err, ApprovalError::AlwaysAllowHasNoEffect { decided_by }
            if decided_by.contains("rule 1:")),
        "{err}"
    );
}

#[test]
fn names_and_paths_that_are_not_exact_patterns_are_refused() {
    for tool in ["mcp__x__*", "@fs_read"] {
        let err = refusal(DEFAULT_GROUP, Vec::new(), tool, None);
        assert!(
            matches!(&err, ApprovalError::InvalidToolPattern { .. }),
            "{tool}: {err}"
        );
    }
    let err = refusal(DEFAULT_GROUP, Vec::new(), tn::LIST_FILES, Some("/"));
    assert!(
        matches!(&err, ApprovalError::InvalidPathPattern { .. }),
        "{err}"
    );
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("we*ird")).unwrap();
    let ctx = ctx_in(&ws, DEFAULT_GROUP);
    let args = json!({ "path": ws.fill("{root}/we*ird/f.txt") });
    let call = CallContext::for_run(tn::WRITE_FILE, &args, &ctx);
    let err = always_allow_rule(&seeded_snapshot(), &call, &ctx).unwrap_err();
    assert!(
        matches!(&err, ApprovalError::InvalidPathPattern { .. }),
        "{err}"
    );
}

/// Through a real database: seeded, saved with the store's own id,
/// validated, reloaded, evaluated.
#[tokio::test]
async fn the_saved_rule_decides_after_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    seed_default_rules(&store).await.unwrap();
    let ws = Workspace::new();
    let ctx = ctx_in(&ws, DEFAULT_GROUP);
    let repo = store.approval();
    for (tool, args) in [
        (tn::EXECUTE_CMD, json!({"command": "ls"})),
        (tn::WRITE_FILE, json!({"path": ws.fill("{root}/new.txt")})),
    ] {
        let rules = load_snapshot(&store).await.unwrap();
        let call = CallContext::for_run(tool, &args, &ctx);
        assert_eq!(evaluate(&rules, &call, &ctx).action, Require, "{tool}");
        let new = always_allow_rule(&rules, &call, &ctx).unwrap();
        validate_new_rule(&new, &repo.list_all_rules().await.unwrap()).unwrap();
        let id = repo.add_rule(&new).await.unwrap().id;
        let d = evaluate(&load_snapshot(&store).await.unwrap(), &call, &ctx);
        assert_eq!(
            (d.action, d.rule.map(|r| r.id)),
            (Allow, Some(id)),
            "{tool}"
        );
    }
    let rules = load_snapshot(&store).await.unwrap();
    let secret = json!({"path": ws.fill("{root}/secrets/k")});
    let d = evaluate(
        &rules,
        &CallContext::for_run(tn::WRITE_FILE, &secret, &ctx),
        &ctx,
    );
    assert_eq!((d.action, d.rule.map(|r| r.id)), (Deny, S));
}
