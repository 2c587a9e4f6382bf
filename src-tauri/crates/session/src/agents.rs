//! The agent catalogue: every `agents/<id>/` with its `meta.json` and
//! `AGENT.md`, from the compiled-in built-ins, then each agents directory in
//! order (the bundled one, then the person's own), a later one adding agents
//! or replacing earlier ones of the same id. `agents/common/` holds include
//! fragments and is not an agent.
//!
//! Everything is read when used, so editing an agent needs no restart. A
//! malformed `meta.json` is a [`AgentProblem`] (listed by `skald agents`,
//! logged) and that agent is left out — never a crash, and never a silent
//! fall-back to a built-in of the same id.
//!
//! A prompt is composed from `AGENT.md` (includes expanded), then the
//! `<!-- AGENTS_LIST -->` and `<!-- MCP_LIST -->` directives filled, then
//! the agent's `inject_memory` files appended as blocks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent::{AGENT_FILE, load_system_prompt};
use crate::error::SessionError;

/// File holding an agent's metadata inside `agents/<id>/`.
pub const META_FILE: &str = "meta.json";

/// The directory of include fragments, never an agent.
pub const COMMON_DIR: &str = "common";

/// What an agent is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentType {
    /// An entry point a person talks to.
    #[default]
    Chat,
    /// Dispatchable with `execute_task`.
    Task,
    /// Hidden, wired by the runtime.
    System,
}

impl AgentType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Task => "task",
            Self::System => "system",
        }
    }
}

/// `meta.json`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentMeta {
    /// The directory name is the id; a stated one must agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// Routing text for the calling model.
    pub description: String,
    /// What the agent does, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friendly_description: Option<String>,
    /// How to call it well (shown to callers with the description).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: AgentType,
    /// A pinned model; `None`: the caller's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// Files injected into the prompt as blocks (relative to the session's
    /// working directory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inject_memory: Vec<String>,
}

/// Where an agent's files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSource {
    /// Compiled into the binary.
    Builtin,
    /// `agents/<id>/` in this directory.
    Dir(PathBuf),
}

/// One usable agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInfo {
    pub id: String,
    pub meta: AgentMeta,
    pub source: AgentSource,
}

/// An agent directory that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentProblem {
    pub id: String,
    pub path: PathBuf,
    pub reason: String,
}

impl std::fmt::Display for AgentProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "agent `{}` skipped: {}: {}",
            self.id,
            self.path.display(),
            self.reason
        )
    }
}

macro_rules! builtin {
    ($id:literal) => {
        (
            $id,
            include_str!(concat!("../../../../agents/", $id, "/AGENT.md")),
            include_str!(concat!("../../../../agents/", $id, "/meta.json")),
        )
    };
}
/// The agents compiled in: `(id, AGENT.md, meta.json)`. They keep an
/// installed binary working when no `agents/` ships beside it; a directory
/// of the same id anywhere wins. Their prompts use no includes.
const BUILTINS: &[(&str, &str, &str)] = &[
    builtin!("main"),
    builtin!("project-coordinator"),
    builtin!("software-engineer"),
    builtin!("code-explorer"),
    builtin!("researcher"),
    builtin!("spec-writer"),
];

/// The agents found now, and the ones that could not be used.
#[derive(Debug, Clone, Default)]
pub struct AgentCatalog {
    agents: BTreeMap<String, AgentInfo>,
    pub problems: Vec<AgentProblem>,
}

/// The agents directories in order of precedence (later wins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentDirs(pub Vec<PathBuf>);

impl AgentDirs {
    /// Reads the catalogue now; problems are also logged.
    pub fn catalog(&self) -> AgentCatalog {
        let c = AgentCatalog::load(&self.0);
        for p in &c.problems {
            tracing::warn!(agent = %p.id, path = %p.path.display(), reason = %p.reason, "agent skipped");
        }
        c
    }
}

impl AgentCatalog {
    /// Built-ins, then every directory of `dirs` in order.
    pub fn load(dirs: &[PathBuf]) -> Self {
        let mut c = Self::default();
        for (id, _, meta) in BUILTINS {
            match serde_json::from_str::<AgentMeta>(meta) {
                Ok(meta) => {
                    c.agents.insert(
                        (*id).to_string(),
                        AgentInfo {
                            id: (*id).to_string(),
                            meta,
                            source: AgentSource::Builtin,
                        },
                    );
                }
                Err(e) => c.problems.push(AgentProblem {
                    id: (*id).to_string(),
                    path: PathBuf::from(format!("<built-in {id}>")),
                    reason: e.to_string(),
                }),
            }
        }
        for dir in dirs {
            c.scan(dir);
        }
        c
    }

