//! Registry, catalogue and discovery behaviour with small test tools.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skald_core_api::*;
use skald_protocol::ToolKind;
use skald_tools::tool_names as tn;
use skald_tools::*;

struct T {
    name: &'static str,
    category: ToolCategory,
    sub_only: bool,
    root_only: bool,
}

impl Tool for T {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "a test tool"
    }
    fn parameters_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn category(&self) -> ToolCategory {
        self.category
    }
    fn sub_agents_only(&self) -> bool {
        self.sub_only
    }
    fn root_agent_only(&self) -> bool {
        self.root_only
    }
    fn describe(&self, args: &Value, _length: ToolDescriptionLength) -> String {
        format!("{} {}", self.name, args["x"].as_str().unwrap_or(""))
    }
    fn target_path(&self, args: &Value) -> Option<String> {
        args["path"].as_str().map(str::to_string)
    }
    fn effective_args(&self, mut args: Value, workdir: &Path) -> Value {
        args["workdir"] = json!(workdir.display().to_string());
        args
    }
    fn execute(&self, args: Value) -> ToolResult {
        Ok(format!("{} ran with {args}", self.name))
    }
}

fn t(name: &'static str, category: ToolCategory, sub_only: bool, root_only: bool) -> T {
    T {
        name,
        category,
        sub_only,
        root_only,
    }
}

fn registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register(t("zeta", ToolCategory::Filesystem, false, false));
    r.register(t("alpha", ToolCategory::Shell, false, true));
    r.register(t("sub", ToolCategory::Introspection, true, false));
    r.register(t("cfg", ToolCategory::Config, false, false));
    r
}

