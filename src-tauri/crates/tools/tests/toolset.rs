//! The per-round ToolSet: sources merged in order, definitions by audience,
//! dispatch, and everything the gate and the cards ask of a tool.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skald_core_api::{
    Tool, ToolCategory, ToolDescriptionLength, ToolResult, ToolTraits, TypedTool,
};
use skald_tools::{Audience, ToolRegistry, ToolSet, ToolSource, source, tool_names as tn};

#[derive(Debug, Deserialize, JsonSchema)]
struct NoteInput {
    /// The file the note is about.
    path: String,
}

/// A session tool: what it needs (the session id) is captured when built.
#[derive(Clone)]
struct Note {
    session: String,
    category: ToolCategory,
    sub_only: bool,
}

impl TypedTool for Note {
    type Input = NoteInput;
    fn name(&self) -> &str {
        if self.sub_only { "sub_note" } else { "note" }
    }
    fn description(&self) -> &str {
        "Notes a file."
    }
    fn category(&self) -> ToolCategory {
        self.category
    }
    fn run(&self, input: NoteInput) -> ToolResult {
        Ok(format!("{}: {}", self.session, input.path))
    }
    fn describe(&self, args: &Value, _l: ToolDescriptionLength) -> String {
        format!("note `{}`", args["path"].as_str().unwrap_or(""))
    }
    fn target_path(&self, args: &Value) -> Option<String> {
        args["path"].as_str().map(str::to_string)
    }
    fn sub_agents_only(&self) -> bool {
        self.sub_only
    }
    fn traits(&self) -> ToolTraits {
        ToolTraits::READS
    }
}

struct SessionTools(Vec<Arc<dyn Tool>>);

impl ToolSource for SessionTools {
    fn source(&self) -> &str {
        source::SYNTHETIC
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.0.clone()
    }
}

fn note(sub_only: bool, category: ToolCategory) -> Arc<dyn Tool> {
    Arc::new(Note {
        session: "s1".into(),
        category,
        sub_only,
    })
}

fn names(defs: &[skald_core_api::ToolDef]) -> Vec<&str> {
    defs.iter().map(|d| d.name.as_str()).collect()
}

#[tokio::test]
async fn a_session_tool_is_offered_dispatched_labelled_and_gated_like_a_builtin() {
    let mut registry = ToolRegistry::new();
    skald_tools::fs::register(&mut registry);
    let session = SessionTools(vec![
        note(false, ToolCategory::Introspection),
        note(true, ToolCategory::Introspection),
    ]);
    let set = ToolSet::from_sources(&[&registry, &session]);
    let root = set.definitions(Audience::default());
    assert!(names(&root).contains(&"note"));
    assert!(names(&root).contains(&tn::READ_FILE));
    assert!(!names(&root).contains(&"sub_note"));
    let sub = set.definitions(Audience {
        depth: 1,
        config_granted: false,
    });
    assert!(names(&sub).contains(&"sub_note"));
    let args = json!({"path": "a.md"});
    assert_eq!(set.source_of("note").as_deref(), Some(source::SYNTHETIC));
    assert_eq!(
        set.source_of(tn::READ_FILE).as_deref(),
        Some(source::BUILTIN)
    );
    assert_eq!(
        set.source_of("mcp__gh__issues").as_deref(),
        Some(source::MCP)
    );
    assert_eq!(set.source_of("nope"), None);
    assert_eq!(set.category_of("note"), Some(ToolCategory::Introspection));
    assert!(set.traits_of("note").reads_files);
    assert_eq!(
        set.describe_call("note", &args, ToolDescriptionLength::Short),
        "note `a.md`"
    );
    assert_eq!(set.target_path("note", &args).as_deref(), Some("a.md"));
    let exec = set.run("note", args).unwrap();
    let out = skald_core_api::drive_execution(exec.as_ref(), Default::default()).await;
    assert_eq!(
        out,
        skald_core_api::ExecutionOutcome::Completed("s1: a.md".into())
    );
    assert!(set.run("nope", json!({})).is_none());
    assert!(set.check_args("note", &json!({})).is_err());
}

#[test]
fn the_config_group_waits_for_its_grant_and_later_sources_win() {
    let registry = ToolRegistry::new();
    let session = SessionTools(vec![note(false, ToolCategory::Config)]);
    let set = ToolSet::from_sources(&[&registry, &session]);
    assert!(set.definitions(Audience::default()).is_empty());
    let granted = set.definitions(Audience {
        depth: 0,
        config_granted: true,
    });
    assert_eq!(names(&granted), ["note"]);
    // Null arguments get the defaults an empty object gets.
    assert_eq!(
        set.effective_args("note", Value::Null, Path::new("/w")),
        json!({})
    );
    let mut set = set;
    set.add(note(false, ToolCategory::Filesystem), source::MCP);
    assert_eq!(set.len(), 1);
    assert_eq!(set.source_of("note").as_deref(), Some(source::MCP));
}

/// A tool the round does not offer (another agent's, a record of a
/// delivered ending) labels its calls from its own `describe` and
/// `target_path`, and is never offered, run, checked or categorised.
#[test]
fn a_described_tool_labels_its_calls_but_is_never_offered_or_run() {
    let mut set = ToolSet::new();
    set.add_described(note(false, ToolCategory::Introspection), source::SYNTHETIC);
    let args = json!({"path": "b.md"});
    assert_eq!(
        set.describe_call("note", &args, ToolDescriptionLength::Short),
        "note `b.md`"
    );
    assert_eq!(set.target_path("note", &args).as_deref(), Some("b.md"));
    assert!(set.definitions(Audience::default()).is_empty());
    assert!(!set.contains("note"));
    assert!(set.run("note", args.clone()).is_none());
    assert!(set.check_args("note", &args).is_err());
    assert_eq!(set.category_of("note"), None);
    assert_eq!(set.source_of("note"), None);
    let every: Vec<_> = set
        .every_tool()
        .into_iter()
        .map(|(t, s)| (t.name().to_string(), s.to_string()))
        .collect();
    assert_eq!(every, [("note".to_string(), source::SYNTHETIC.to_string())]);
    // Offered later in the round, the offered tool wins, once.
    set.add(note(false, ToolCategory::Filesystem), source::BUILTIN);
    set.add_described(note(false, ToolCategory::Config), source::HISTORY);
    assert_eq!(set.category_of("note"), Some(ToolCategory::Filesystem));
    assert_eq!(set.every_tool().len(), 1);
    // A name no tool of the set has is its own label, with no path.
    assert_eq!(
        set.describe_call("gone", &args, ToolDescriptionLength::Short),
        "gone"
    );
    assert_eq!(set.target_path("gone", &args), None);
}