    fn scan(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        subdirs.sort();
        for sub in subdirs {
            let Some(id) = sub.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
                continue;
            };
            if id == COMMON_DIR || id.starts_with('.') {
                continue;
            }
            let meta_path = sub.join(META_FILE);
            // A directory of this id replaces what came before, usable or not.
            self.agents.remove(&id);
            self.problems.retain(|p| p.id != id);
            match read_meta(&id, &sub, &meta_path) {
                Ok(meta) => {
                    self.agents.insert(
                        id.clone(),
                        AgentInfo {
                            id,
                            meta,
                            source: AgentSource::Dir(dir.to_path_buf()),
                        },
                    );
                }
                Err((path, reason)) => self.problems.push(AgentProblem { id, path, reason }),
            }
        }
    }

    /// Every usable agent, by id.
    pub fn agents(&self) -> impl Iterator<Item = &AgentInfo> {
        self.agents.values()
    }

    pub fn get(&self, id: &str) -> Option<&AgentInfo> {
        self.agents.get(id)
    }

    /// The problem that made `id` unusable, if any.
    pub fn problem(&self, id: &str) -> Option<&AgentProblem> {
        self.problems.iter().find(|p| p.id == id)
    }

    /// The agent `id`, or why it cannot be used.
    pub fn require(&self, id: &str) -> Result<&AgentInfo, SessionError> {
        if let Some(a) = self.get(id) {
            return Ok(a);
        }
        Err(match self.problem(id) {
            Some(p) => SessionError::AgentInvalid {
                agent: id.to_string(),
                path: p.path.clone(),
                reason: p.reason.clone(),
            },
            None => SessionError::AgentNotFound {
                agent: id.to_string(),
                path: PathBuf::from(id).join(AGENT_FILE),
            },
        })
    }

    /// The task agents `caller` may dispatch to, by id.
    pub fn task_agents<'a>(&'a self, caller: &'a str) -> impl Iterator<Item = &'a AgentInfo> {
        self.agents
            .values()
            .filter(move |a| a.meta.kind == AgentType::Task && a.id != caller)
    }

    /// The full system prompt of `id` for a session working in `workdir`.
    pub fn system_prompt(&self, id: &str, workdir: &Path) -> Result<String, SessionError> {
        self.system_prompt_with(id, workdir, MCP_LIST_EMPTY.trim_end())
    }

    /// [`system_prompt`](Self::system_prompt) with `<!-- MCP_LIST -->`
    /// filled with `mcp_list`.
    pub fn system_prompt_with(
        &self,
        id: &str,
        workdir: &Path,
        mcp_list: &str,
    ) -> Result<String, SessionError> {
        let agent = self.require(id)?;
        let raw = match &agent.source {
            AgentSource::Dir(dir) => load_system_prompt(dir, id)?,
            AgentSource::Builtin => builtin_prompt(id)
                .unwrap_or_default()
                .trim_end()
                .to_string(),
        };
        let mut out = String::with_capacity(raw.len());
        for line in raw.split_inclusive('\n') {
            match directive(line) {
                Some(Directive::AgentsList) => {
                    out.push_str(&self.agents_list(id));
                    out.push('\n');
                }
                Some(Directive::McpList) => {
                    out.push_str(mcp_list);
                    out.push('\n');
                }
                None => out.push_str(line),
            }
        }
        let mut out = out.trim_end().to_string();
        for file in &agent.meta.inject_memory {
            out.push_str("\n\n");
            out.push_str(&memory_block(file, workdir));
        }
        Ok(out)
    }

    /// `<!-- AGENTS_LIST -->`: each task agent with its description and
    /// instructions.
    pub fn agents_list(&self, caller: &str) -> String {
        let mut out = String::new();
        for a in self.task_agents(caller) {
            out.push_str(&format!(
                "- `{}` ({}): {}\n",
                a.id, a.meta.name, a.meta.description
            ));
            if let Some(i) = a
                .meta
                .instructions
                .as_deref()
                .filter(|i| !i.trim().is_empty())
            {
                out.push_str(&format!("  How to call it: {}\n", i.trim()));
            }
        }
        if out.is_empty() {
            out.push_str("(no task agents are installed)\n");
        }
        out.trim_end().to_string()
    }
}

/// What `<!-- MCP_LIST -->` becomes without MCP servers.
const MCP_LIST_EMPTY: &str = "(no MCP servers are registered)\n";