fn def_names(defs: &[Value]) -> Vec<String> {
    defs.iter()
        .map(|d| d["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn definitions_filter_by_visibility_and_are_sorted() {
    let r = registry();
    assert_eq!(def_names(&r.openai_definitions()), ["alpha", "cfg", "zeta"]);
    assert_eq!(def_names(&r.openai_definitions_sub_agents_only()), ["sub"]);
    assert_eq!(
        def_names(&r.openai_definitions_excluding_config()),
        ["alpha", "zeta"]
    );
    assert_eq!(def_names(&r.openai_definitions_config_only()), ["cfg"]);
    assert_eq!(r.root_agent_only_names(), ["alpha"]);
}

#[test]
fn list_all_and_category_of() {
    let r = registry();
    let names: Vec<_> = r.list_all().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["alpha", "cfg", "sub", "zeta"]);
    assert_eq!(r.category_of("cfg"), Some(ToolCategory::Config));
    assert_eq!(r.category_of("nope"), None);
    assert_eq!(r.category_of(tn::WRITE_TODOS), None);
    assert_eq!(r.len(), 4);
    assert!(r.contains("sub") && !r.contains("nope"));
}

#[test]
fn re_registering_a_name_replaces_it() {
    let mut r = registry();
    r.register(t("zeta", ToolCategory::Config, false, false));
    assert_eq!(r.len(), 4);
    assert_eq!(r.category_of("zeta"), Some(ToolCategory::Config));
}

#[tokio::test]
async fn dispatch_and_run_known_and_unknown_names() {
    let r = registry();
    assert_eq!(
        r.dispatch("zeta", json!({})).await.unwrap(),
        "zeta ran with {}"
    );
    assert_eq!(
        r.dispatch("nope", json!({})).await,
        Err(ToolError::UnknownTool("nope".into()))
    );
    assert!(r.run("nope", json!({})).is_none());
    let exec = r.run("alpha", json!({"a": 1})).unwrap();
    let outcome = drive_execution(exec.as_ref(), CancellationToken::new()).await;
    assert_eq!(
        outcome,
        ExecutionOutcome::Completed(r#"alpha ran with {"a":1}"#.into())
    );
}

/// Outside the registry a name is just its name: the registry knows no
/// session or MCP tool by name (a `ToolSet` holding them labels those).
#[test]
fn describe_call_uses_the_tool_else_the_name() {
    let r = registry();
    let short = ToolDescriptionLength::Short;
    assert_eq!(
        r.describe_call("zeta", &json!({"x": "hi"}), short),
        "zeta hi"
    );
    assert_eq!(
        r.describe_call("unknown_tool", &json!({}), short),
        "unknown_tool"
    );
    assert_eq!(
        r.describe_call("mcp__gmail__send", &json!({"to": "x"}), short),
        "mcp__gmail__send"
    );
    for name in [tn::SHOW_FILE_TO_USER, tn::EXECUTE_TASK, tn::TASK_COMPLETED] {
        assert_eq!(
            r.describe_call(
                name,
                &json!({"path": "a.md", "agent_id": "x", "mode": "sync"}),
                short
            ),
            name
        );
    }
}

#[test]
fn describe_call_truncates_to_the_length_limit() {
    let r = registry();
    let long = "é".repeat(300);
    let s = r.describe_call("zeta", &json!({"x": long}), ToolDescriptionLength::Short);
    assert_eq!(s.chars().count(), MAX_LABEL_SHORT);
    assert!(s.ends_with('…'));
    let f = r.describe_call("zeta", &json!({"x": long}), ToolDescriptionLength::Full);
    assert_eq!(f.chars().count(), MAX_LABEL_FULL);
}

#[test]
fn target_path_and_effective_args() {
    let r = registry();
    assert_eq!(
        r.target_path("zeta", &json!({"path": "a.txt"})),
        Some("a.txt".into())
    );
    assert_eq!(r.target_path("nope", &json!({"path": "a.txt"})), None);
    assert_eq!(
        r.target_path(tn::SHOW_FILE_TO_USER, &json!({"path": "x.pdf"})),
        None
    );
    assert_eq!(
        r.effective_args("zeta", json!({}), Path::new("/w")),
        json!({"workdir": "/w"})
    );
    assert_eq!(
        r.effective_args("nope", json!({"a": 1}), Path::new("/w")),
        json!({"a": 1})
    );
}

#[test]
fn catalog_lists_registry_then_the_synthetic_tools_it_is_given_and_empty_mcp() {
    let session_tool = |name: &str| skald_protocol::ToolInfo {
        name: name.into(),
        description: String::new(),
        category: Some(ToolCategory::Introspection),
        kind: ToolKind::Registry,
        sub_agents_only: false,
        root_agent_only: name == "b_own",
    };
    let catalog = ToolCatalog::new(Arc::new(registry()))
        .with_synthetic(vec![session_tool("b_own"), session_tool("a_own")]);
    let all = catalog.list_all();
    let names: Vec<_> = all.built_in.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["alpha", "cfg", "sub", "zeta", "a_own", "b_own"]);
    let synthetic: Vec<_> = all
        .built_in
        .iter()
        .filter(|t| t.kind == ToolKind::Synthetic)
        .map(|t| (t.name.as_str(), t.root_agent_only))
        .collect();
    assert_eq!(synthetic, [("a_own", false), ("b_own", true)]);
    assert!(all.mcp.is_empty());
    let sub = all.built_in.iter().find(|t| t.name == "sub").unwrap();
    assert!(sub.sub_agents_only && !sub.root_agent_only);
    // Nothing is listed that nobody gave it.
    let bare = ToolCatalog::new(Arc::new(registry())).list_all();
    assert!(bare.built_in.iter().all(|t| t.kind == ToolKind::Registry));
}

struct FakeMcp;
impl McpToolSource for FakeMcp {
    fn tool_infos(&self) -> Vec<skald_protocol::ToolInfo> {
        ["mcp__b__x", "mcp__a__y"]
            .into_iter()
            .map(|n| skald_protocol::ToolInfo {
                name: n.into(),
                description: String::new(),
                category: None,
                kind: ToolKind::Mcp,
                sub_agents_only: false,
                root_agent_only: false,
            })
            .collect()
    }
}

#[test]
fn catalog_mcp_section_is_sorted() {
    let catalog = ToolCatalog::new(Arc::new(registry())).with_mcp(Arc::new(FakeMcp));
    let names: Vec<_> = catalog.list_all().mcp.into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["mcp__a__y", "mcp__b__x"]);
}

#[derive(Default)]
struct RecordingSink {
    writes: Mutex<Vec<Vec<String>>>,
    fail: bool,
}

impl KnownToolsSink for RecordingSink {
    fn record(&self, tools: Vec<DiscoveredTool>) -> BoxFuture<'static, Result<(), String>> {
        self.writes
            .lock()
            .unwrap()
            .push(tools.into_iter().map(|t| t.name).collect());
        let fail = self.fail;
        Box::pin(async move {
            if fail {
                Err("disk full".into())
            } else {
                Ok(())
            }
        })
    }
}

