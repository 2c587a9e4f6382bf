//! The gate, table-driven: every row is (rules, group, tool, path/args,
//! RunContext, bypasses) → (action, deciding rule id[, basis]). The paths
//! are real: a temp workspace with symlinks into and out of `secrets/`,
//! symlink loops and directories that do not exist yet.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use skald_approval::Action::{self, Allow, Deny, Require};
use skald_approval::{
    Basis, Bypass, BypassScope, Bypasses, CallContext, Expiry, FastPath, Now, Rule, RulesSnapshot,
    RunContext, decide,
};
use skald_core_api::ToolCategory;
use skald_tools::tool_names as tn;

use crate::common::*;

/// One rule of a row: `r(id, group, tool_pattern, action)` plus options.
#[derive(Clone)]
struct Spec {
    id: i64,
    group: &'static str,
    tool: &'static str,
    action: Action,
    path: Option<&'static str>,
    priority: i64,
    agent: Option<&'static str>,
    source: Option<&'static str>,
}

fn r(id: i64, group: &'static str, tool: &'static str, action: Action) -> Spec {
    Spec {
        id,
        group,
        tool,
        action,
        path: None,
        priority: 0,
        agent: None,
        source: None,
    }
}

impl Spec {
    fn path(mut self, p: &'static str) -> Self {
        self.path = Some(p);
        self
    }
    fn prio(mut self, p: i64) -> Self {
        self.priority = p;
        self
    }
    fn agent(mut self, a: &'static str) -> Self {
        self.agent = Some(a);
        self
    }
    fn source(mut self, s: &'static str) -> Self {
        self.source = Some(s);
        self
    }
}

#[derive(Clone, Copy)]
enum Exp {
    Never,
    PastInstant,
    FutureInstant,
    PastUnix,
    NowUnix,
    FutureUnix,
}

struct Case {
    name: &'static str,
    seeded: bool,
    rules: Vec<Spec>,
    group: &'static str,
    tool: &'static str,
    path: Option<&'static str>,
    args: Option<Value>,
    agent: Option<&'static str>,
    source: Option<&'static str>,
    category: Option<ToolCategory>,
    reads: Vec<&'static str>,
    writes: Vec<&'static str>,
    bypasses: Vec<(BypassScope, Exp)>,
    expect: Action,
    rule: Option<i64>,
    basis: Option<Basis>,
}

fn case(name: &'static str, tool: &'static str) -> Case {
    Case {
        name,
        seeded: true,
        rules: Vec::new(),
        group: "default",
        tool,
        path: None,
        args: None,
        agent: None,
        source: None,
        category: None,
        reads: Vec::new(),
        writes: Vec::new(),
        bypasses: Vec::new(),
        expect: Require,
        rule: None,
        basis: None,
    }
}