fn builtin_prompt(id: &str) -> Option<&'static str> {
    BUILTINS
        .iter()
        .find(|(b, _, _)| *b == id)
        .map(|(_, md, _)| *md)
}

fn read_meta(id: &str, dir: &Path, path: &Path) -> Result<AgentMeta, (PathBuf, String)> {
    if !dir.join(AGENT_FILE).is_file() {
        return Err((dir.join(AGENT_FILE), "no AGENT.md".to_string()));
    }
    // A bare AGENT.md is a chat agent named by its directory.
    if !path.exists() {
        return Ok(AgentMeta {
            name: id.to_string(),
            description: format!("The `{id}` agent."),
            ..AgentMeta::default()
        });
    }
    let text = std::fs::read_to_string(path).map_err(|e| (path.to_path_buf(), e.to_string()))?;
    let meta: AgentMeta =
        serde_json::from_str(&text).map_err(|e| (path.to_path_buf(), e.to_string()))?;
    if let Some(stated) = meta.id.as_deref().filter(|s| *s != id) {
        return Err((
            path.to_path_buf(),
            format!("its id `{stated}` differs from its directory name `{id}`"),
        ));
    }
    if meta.name.trim().is_empty() || meta.description.trim().is_empty() {
        return Err((
            path.to_path_buf(),
            "`name` and `description` must not be empty".to_string(),
        ));
    }
    Ok(meta)
}

enum Directive {
    AgentsList,
    McpList,
}

fn directive(line: &str) -> Option<Directive> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    match inner {
        "AGENTS_LIST" => Some(Directive::AgentsList),
        "MCP_LIST" => Some(Directive::McpList),
        _ => None,
    }
}

/// Most bytes of one injected memory file.
const MEMORY_MAX_BYTES: usize = 64 * 1024;