#[tokio::test]
async fn discovery_writes_each_name_once() {
    let sink = Arc::new(RecordingSink::default());
    let discovery = ToolDiscovery::new(sink.clone());
    let defs = registry().openai_definitions();
    discovery.observe(&defs, "builtin").unwrap().await.unwrap();
    assert!(
        discovery.observe(&defs, "builtin").is_none(),
        "no write for seen names"
    );
    let more =
        vec![json!({"type": "function", "function": {"name": "mcp__s__t", "description": "d"}})];
    let mut all = defs.clone();
    all.extend(more);
    discovery.observe(&all, "mcp").unwrap().await.unwrap();
    assert_eq!(
        *sink.writes.lock().unwrap(),
        vec![vec!["alpha", "cfg", "zeta"], vec!["mcp__s__t"]]
    );
}

#[tokio::test]
async fn a_failed_discovery_write_is_retried_next_round() {
    let sink = Arc::new(RecordingSink {
        fail: true,
        ..Default::default()
    });
    let discovery = ToolDiscovery::new(sink.clone());
    let defs = registry().openai_definitions();
    discovery.observe(&defs, "builtin").unwrap().await.unwrap();
    discovery.observe(&defs, "builtin").unwrap().await.unwrap();
    assert_eq!(sink.writes.lock().unwrap().len(), 2);
}

#[test]
fn builtin_registry_tools_have_object_schemas_and_categories() {
    let r = builtin_registry(&BuiltinDeps::default());
    for (name, _) in r.list_all() {
        let tool = r.get(&name).unwrap();
        let schema = tool.parameters_schema();
        assert_eq!(schema["type"], "object", "{name}");
        assert!(!tool.description().is_empty(), "{name}");
        assert!(
            !(tool.sub_agents_only() && tool.root_agent_only()),
            "{name} would be invisible to every agent"
        );
    }
}

/// `check_args` rejects badly formed calls without running (or touching) anything.
#[test]
fn check_args_rejects_bad_input_without_side_effects() {
    let r = builtin_registry(&BuiltinDeps::default());
    let err = |name: &str, args: Value| match r.check_args(name, &args) {
        Err(e @ ToolError::InvalidArguments { .. }) => e.to_string(),
        other => panic!("{name} {args}: {other:?}"),
    };
    assert!(err(tn::READ_FILE, json!({})).contains("missing field `path`"));
    assert!(err(tn::READ_FILE, json!({"path": "a", "limit": 0})).contains("limit must be"));
    assert!(err(tn::READ_FILE, json!({"path": "a", "start_line": 0})).contains("1-based"));
    assert!(
        err(
            tn::READ_FILE,
            json!({"path": "a", "start_line": 5, "end_line": 2})
        )
        .contains("before start_line")
    );
    assert!(
        err(tn::EXECUTE_CMD, json!({"command": "echo hi", "timeout": 0}))
            .contains("timeout must be between 1 and 600")
    );
    assert!(
        err(
            tn::EXECUTE_CMD,
            json!({"command": "echo hi", "timeout": 601})
        )
        .contains("timeout must be between 1 and 600")
    );
    assert!(err(tn::EXECUTE_CMD, json!({"command": "  "})).contains("command is empty"));
    assert!(
        err(
            tn::REPLACE_LINES,
            json!({"path": "a", "start_line": 0, "end_line": 1, "new_content": ""})
        )
        .contains("1-based")
    );
    assert!(err(tn::LIST_FILES, json!({"path": ".", "depth": 0})).contains("depth must be"));
    assert!(
        err(
            tn::EDIT_FILE,
            json!({"path": "a", "old_string": "", "new_string": "x"})
        )
        .contains("old_string is empty")
    );
    assert!(err(tn::WRITE_FILE, json!({"path": "a"})).contains("missing field `content`"));

    // Well-formed calls pass, even for files that do not exist: nothing is read.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.txt");
    let missing = missing.to_str().unwrap();
    r.check_args(tn::READ_FILE, &json!({"path": missing}))
        .unwrap();
    r.check_args(tn::WRITE_FILE, &json!({"path": missing, "content": "x"}))
        .unwrap();
    assert!(!dir.path().join("nope.txt").exists());
    r.check_args(
        tn::EXECUTE_CMD,
        &json!({"command": "touch made", "timeout": 600}),
    )
    .unwrap();
    assert!(matches!(
        r.check_args("no_such_tool", &json!({})),
        Err(ToolError::UnknownTool(_))
    ));
}