impl Case {
    fn path(mut self, p: &'static str) -> Self {
        self.path = Some(p);
        self
    }
    fn args(mut self, a: Value) -> Self {
        self.args = Some(a);
        self
    }
    fn group(mut self, g: &'static str) -> Self {
        self.group = g;
        self
    }
    fn rules<const N: usize>(mut self, specs: [Spec; N]) -> Self {
        self.rules.extend(specs);
        self
    }
    fn no_seeds(mut self) -> Self {
        self.seeded = false;
        self
    }
    fn agent(mut self, a: &'static str) -> Self {
        self.agent = Some(a);
        self
    }
    fn source(mut self, s: &'static str) -> Self {
        self.source = Some(s);
        self
    }
    fn cat(mut self, c: ToolCategory) -> Self {
        self.category = Some(c);
        self
    }
    fn reads<const N: usize>(mut self, p: [&'static str; N]) -> Self {
        self.reads.extend(p);
        self
    }
    fn writes<const N: usize>(mut self, p: [&'static str; N]) -> Self {
        self.writes.extend(p);
        self
    }
    fn bypass(self, scope: BypassScope) -> Self {
        self.bypass_until(scope, Exp::Never)
    }
    fn bypass_until(mut self, scope: BypassScope, exp: Exp) -> Self {
        self.bypasses.push((scope, exp));
        self
    }
    fn is(mut self, action: Action, rule: Option<i64>) -> Self {
        self.expect = action;
        self.rule = rule;
        self
    }
    fn via(mut self, basis: Basis) -> Self {
        self.basis = Some(basis);
        self
    }
}

fn all() -> BypassScope {
    BypassScope::All
}
fn tool(name: &str) -> BypassScope {
    BypassScope::Tool(name.to_string())
}
fn mcp(server: &str) -> BypassScope {
    BypassScope::McpServer(server.to_string())
}
fn category(c: ToolCategory) -> BypassScope {
    BypassScope::Category(c)
}
fn fast(f: FastPath) -> Basis {
    Basis::RunContext(f)
}

const S: Option<i64> = Some(SECRETS_DENY);
const C: Option<i64> = Some(CATCH_ALL);
const X: Option<i64> = Some(101);

fn patterns() -> Vec<Case> {
    vec![
        // exact names
        case("exact name matches", tn::IMAGE_GENERATE_PROVIDERS_LIST)
            .group("dev")
            .rules([r(101, "dev", tn::IMAGE_GENERATE_PROVIDERS_LIST, Deny)])
            .is(Deny, X),
        case("exact name matches only that tool", tn::LIST_SECRETS)
            .group("dev")
            .rules([r(101, "dev", tn::IMAGE_GENERATE_PROVIDERS_LIST, Deny)])
            .is(Require, C),
        case(
            "exact name is case-sensitive",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .group("dev")
        .rules([r(101, "dev", "IMAGE_GENERATE_PROVIDERS_LIST", Deny)])
        .is(Require, C),
        case(
            "exact name is not a prefix",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .group("dev")
        .rules([r(101, "dev", "list", Deny)])
        .is(Require, C),
        // trailing-* prefixes
        case("prefix matches a server's tool", "mcp__gmail__send")
            .group("dev")
            .rules([r(101, "dev", "mcp__gmail__*", Deny)])
            .is(Deny, X),
        case("prefix matches the bare prefix", "mcp__gmail__")
            .group("dev")
            .rules([r(101, "dev", "mcp__gmail__*", Deny)])
            .is(Deny, X),
        case("prefix keeps the server boundary", "mcp__gmailx__send")
            .group("dev")
            .rules([r(101, "dev", "mcp__gmail__*", Deny)])
            .is(Require, C),
        case("prefix does not match another server", "mcp__github__list")
            .group("dev")
            .rules([r(101, "dev", "mcp__gmail__*", Deny)])
            .is(Require, C),
        case("mcp__* allows every MCP tool", "mcp__github__list")
            .group("dev")
            .rules([r(101, "dev", "mcp__*", Allow)])
            .is(Allow, X),
        case(
            "read_* matches read_file (deny over fast path)",
            tn::READ_FILE,
        )
        .path("docs/a.md")
        .group("dev")
        .rules([r(101, "dev", "read_*", Deny)])
        .is(Deny, X),
        case("read_* matches read_notification", tn::READ_NOTIFICATION)
            .group("dev")
            .rules([r(101, "dev", "read_*", Deny)])
            .is(Deny, X),
        case("read_* matches read_agent_result", tn::READ_AGENT_RESULT)
            .group("dev")
            .rules([r(101, "dev", "read_*", Deny)])
            .is(Deny, X),
        case("read_* does not match grep_files", tn::GREP_FILES)
            .group("dev")
            .rules([r(101, "dev", "read_*", Deny)])
            .is(Allow, C),
        // *
        case("* matches a builtin", tn::EXECUTE_CMD)
            .no_seeds()
            .group("dev")
            .rules([r(101, "dev", "*", Allow)])
            .is(Allow, X),
        case("* matches an MCP tool", "mcp__x__y")
            .no_seeds()
            .group("dev")
            .rules([r(101, "dev", "*", Allow)])
            .is(Allow, X),
        case("* deny beats the read fast path", tn::READ_FILE)
            .path("docs/a.md")
            .no_seeds()
            .group("dev")
            .rules([r(101, "dev", "*", Deny)])
            .is(Deny, X),
        // @fs_read
        case("@fs_read has read_file", tn::READ_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Deny, X),
        case("@fs_read has grep_files", tn::GREP_FILES)
            .path("src")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Deny, X),
        case("@fs_read has list_files", tn::LIST_FILES)
            .path("src")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Deny, X),
        case("@fs_read has search_file", tn::SEARCH_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Deny, X),
        case("@fs_read has get_ast_outline", tn::GET_AST_OUTLINE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Deny, X),
        case("@fs_read lacks write_file", tn::WRITE_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Require, C),
        case("@fs_read lacks execute_cmd", tn::EXECUTE_CMD)
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Require, Some(EXEC_REQUIRE)),
        case("@fs_read lacks show_file_to_user", tn::SHOW_FILE_TO_USER)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Deny)])
            .is(Allow, Some(SHOW_FILE_ALLOW)),
        // @fs_write
        case("@fs_write has write_file", tn::WRITE_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Deny)])
            .is(Deny, X),
        case("@fs_write has edit_file", tn::EDIT_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Deny)])
            .is(Deny, X),
        case("@fs_write has insert_at_line", tn::INSERT_AT_LINE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Deny)])
            .is(Deny, X),
        case("@fs_write has replace_lines", tn::REPLACE_LINES)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Deny)])
            .is(Deny, X),
        case("@fs_write lacks read_file", tn::READ_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Deny)])
            .is(Allow, C),
        case("@fs_write lacks grep_files", tn::GREP_FILES)
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Deny)])
            .is(Allow, C),
        case("@fs_write allow covers write_file", tn::WRITE_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Allow)])
            .is(Allow, X),
        case("@fs_write allow covers edit_file", tn::EDIT_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Allow)])
            .is(Allow, X),
        // @fs_any
        case("@fs_any has read_file", tn::READ_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_any", Deny)])
            .is(Deny, X),
        case("@fs_any has replace_lines", tn::REPLACE_LINES)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_any", Deny)])
            .is(Deny, X),
        case("@fs_any has get_ast_outline", tn::GET_AST_OUTLINE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_any", Deny)])
            .is(Deny, X),
        case("@fs_any lacks execute_cmd", tn::EXECUTE_CMD)
            .group("dev")
            .rules([r(101, "dev", "@fs_any", Deny)])
            .is(Require, Some(EXEC_REQUIRE)),
        case(
            "@fs_any lacks image_generate_providers_list",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .group("dev")
        .rules([r(101, "dev", "@fs_any", Deny)])
        .is(Require, C),
        case("@fs_any lacks an MCP read_file", "mcp__fs__read_file")
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", "@fs_any", Deny)])
            .is(Require, C),
    ]
}

fn path_patterns() -> Vec<Case> {
    let docs_allow = || r(101, "dev", tn::WRITE_FILE, Allow).path("docs/*");
    vec![
        case("dir/* matches a child", tn::WRITE_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([docs_allow()])
            .is(Allow, X),
        case("dir/* matches a grandchild", tn::WRITE_FILE)
            .path("docs/sub/b.md")
            .group("dev")
            .rules([docs_allow()])
            .is(Allow, X),
        case("dir/* matches a path not created yet", tn::WRITE_FILE)
            .path("docs/new/dir/c.md")
            .group("dev")
            .rules([docs_allow()])
            .is(Allow, X),
        case("dir/* matches the dir itself", tn::WRITE_FILE)
            .path("docs")
            .group("dev")
            .rules([docs_allow()])
            .is(Allow, X),
        case(
            "dir/* matches the dir with a trailing slash",
            tn::WRITE_FILE,
        )
        .path("docs/")
        .group("dev")
        .rules([docs_allow()])
        .is(Allow, X),
        case("dir/* keeps the / boundary (docsX)", tn::WRITE_FILE)
            .path("docsX/a.md")
            .group("dev")
            .rules([docs_allow()])
            .is(Require, C),
        case("dir/* keeps the / boundary (docs.md)", tn::WRITE_FILE)
            .path("docs.md")
            .group("dev")
            .rules([docs_allow()])
            .is(Require, C),
        case("allow patterns are case-sensitive", tn::WRITE_FILE)
            .path("Docs/a.md")
            .group("dev")
            .rules([docs_allow()])
            .is(Require, C),
        case("dir/ (trailing slash) is a subtree", tn::WRITE_FILE)
            .path("docs/sub/b.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/")])
            .is(Allow, X),
        case("exact path matches", tn::WRITE_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/a.md")])
            .is(Allow, X),
        case("exact path needs the whole name", tn::WRITE_FILE)
            .path("docs/a.mdx")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/a.md")])
            .is(Require, C),
        // `file/` cannot be opened (ENOTDIR): a path that cannot be resolved
        // is vouched for by no allow rule, so the catch-all asks.
        case(
            "a trailing slash on a file is not that file",
            tn::WRITE_FILE,
        )
        .path("docs/a.md/")
        .group("dev")
        .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/a.md")])
        .is(Require, C),
        case("exact path folds ./", tn::WRITE_FILE)
            .path("./docs/./a.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/a.md")])
            .is(Allow, X),
        case("exact path folds ..", tn::WRITE_FILE)
            .path("docs/sub/../a.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/a.md")])
            .is(Allow, X),
        case("exact dir does not cover its subtree", tn::WRITE_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs")])
            .is(Require, C),
        case("prefix* matches a file", tn::WRITE_FILE)
            .path("docs/draft.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/dr*")])
            .is(Allow, X),
        case("prefix* matches under a matching dir", tn::WRITE_FILE)
            .path("docs/drafts/x.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/dr*")])
            .is(Allow, X),
        case("prefix* needs the prefix", tn::WRITE_FILE)
            .path("docs/d.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/dr*")])
            .is(Require, C),
        case("prefix* is anchored at its directory", tn::WRITE_FILE)
            .path("docs/sub/draft.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/dr*")])
            .is(Require, C),
        case("top-level prefix* matches src/", tn::WRITE_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("src*")])
            .is(Allow, X),
        case("top-level prefix* matches srcX", tn::WRITE_FILE)
            .path("srcX/a.rs")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("src*")])
            .is(Allow, X),
        case("top-level prefix* does not match deeper", tn::WRITE_FILE)
            .path("docs/src")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("src*")])
            .is(Require, C),
        case("absolute pattern matches a relative call", tn::WRITE_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("{root}/docs/*")])
            .is(Allow, X),
        case("absolute pattern outside the workdir", tn::WRITE_FILE)
            .path("{ext}/x.txt")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("{ext}/*")])
            .is(Allow, X),
        case("absolute pattern reached through a symlink", tn::WRITE_FILE)
            .path("docs/ext/x.txt")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("{ext}/*")])
            .is(Allow, X),
        case("path * matches any path", tn::WRITE_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("*")])
            .is(Allow, X),
        case("a path rule never matches a pathless call", tn::EXECUTE_CMD)
            .group("dev")
            .rules([r(101, "dev", "*", Deny).path("*")])
            .is(Require, Some(EXEC_REQUIRE)),
        case(
            "a path rule never matches a pathless tool",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .group("dev")
        .rules([r(101, "dev", "@fs_read", Deny).path("*")])
        .is(Require, C),
        case("pattern .. is folded", tn::WRITE_FILE)
            .path("src/main.rs")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("docs/../src/*")])
            .is(Allow, X),
        case("/* is every absolute path", tn::WRITE_FILE)
            .path("{ext}/x.txt")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Allow).path("/*")])
            .is(Allow, X),
        case(
            "allow docs/* does not follow docs/link into secrets",
            tn::READ_FILE,
        )
        .path("docs/link/k")
        .group("dev")
        .rules([r(101, "dev", "@fs_any", Allow).path("docs/*")])
        .is(Deny, S),
        case(
            "allow docs/* does not follow docs/ext outside",
            tn::WRITE_FILE,
        )
        .path("docs/ext/x.txt")
        .group("dev")
        .rules([docs_allow()])
        .is(Require, C),
        case(
            "allow docs/* does not follow docs/up to the root",
            tn::WRITE_FILE,
        )
        .path("docs/up/src/main.rs")
        .group("dev")
        .rules([docs_allow()])
        .is(Require, C),
        case("deny matches the as-written spelling too", tn::WRITE_FILE)
            .path("docs/ext/new.txt")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Deny).path("docs/*")])
            .is(Deny, X),
        case("deny matches case variants", tn::WRITE_FILE)
            .path("DOCS/a.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Deny).path("docs/*")])
            .is(Deny, X),
        case(
            "require matches the as-written spelling too",
            tn::WRITE_FILE,
        )
        .path("docs/ext/x.txt")
        .group("dev")
        .rules([r(101, "dev", tn::WRITE_FILE, Require).path("docs/*")])
        .is(Require, X),
    ]
}

fn filters_priorities_groups() -> Vec<Case> {
    vec![
        // agent and source filters
        case("agent rule matches its agent", tn::EXECUTE_CMD)
            .agent("coder")
            .group("dev")
            .rules([r(101, "dev", tn::EXECUTE_CMD, Allow).agent("coder")])
            .is(Allow, X),
        case("agent rule skips another agent", tn::EXECUTE_CMD)
            .agent("reviewer")
            .group("dev")
            .rules([r(101, "dev", tn::EXECUTE_CMD, Allow).agent("coder")])
            .is(Require, Some(EXEC_REQUIRE)),
        case("agent rule skips an unknown agent", tn::EXECUTE_CMD)
            .group("dev")
            .rules([r(101, "dev", tn::EXECUTE_CMD, Allow).agent("coder")])
            .is(Require, Some(EXEC_REQUIRE)),
        case("source rule matches its source", "mcp__x__y")
            .source("mcp")
            .group("dev")
            .rules([r(101, "dev", "*", Deny).source("mcp")])
            .is(Deny, X),
        case(
            "source rule skips another source",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .source("builtin")
        .group("dev")
        .rules([r(101, "dev", "*", Deny).source("mcp")])
        .is(Require, C),
        case("source rule skips an unknown source", "mcp__x__y")
            .group("dev")
            .rules([r(101, "dev", "*", Deny).source("mcp")])
            .is(Require, C),
        case("agent rule in default", tn::RESTART)
            .agent("coder")
            .rules([r(101, "default", tn::RESTART, Allow)
                .agent("coder")
                .prio(200)])
            .is(Allow, X),
        case("agent rule in default skips others", tn::RESTART)
            .agent("other")
            .rules([r(101, "default", tn::RESTART, Allow)
                .agent("coder")
                .prio(200)])
            .is(Require, Some(RESTART_REQUIRE)),
        // priorities
        case("higher priority first", tn::EXECUTE_CMD)
            .group("dev")
            .rules([
                r(101, "dev", tn::EXECUTE_CMD, Allow),
                r(102, "dev", tn::EXECUTE_CMD, Deny).prio(10),
            ])
            .is(Deny, Some(102)),
        case("higher priority first, reversed", tn::EXECUTE_CMD)
            .group("dev")
            .rules([
                r(101, "dev", tn::EXECUTE_CMD, Allow).prio(10),
                r(102, "dev", tn::EXECUTE_CMD, Deny),
            ])
            .is(Allow, X),
        case("equal priority: lower id first", tn::EXECUTE_CMD)
            .group("dev")
            .rules([
                r(101, "dev", tn::EXECUTE_CMD, Allow).prio(5),
                r(102, "dev", tn::EXECUTE_CMD, Deny).prio(5),
            ])
            .is(Allow, X),
        case(
            "equal priority: id order, not listing order",
            tn::EXECUTE_CMD,
        )
        .group("dev")
        .rules([
            r(105, "dev", tn::EXECUTE_CMD, Deny).prio(5),
            r(103, "dev", tn::EXECUTE_CMD, Allow).prio(5),
        ])
        .is(Allow, Some(103)),
        case("negative priorities order too", tn::EXECUTE_CMD)
            .group("dev")
            .rules([
                r(101, "dev", tn::EXECUTE_CMD, Deny).prio(-5),
                r(102, "dev", tn::EXECUTE_CMD, Allow).prio(-1),
            ])
            .is(Allow, Some(102)),
        case(
            "a default rule below the catch-all is unreachable",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .rules([r(101, "default", tn::IMAGE_GENERATE_PROVIDERS_LIST, Allow).prio(-2000)])
        .is(Require, C),
        case("a default rule above the seeds wins", tn::EXECUTE_CMD)
            .rules([r(101, "default", tn::EXECUTE_CMD, Allow).prio(200)])
            .is(Allow, X),
        case(
            "equal priority with a seed: the older seed wins",
            tn::EXECUTE_CMD,
        )
        .rules([r(101, "default", tn::EXECUTE_CMD, Allow).prio(100)])
        .is(Require, Some(EXEC_REQUIRE)),
        case(
            "any group rule precedes every default rule",
            tn::EXECUTE_CMD,
        )
        .group("dev")
        .rules([r(101, "dev", tn::EXECUTE_CMD, Allow).prio(-5000)])
        .is(Allow, X),
        case("group deny beats default's memory allow", tn::WRITE_FILE)
            .path("memory/notes.md")
            .group("dev")
            .rules([r(101, "dev", "@fs_write", Deny).path("memory/*")])
            .is(Deny, X),
        case("a user allow below the secrets deny loses", tn::READ_FILE)
            .path("secrets/k")
            .rules([r(101, "default", tn::READ_FILE, Allow)
                .path("secrets/*")
                .prio(500)])
            .is(Deny, S),
        case(
            "a user allow above the secrets deny is the user's call",
            tn::READ_FILE,
        )
        .path("secrets/k")
        .rules([r(101, "default", tn::READ_FILE, Allow)
            .path("secrets/*")
            .prio(2000)])
        .is(Allow, X),
        // groups
        case(
            "dev rules do not apply to default sessions",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .rules([r(101, "dev", tn::IMAGE_GENERATE_PROVIDERS_LIST, Deny)])
        .is(Require, C),
        case("a group without rules falls to default", tn::EXECUTE_CMD)
            .group("ops")
            .is(Require, Some(EXEC_REQUIRE)),
        case(
            "an unknown group falls to default (require)",
            tn::EXECUTE_CMD,
        )
        .group("nope")
        .is(Require, Some(EXEC_REQUIRE)),
        case("an unknown group falls to default (allow)", tn::WRITE_TODOS)
            .group("nope")
            .is(Allow, Some(TODOS_ALLOW)),
        case(
            "another group's rules are ignored",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .group("ops")
        .rules([r(101, "dev", tn::IMAGE_GENERATE_PROVIDERS_LIST, Deny)])
        .is(Require, C),
        case("group allow shadows default require", tn::EXECUTE_CMD)
            .group("dev")
            .rules([r(101, "dev", tn::EXECUTE_CMD, Allow)])
            .is(Allow, X),
        case("group require shadows default allow", tn::WRITE_TODOS)
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_TODOS, Require)])
            .is(Require, X),
        case("group deny shadows default allow", tn::NOTIFY)
            .group("dev")
            .rules([r(101, "dev", tn::NOTIFY, Deny)])
            .is(Deny, X),
        case(
            "first match wins: a group allow precedes default's deny",
            tn::READ_FILE,
        )
        .path("secrets/k")
        .group("dev")
        .rules([r(101, "dev", tn::READ_FILE, Allow)])
        .is(Allow, X),
        case("no rules at all: ask", tn::EXECUTE_CMD)
            .no_seeds()
            .is(Require, None)
            .via(Basis::NoRuleMatched),
        case("no matching rule: ask", tn::EXECUTE_CMD)
            .no_seeds()
            .group("dev")
            .rules([r(101, "dev", tn::IMAGE_GENERATE_PROVIDERS_LIST, Allow)])
            .is(Require, None)
            .via(Basis::NoRuleMatched),
        case("no rule, read in docs: fast path", tn::READ_FILE)
            .path("docs/a.md")
            .no_seeds()
            .is(Allow, None)
            .via(fast(FastPath::Docs)),
        case(
            "no rule, write into secrets under a write grant: ask",
            tn::WRITE_FILE,
        )
        .path("secrets/k")
        .no_seeds()
        .writes(["{root}"])
        .is(Require, None),
        case(
            "no rule, read in secrets: ask, never the fast path",
            tn::READ_FILE,
        )
        .path("secrets/k")
        .no_seeds()
        .is(Require, None),
    ]
}

fn seeded() -> Vec<Case> {
    vec![
        case("seed: execute_cmd asks", tn::EXECUTE_CMD)
            .args(json!({"command": "ls"}))
            .is(Require, Some(EXEC_REQUIRE))
            .via(Basis::Rule),
        case("seed: restart asks", tn::RESTART).is(Require, Some(RESTART_REQUIRE)),
        case("seed: write_todos runs", tn::WRITE_TODOS).is(Allow, Some(TODOS_ALLOW)),
        case("seed: notify runs", tn::NOTIFY).is(Allow, Some(NOTIFY_ALLOW)),
        case("seed: read_notification runs", tn::READ_NOTIFICATION)
            .is(Allow, Some(READ_NOTIFICATION_ALLOW)),
        case("seed: activate_tools runs", tn::ACTIVATE_TOOLS).is(Allow, Some(ACTIVATE_ALLOW)),
        case("seed: show_file_to_user runs", tn::SHOW_FILE_TO_USER)
            .path("docs/a.md")
            .is(Allow, Some(SHOW_FILE_ALLOW)),
        case("seed: update_scratchpad runs", tn::UPDATE_SCRATCHPAD)
            .is(Allow, Some(SCRATCHPAD_ALLOW)),
        case(
            "seed: ask_user_clarification runs",
            tn::ASK_USER_CLARIFICATION,
        )
        .is(Allow, Some(ASK_ALLOW)),
        case("seed: list_items runs", tn::LIST_ITEMS).is(Allow, Some(LIST_ITEMS_ALLOW)),
        case(
            "seed: image_generate_providers_list hits the catch-all",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .is(Require, C),
        case("seed: register_mcp hits the catch-all", tn::REGISTER_MCP).is(Require, C),
        case("seed: set_secret hits the catch-all", tn::SET_SECRET).is(Require, C),
        case("seed: execute_task runs", tn::EXECUTE_TASK).is(Allow, Some(EXECUTE_TASK_ALLOW)),
        case("seed: an MCP tool hits the catch-all", "mcp__gmail__send").is(Require, C),
        case("seed: an unknown tool hits the catch-all", "frobnicate").is(Require, C),
        case("seed: write into memory/", tn::WRITE_FILE)
            .path("memory/notes.md")
            .is(Allow, Some(MEMORY_ALLOW)),
        case("seed: edit in memory/", tn::EDIT_FILE)
            .path("memory/notes.md")
            .is(Allow, Some(MEMORY_ALLOW)),
        case("seed: insert into new memory/ dirs", tn::INSERT_AT_LINE)
            .path("memory/new/deep/n.md")
            .is(Allow, Some(MEMORY_ALLOW)),
        case(
            "seed: replace_lines in memory/, absolute",
            tn::REPLACE_LINES,
        )
        .path("{root}/memory/notes.md")
        .is(Allow, Some(MEMORY_ALLOW)),
        case("seed: read in memory/ is the read fast path", tn::READ_FILE)
            .path("memory/notes.md")
            .is(Allow, C)
            .via(fast(FastPath::WorkingDir)),
        case("seed: memory itself is inside memory/*", tn::WRITE_FILE)
            .path("memory")
            .is(Allow, Some(MEMORY_ALLOW)),
        case("seed: memoryX is not memory/", tn::WRITE_FILE)
            .path("memoryX/a.md")
            .is(Require, C),
        case(
            "seed: Memory is not memory/ (allow is case-sensitive)",
            tn::WRITE_FILE,
        )
        .path("Memory/a.md")
        .is(Require, C),
        case("seed: memory/.. leaves memory/", tn::WRITE_FILE)
            .path("memory/../src/main.rs")
            .is(Require, C),
        case(
            "seed: memory/link out of memory/ is not memory",
            tn::WRITE_FILE,
        )
        .path("memory/link/a.md")
        .is(Require, C),
        case("seed: writes elsewhere ask", tn::WRITE_FILE)
            .path("src/main.rs")
            .is(Require, C),
        case(
            "seed: show_file_to_user is not a file tool",
            tn::SHOW_FILE_TO_USER,
        )
        .path("secrets/k")
        .is(Allow, Some(SHOW_FILE_ALLOW)),
    ]
}

fn bypasses() -> Vec<Case> {
    use ToolCategory::{Filesystem, Introspection, Shell};
    let e = Some(EXEC_REQUIRE);
    vec![
        case("bypass all: a require runs", tn::EXECUTE_CMD)
            .bypass(all())
            .is(Allow, e)
            .via(Basis::Bypass(BypassScope::All)),
        case("bypass all never opens a read deny", tn::READ_FILE)
            .path("secrets/k")
            .bypass(all())
            .is(Deny, S),
        case("bypass all never opens a write deny", tn::WRITE_FILE)
            .path("secrets/k")
            .bypass(all())
            .is(Deny, S),
        case("bypass all never opens a group deny", tn::EXECUTE_CMD)
            .group("dev")
            .rules([r(101, "dev", tn::EXECUTE_CMD, Deny)])
            .bypass(all())
            .is(Deny, X),
        case("bypass tool: that tool runs", tn::EXECUTE_CMD)
            .bypass(tool(tn::EXECUTE_CMD))
            .is(Allow, e),
        case("bypass tool: other tools still ask", tn::RESTART)
            .bypass(tool(tn::EXECUTE_CMD))
            .is(Require, Some(RESTART_REQUIRE)),
        case("bypass tool never opens a deny", tn::READ_FILE)
            .path("secrets/k")
            .bypass(tool(tn::READ_FILE))
            .is(Deny, S),
        case("bypass category: Shell covers execute_cmd", tn::EXECUTE_CMD)
            .cat(Shell)
            .bypass(category(Shell))
            .is(Allow, e),
        case("bypass category: Shell covers restart", tn::RESTART)
            .cat(Shell)
            .bypass(category(Shell))
            .is(Allow, Some(RESTART_REQUIRE)),
        case(
            "bypass category: other categories ask",
            tn::IMAGE_GENERATE_PROVIDERS_LIST,
        )
        .cat(Introspection)
        .bypass(category(Shell))
        .is(Require, C),
        case("bypass category needs the call's category", tn::EXECUTE_CMD)
            .bypass(category(Shell))
            .is(Require, e),
        case("bypass category: Filesystem covers a write", tn::WRITE_FILE)
            .path("src/main.rs")
            .cat(Filesystem)
            .bypass(category(Filesystem))
            .is(Allow, C),
        case(
            "bypass category never opens the secrets deny",
            tn::WRITE_FILE,
        )
        .path("secrets/k")
        .cat(Filesystem)
        .bypass(category(Filesystem))
        .is(Deny, S),
        case("bypass MCP server: its tools run", "mcp__gmail__send")
            .bypass(mcp("gmail"))
            .is(Allow, C),
        case(
            "bypass MCP server keeps the name boundary",
            "mcp__gmailx__send",
        )
        .bypass(mcp("gmail"))
        .is(Require, C),
        case("bypass MCP server: other servers ask", "mcp__github__list")
            .bypass(mcp("gmail"))
            .is(Require, C),
        case("bypass MCP server: builtins ask", tn::EXECUTE_CMD)
            .bypass(mcp("gmail"))
            .is(Require, e),
        case("bypass MCP server never opens a deny", "mcp__gmail__send")
            .group("dev")
            .rules([r(101, "dev", "mcp__gmail__*", Deny)])
            .bypass(mcp("gmail"))
            .is(Deny, X),
        case("bypass expired (instant)", tn::EXECUTE_CMD)
            .bypass_until(all(), Exp::PastInstant)
            .is(Require, e),
        case("bypass live (instant)", tn::EXECUTE_CMD)
            .bypass_until(all(), Exp::FutureInstant)
            .is(Allow, e),
        case("bypass expired (unix ms)", tn::EXECUTE_CMD)
            .bypass_until(all(), Exp::PastUnix)
            .is(Require, e),
        case("bypass live (unix ms)", tn::EXECUTE_CMD)
            .bypass_until(all(), Exp::FutureUnix)
            .is(Allow, e),
        case("bypass ending exactly now has ended", tn::EXECUTE_CMD)
            .bypass_until(all(), Exp::NowUnix)
            .is(Require, e),
        case("an expired bypass beside a live one", tn::EXECUTE_CMD)
            .bypass_until(all(), Exp::PastUnix)
            .bypass(tool(tn::EXECUTE_CMD))
            .is(Allow, e)
            .via(Basis::Bypass(tool(tn::EXECUTE_CMD))),
        case("bypass covers a path-specific require", tn::WRITE_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([r(101, "dev", tn::WRITE_FILE, Require).path("docs/*")])
            .bypass(tool(tn::WRITE_FILE))
            .is(Allow, X),
        case("bypass covers no match", tn::EXECUTE_CMD)
            .no_seeds()
            .bypass(all())
            .is(Allow, None),
        case("bypass leaves an allow as the rule's", tn::WRITE_TODOS)
            .bypass(all())
            .is(Allow, Some(TODOS_ALLOW))
            .via(Basis::Rule),
        case("bypass never opens memory/sec into secrets", tn::EDIT_FILE)
            .path("memory/sec/k")
            .bypass(tool(tn::EDIT_FILE))
            .is(Deny, S),
    ]
}

fn fast_paths() -> Vec<Case> {
    vec![
        case("fast: read under the workdir", tn::READ_FILE)
            .path("src/main.rs")
            .is(Allow, C)
            .via(fast(FastPath::WorkingDir)),
        case("fast: read under docs/", tn::READ_FILE)
            .path("docs/a.md")
            .is(Allow, C)
            .via(fast(FastPath::Docs)),
        case("fast: read under skills/", tn::READ_FILE)
            .path("skills/s.md")
            .is(Allow, C)
            .via(fast(FastPath::Skills)),
        case("fast: grep_files defaults to the workdir", tn::GREP_FILES)
            .args(json!({"pattern": "x"}))
            .is(Allow, C)
            .via(fast(FastPath::WorkingDir)),
        case("fast: list_files defaults to the workdir", tn::LIST_FILES)
            .is(Allow, C)
            .via(fast(FastPath::WorkingDir)),
        case("fast: list_files .", tn::LIST_FILES)
            .path(".")
            .is(Allow, C),
        case("fast: search_file under docs/", tn::SEARCH_FILE)
            .path("docs/sub/b.md")
            .is(Allow, C)
            .via(fast(FastPath::Docs)),
        case(
            "fast: get_ast_outline under the workdir",
            tn::GET_AST_OUTLINE,
        )
        .path("src/main.rs")
        .is(Allow, C),
        case("fast: read of a file not created yet", tn::READ_FILE)
            .path("src/new.rs")
            .is(Allow, C),
        case("fast: no read fast path outside", tn::READ_FILE)
            .path("{ext}/x.txt")
            .is(Require, C),
        case("fast: allow_fs_reads opens a read", tn::READ_FILE)
            .path("{ext}/x.txt")
            .reads(["{ext}"])
            .is(Allow, C)
            .via(fast(FastPath::AllowFsReads)),
        case("fast: allow_fs_writes opens a read", tn::READ_FILE)
            .path("{ext}/x.txt")
            .writes(["{ext}"])
            .is(Allow, C)
            .via(fast(FastPath::AllowFsWrites)),
        case("fast: allow_fs_reads never opens a write", tn::WRITE_FILE)
            .path("{ext}/x.txt")
            .reads(["{ext}"])
            .is(Require, C),
        case("fast: allow_fs_writes opens a write", tn::WRITE_FILE)
            .path("{ext}/x.txt")
            .writes(["{ext}"])
            .is(Allow, C)
            .via(fast(FastPath::AllowFsWrites)),
        case("fast: allow_fs_writes opens a new subtree", tn::EDIT_FILE)
            .path("{ext}/new/deep.txt")
            .writes(["{ext}"])
            .is(Allow, C),
        case("fast: relative allow_fs_writes entry", tn::WRITE_FILE)
            .path("out/new.txt")
            .writes(["out"])
            .is(Allow, C),
        case("fast: .. out of a write grant asks", tn::WRITE_FILE)
            .path("out/../src/main.rs")
            .writes(["out"])
            .is(Require, C),
        case("fast: .. out of a write grant into secrets", tn::WRITE_FILE)
            .path("out/../secrets/k")
            .writes(["out"])
            .is(Deny, S),
        case(
            "fast: a root write grant never opens secrets/",
            tn::WRITE_FILE,
        )
        .path("secrets/k")
        .writes(["{root}"])
        .is(Deny, S),
        case("fast: nor a nested secrets dir", tn::WRITE_FILE)
            .path("docs/secrets/x")
            .writes(["{root}"])
            .is(Require, C),
        case(
            "fast: no read fast path into a nested secrets dir",
            tn::READ_FILE,
        )
        .path("docs/secrets/x")
        .is(Require, C),
        case(
            "fast: no read fast path into an allowed dir's secrets",
            tn::READ_FILE,
        )
        .path("{ext}/secrets/k")
        .reads(["{ext}"])
        .is(Require, C),
        case("fast: granting secrets/ itself still denies", tn::READ_FILE)
            .path("secrets/k")
            .reads(["{root}/secrets"])
            .is(Deny, S),
        case(
            "fast: granting secrets/ without rules still asks",
            tn::READ_FILE,
        )
        .path("secrets/k")
        .no_seeds()
        .reads(["{root}/secrets"])
        .is(Require, None),
        case("fast: never over a group deny", tn::READ_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([r(101, "dev", tn::READ_FILE, Deny).path("docs/*")])
            .is(Deny, X),
        case("fast: a path-specific require is kept", tn::READ_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([r(101, "dev", tn::READ_FILE, Require).path("docs/*")])
            .is(Require, X)
            .via(Basis::Rule),
        case("fast: a class-specific require is kept", tn::READ_FILE)
            .path("docs/a.md")
            .group("dev")
            .rules([r(101, "dev", "@fs_read", Require)])
            .is(Require, X),
        case("fast: write grant over the catch-all", tn::WRITE_FILE)
            .path("src/main.rs")
            .writes(["src"])
            .is(Allow, C),
        case("fast: reading / asks", tn::READ_FILE)
            .path("/")
            .is(Require, C),
        case("fast: reading the workdir's parent asks", tn::LIST_FILES)
            .path("..")
            .is(Require, C),
        case("fast: an empty path is no path", tn::READ_FILE)
            .path("")
            .is(Require, C),
        case(
            "fast: list_files with an empty path lists the workdir",
            tn::LIST_FILES,
        )
        .path("")
        .is(Allow, C),
        case("fast: a non-string path is no path", tn::READ_FILE)
            .args(json!({"path": 5}))
            .is(Require, C),
        case("fast: read_file without a path asks", tn::READ_FILE).is(Require, C),
        case("fast: an empty write grant grants nothing", tn::WRITE_FILE)
            .path("src/main.rs")
            .writes([""])
            .is(Require, C),
        case(
            "fast: a write grant reached through a symlink",
            tn::WRITE_FILE,
        )
        .path("docs/ext/new.txt")
        .writes(["{ext}"])
        .is(Allow, C),
        case(
            "fast: execute_cmd with a path arg is no file tool",
            tn::EXECUTE_CMD,
        )
        .path("src/main.rs")
        .is(Require, Some(EXEC_REQUIRE)),
    ]
}

fn hostile() -> Vec<Case> {
    vec![
        case("hostile: docs/../secrets/k", tn::READ_FILE)
            .path("docs/../secrets/k")
            .is(Deny, S),
        case("hostile: symlink docs/link -> ../secrets", tn::READ_FILE)
            .path("docs/link/k")
            .is(Deny, S),
        case("hostile: listing the symlink itself", tn::LIST_FILES)
            .path("docs/link")
            .is(Deny, S),
        case("hostile: deeper through the symlink", tn::READ_FILE)
            .path("docs/link/sub/k2")
            .is(Deny, S),
        case("hostile: public -> secrets", tn::READ_FILE)
            .path("public/k")
            .is(Deny, S),
        case(
            "hostile: secrets/out -> ../docs still names secrets/",
            tn::READ_FILE,
        )
        .path("secrets/out/a.md")
        .is(Deny, S),
        case("hostile: docs/up -> .. back into secrets", tn::READ_FILE)
            .path("docs/up/secrets/k")
            .is(Deny, S),
        // Unresolvable: no fast path vouches for it (the loop could be
        // undone between the gate and the tool), so it asks.
        case(
            "hostile: a symlink loop in docs/ cannot be opened",
            tn::READ_FILE,
        )
        .path("docs/loopA/x")
        .is(Require, C),
        case("hostile: a symlink loop in secrets/", tn::READ_FILE)
            .path("secrets/loop1/x")
            .is(Deny, S),
        case(
            "hostile: a self-loop then a secrets name asks",
            tn::READ_FILE,
        )
        .path("loopR/secrets/k")
        .is(Require, C),
        case("hostile: Secrets/", tn::READ_FILE)
            .path("Secrets/k")
            .is(Deny, S),
        case("hostile: SECRETS/ deeper", tn::READ_FILE)
            .path("SECRETS/sub/k2")
            .is(Deny, S),
        case("hostile: sEcReTs listed", tn::LIST_FILES)
            .path("sEcReTs")
            .is(Deny, S),
        case("hostile: secrets/ with a trailing slash", tn::LIST_FILES)
            .path("secrets/")
            .is(Deny, S),
        case("hostile: secrets without a slash", tn::LIST_FILES)
            .path("secrets")
            .is(Deny, S),
        case("hostile: secrets//k", tn::READ_FILE)
            .path("secrets//k")
            .is(Deny, S),
        case("hostile: ./secrets/k", tn::READ_FILE)
            .path("./secrets/k")
            .is(Deny, S),
        case("hostile: secrets/./k", tn::READ_FILE)
            .path("secrets/./k")
            .is(Deny, S),
        case(
            "hostile: new/dir/../../secrets/k (nothing exists)",
            tn::READ_FILE,
        )
        .path("new/dir/../../secrets/k")
        .is(Deny, S),
        case("hostile: docs/new/../../secrets/k", tn::READ_FILE)
            .path("docs/new/../../secrets/k")
            .is(Deny, S),
        case("hostile: grep from nothing/../secrets", tn::GREP_FILES)
            .path("nothing/../secrets")
            .is(Deny, S),
        case("hostile: absolute into secrets", tn::READ_FILE)
            .path("{root}/secrets/k")
            .is(Deny, S),
        case("hostile: absolute with ..", tn::READ_FILE)
            .path("{root}/docs/../secrets/k")
            .is(Deny, S),
        case("hostile: absolute out and back in", tn::READ_FILE)
            .path("{root}/../{rootname}/secrets/k")
            .is(Deny, S),
        case("hostile: relative out and back in", tn::READ_FILE)
            .path("../{rootname}/secrets/k")
            .is(Deny, S),
        case("hostile: absolute case variant", tn::READ_FILE)
            .path("{root}/SECRETS/k")
            .is(Deny, S),
        case("hostile: absolute secretsX/../secrets", tn::WRITE_FILE)
            .path("{root}/secretsX/../secrets/k")
            .is(Deny, S),
        case("hostile: secretsX/ is not secrets/", tn::READ_FILE)
            .path("secretsX/k")
            .is(Allow, C),
        case("hostile: secrets.txt is not secrets/", tn::READ_FILE)
            .path("secrets.txt")
            .is(Allow, C),
        case("hostile: docs/secrets.md is not secrets/", tn::READ_FILE)
            .path("docs/secrets.md")
            .is(Allow, C)
            .via(fast(FastPath::Docs)),
        case("hostile: my_secrets/ is not secrets/", tn::READ_FILE)
            .path("my_secrets/k")
            .is(Allow, C),
        case("hostile: writing secretsX/ asks", tn::WRITE_FILE)
            .path("secretsX/k")
            .is(Require, C),
        case("hostile: writing Secrets/", tn::WRITE_FILE)
            .path("Secrets/new.txt")
            .is(Deny, S),
        case(
            "hostile: writing through a missing dir into secrets",
            tn::WRITE_FILE,
        )
        .path("new/../secrets/new.txt")
        .is(Deny, S),
        case("hostile: writing through docs/link", tn::WRITE_FILE)
            .path("docs/link/new.txt")
            .is(Deny, S),
        case(
            "hostile: memory/sec -> ../secrets beats the memory allow",
            tn::WRITE_FILE,
        )
        .path("memory/sec/k")
        .is(Deny, S),
        case(
            "hostile: .. after a symlink climbs from its target",
            tn::EDIT_FILE,
        )
        .path("memory/sec/../secrets/k")
        .is(Deny, S),
        case("hostile: docs/ext leaves the workdir", tn::READ_FILE)
            .path("docs/ext/x.txt")
            .is(Require, C),
        case(
            "hostile: docs/ext into an allowed dir's secrets",
            tn::READ_FILE,
        )
        .path("docs/ext/secrets/k")
        .reads(["{ext}"])
        .is(Require, C),
        case("hostile: docs/ext into an allowed dir", tn::READ_FILE)
            .path("docs/ext/x.txt")
            .reads(["{ext}"])
            .is(Allow, C)
            .via(fast(FastPath::AllowFsReads)),
        case("hostile: grep secrets/sub", tn::GREP_FILES)
            .path("secrets/sub")
            .is(Deny, S),
        case("hostile: public/../secrets/k", tn::GET_AST_OUTLINE)
            .path("public/../secrets/k")
            .is(Deny, S),
        case(
            "hostile: docs/link/../k lands at the root, as the OS says",
            tn::SEARCH_FILE,
        )
        .path("docs/link/../k")
        .is(Allow, C)
        .via(fast(FastPath::WorkingDir)),
        case("hostile: writing the secrets dir itself", tn::WRITE_FILE)
            .path("secrets")
            .is(Deny, S),
        case("hostile: docs/link/ with a trailing slash", tn::READ_FILE)
            .path("docs/link/")
            .is(Deny, S),
    ]
}

fn all_cases() -> Vec<Case> {
    [
        patterns(),
        path_patterns(),
        filters_priorities_groups(),
        seeded(),
        bypasses(),
        fast_paths(),
        hostile(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn snapshot(ws: &Workspace, case: &Case) -> RulesSnapshot {
    let mut rules = if case.seeded {
        seeded_rules()
    } else {
        Vec::new()
    };
    for spec in &case.rules {
        let mut rule = Rule::new(spec.id, spec.group, spec.tool, spec.action)
            .unwrap()
            .with_priority(spec.priority);
        if let Some(p) = spec.path {
            rule = rule.with_path(&ws.fill(p)).unwrap();
        }
        if let Some(a) = spec.agent {
            rule = rule.with_agent(a);
        }
        if let Some(s) = spec.source {
            rule = rule.with_source(s);
        }
        rules.push(rule);
    }
    RulesSnapshot::new(rules)
}

fn bypasses_of(case: &Case, now: Now) -> Bypasses {
    let mut set = Bypasses::new();
    for (scope, exp) in &case.bypasses {
        let minute = Duration::from_secs(60);
        let bypass = Bypass::new(scope.clone());
        let bypass = match exp {
            Exp::Never => bypass,
            Exp::PastInstant => bypass.until(Expiry::At(now.instant.checked_sub(minute).unwrap())),
            Exp::FutureInstant => bypass.until(Expiry::At(now.instant + minute)),
            Exp::PastUnix => bypass.until(Expiry::UnixMs(now.unix_ms - 1)),
            Exp::NowUnix => bypass.until(Expiry::UnixMs(now.unix_ms)),
            Exp::FutureUnix => bypass.until(Expiry::UnixMs(now.unix_ms + 60_000)),
        };
        set.add(bypass);
    }
    set
}

#[test]
fn decision_table() {
    let ws = Workspace::new();
    let now = Now::current();
    let cases = all_cases();
    let mut failures = Vec::new();
    for case in &cases {
        let rules = snapshot(&ws, case);
        let ctx = RunContext {
            permission_group: case.group.to_string(),
            allow_fs_reads: case
                .reads
                .iter()
                .map(|p| PathBuf::from(ws.fill(p)))
                .collect(),
            allow_fs_writes: case
                .writes
                .iter()
                .map(|p| PathBuf::from(ws.fill(p)))
                .collect(),
            ..RunContext::in_dir(&ws.root)
        };
        let args = match (&case.args, case.path) {
            (Some(args), _) => args.clone(),
            (None, Some(p)) => json!({ "path": ws.fill(p) }),
            (None, None) => json!({}),
        };
        let mut call = CallContext::for_run(case.tool, &args, &ctx);
        if let Some(a) = case.agent {
            call = call.with_agent(a);
        }
        if let Some(s) = case.source {
            call = call.with_source(s);
        }
        if let Some(c) = case.category {
            call = call.with_category(c);
        }
        let decision = decide(&rules, &call, &ctx, &bypasses_of(case, now), now);
        let got_rule = decision.rule.as_ref().map(|r| r.id);
        let basis_ok = case.basis.as_ref().is_none_or(|b| *b == decision.basis);
        let reason_ok = !decision.reason.is_empty()
            && got_rule.is_none_or(|id| decision.reason.contains(&format!("rule {id}")));
        if decision.action != case.expect || got_rule != case.rule || !basis_ok || !reason_ok {
            failures.push(format!(
                "{}: expected {:?} by {:?}{}, got {:?} by {:?} ({:?}: {})",
                case.name,
                case.expect,
                case.rule,
                case.basis
                    .as_ref()
                    .map(|b| format!(" via {b:?}"))
                    .unwrap_or_default(),
                decision.action,
                got_rule,
                decision.basis,
                decision.reason,
            ));
        }
    }
    assert!(cases.len() >= 150, "only {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!("decision table: {} cases", cases.len());
}