/// One `inject_memory` file as a block; a missing file is a placeholder.
fn memory_block(file: &str, workdir: &Path) -> String {
    let path = workdir.join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let mut text = text;
            if text.len() > MEMORY_MAX_BYTES {
                let mut cut = MEMORY_MAX_BYTES;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                text.push_str("\n[… truncated]");
            }
            format!("<memory file=\"{file}\">\n{}\n</memory>", text.trim_end())
        }
        Err(_) => format!("<memory file=\"{file}\">\n(this file does not exist yet)\n</memory>"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn meta(name: &str, kind: &str) -> String {
        format!(r#"{{"name": "{name}", "description": "does {name}", "type": "{kind}"}}"#)
    }

    #[test]
    fn the_built_ins_are_all_there_with_their_types() {
        let c = AgentCatalog::load(&[]);
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        let kinds: Vec<(&str, AgentType)> =
            c.agents().map(|a| (a.id.as_str(), a.meta.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("code-explorer", AgentType::Task),
                ("main", AgentType::Chat),
                ("project-coordinator", AgentType::Chat),
                ("researcher", AgentType::Task),
                ("software-engineer", AgentType::Task),
                ("spec-writer", AgentType::Task),
            ]
        );
        for (id, md, _) in BUILTINS {
            assert!(!md.contains("INCLUDE:"), "{id}: built-ins use no includes");
            assert!(md.len() > 400, "{id}: a real prompt");
        }
    }

    #[test]
    fn the_bundled_directory_matches_the_built_ins() {
        let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../agents");
        let bundled = AgentCatalog::load(std::slice::from_ref(&agents));
        assert!(bundled.problems.is_empty(), "{:?}", bundled.problems);
        let builtin = AgentCatalog::load(&[]);
        for a in builtin.agents() {
            let b = bundled.get(&a.id).unwrap();
            assert_eq!(a.meta, b.meta);
            assert_eq!(
                builtin.system_prompt(&a.id, &agents).unwrap(),
                bundled.system_prompt(&a.id, &agents).unwrap()
            );
        }
    }

    #[test]
    fn agents_list_and_mcp_list_are_filled() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "boss/meta.json", &meta("Boss", "chat"));
        write(
            d.path(),
            "boss/AGENT.md",
            "Delegate.\n<!-- AGENTS_LIST -->\nTools:\n<!-- MCP_LIST -->\nEnd.\n",
        );
        write(
            d.path(),
            "worker/meta.json",
            r#"{"name": "Worker", "description": "works", "instructions": "Give a path.", "type": "task"}"#,
        );
        write(d.path(), "worker/AGENT.md", "Work.\n");
        // Only task agents are listed, the built-in ones too; never the caller.
        let c = AgentCatalog::load(&[d.path().to_path_buf()]);
        let p = c.system_prompt("boss", d.path()).unwrap();
        assert!(p.starts_with("Delegate.\n- `code-explorer`"), "{p}");
        assert!(
            p.contains("- `worker` (Worker): works\n  How to call it: Give a path.\n"),
            "{p}"
        );
        assert!(!p.contains("`boss`") && !p.contains("`main`"), "{p}");
        assert!(
            p.ends_with("Tools:\n(no MCP servers are registered)\nEnd."),
            "{p}"
        );
        assert!(!c.agents_list("worker").contains("`worker`"));
    }

    #[test]
    fn a_malformed_meta_is_reported_and_that_agent_skipped() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "ok/meta.json", &meta("Ok", "task"));
        write(d.path(), "ok/AGENT.md", "Fine.\n");
        write(d.path(), "bad/meta.json", "{\"name\": \"Bad\",");
        write(d.path(), "bad/AGENT.md", "x");
        write(
            d.path(),
            "typo/meta.json",
            r#"{"name": "T", "description": "d", "tpye": "task"}"#,
        );
        write(d.path(), "typo/AGENT.md", "x");
        write(d.path(), "nometa/AGENT.md", "x");
        write(d.path(), "noprompt/meta.json", &meta("N", "task"));
        // A broken override of a built-in is not silently the built-in.
        write(
            d.path(),
            "researcher/meta.json",
            r#"{"name": "R", "description": "d", "type": "robot"}"#,
        );
        write(d.path(), "researcher/AGENT.md", "x");
        write(d.path(), "common/part.md", "fragment");
        let c = AgentCatalog::load(&[d.path().to_path_buf()]);
        let ids: Vec<&str> = c.problems.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["bad", "noprompt", "researcher", "typo"]);
        // A bare AGENT.md is a chat agent named by its directory.
        let bare = c.get("nometa").unwrap();
        assert_eq!(
            (bare.meta.name.as_str(), bare.meta.kind),
            ("nometa", AgentType::Chat)
        );
        assert!(
            c.problem("typo")
                .unwrap()
                .reason
                .contains("unknown field `tpye`")
        );
        assert!(c.problem("researcher").unwrap().reason.contains("robot"));
        assert!(c.get("ok").is_some() && c.get("common").is_none());
        let e = c.system_prompt("researcher", d.path()).unwrap_err();
        assert!(matches!(e, SessionError::AgentInvalid { .. }), "{e}");
        assert!(e.to_string().contains("researcher/meta.json"), "{e}");
        assert!(matches!(
            c.system_prompt("ghost", d.path()),
            Err(SessionError::AgentNotFound { .. })
        ));
    }

    #[test]
    fn a_later_directory_overrides_and_prompts_are_read_when_used() {
        let base = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        write(base.path(), "main/meta.json", &meta("Base", "chat"));
        write(base.path(), "main/AGENT.md", "Base prompt.\n");
        let dirs = AgentDirs(vec![base.path().to_path_buf(), user.path().to_path_buf()]);
        assert_eq!(
            dirs.catalog().system_prompt("main", base.path()).unwrap(),
            "Base prompt."
        );
        write(user.path(), "main/meta.json", &meta("Mine", "chat"));
        write(user.path(), "main/AGENT.md", "My prompt.\n");
        let c = dirs.catalog();
        assert_eq!(c.get("main").unwrap().meta.name, "Mine");
        assert_eq!(c.system_prompt("main", base.path()).unwrap(), "My prompt.");
        write(user.path(), "main/AGENT.md", "Edited.\n");
        assert_eq!(
            dirs.catalog().system_prompt("main", base.path()).unwrap(),
            "Edited."
        );
    }

    #[test]
    fn injected_memory_is_a_block_and_a_missing_file_a_placeholder() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "a/meta.json",
            r#"{"name": "A", "description": "d", "inject_memory": ["memory/facts.md", "memory/none.md"]}"#,
        );
        write(d.path(), "a/AGENT.md", "Prompt.\n");
        let work = tempfile::tempdir().unwrap();
        write(work.path(), "memory/facts.md", "The sky is blue.\n");
        let c = AgentCatalog::load(&[d.path().to_path_buf()]);
        assert_eq!(
            c.system_prompt("a", work.path()).unwrap(),
            "Prompt.\n\n<memory file=\"memory/facts.md\">\nThe sky is blue.\n</memory>\n\n\
             <memory file=\"memory/none.md\">\n(this file does not exist yet)\n</memory>"
        );
    }
}
