//! Agent definitions: the system prompt of `agents/<id>/AGENT.md`, with every
//! `<!-- INCLUDE: relative/path -->` line replaced by that file's content.
//!
//! Include paths are relative to the agent's directory (nested includes too),
//! so an agent reads the same wherever it is installed. A missing file or a
//! cycle is a [`SessionError`], never a panic. This module only reads files.

use std::path::{Path, PathBuf};

use crate::error::SessionError;

/// File holding an agent's system prompt inside `agents/<id>/`.
pub const AGENT_FILE: &str = "AGENT.md";

/// How deep includes may nest (a guard beyond the cycle check).
const MAX_INCLUDE_DEPTH: usize = 16;

/// The agent id a session gets when none is given.
pub const DEFAULT_AGENT: &str = "main";

/// The default agent's prompt, compiled in: an installed binary must answer
/// even when no `agents/` directory ships beside it (or the source tree it
/// was built from is gone). A file on disk still wins, so it can be edited.
const BUILTIN_MAIN: &str = include_str!("../../../../agents/main/AGENT.md");

/// The compiled-in prompt of a built-in agent, if `agent_id` names one.
pub fn builtin_system_prompt(agent_id: &str) -> Option<&'static str> {
    (agent_id == DEFAULT_AGENT).then(|| BUILTIN_MAIN.trim_end())
}

/// Loads the system prompt of `agent_id` from `agents_dir`.
pub fn load_system_prompt(agents_dir: &Path, agent_id: &str) -> Result<String, SessionError> {
    if agent_id.is_empty() || agent_id.contains(['/', '\\']) || agent_id == "." || agent_id == ".."
    {
        return Err(SessionError::AgentNotFound {
            agent: agent_id.to_string(),
            path: agents_dir.join(agent_id),
        });
    }
    let dir = agents_dir.join(agent_id);
    let file = dir.join(AGENT_FILE);
    if !file.is_file() {
        if let Some(builtin) = builtin_system_prompt(agent_id)
            && !dir.exists()
        {
            return Ok(builtin.to_string());
        }
        return Err(SessionError::AgentNotFound {
            agent: agent_id.to_string(),
            path: file,
        });
    }
    let mut chain = Vec::new();
    let text = expand(agent_id, &dir, &file, &mut chain)?;
    Ok(text.trim_end().to_string())
}

/// The include target of a line, if the line is an include directive.
fn include_target(line: &str) -> Option<&str> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    let path = inner.strip_prefix("INCLUDE:")?.trim();
    (!path.is_empty()).then_some(path)
}

fn expand(
    agent: &str,
    agent_dir: &Path,
    file: &Path,
    chain: &mut Vec<PathBuf>,
) -> Result<String, SessionError> {
    let key = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    if chain.contains(&key) || chain.len() >= MAX_INCLUDE_DEPTH {
        let mut names: Vec<String> = chain.iter().map(|p| p.display().to_string()).collect();
        names.push(key.display().to_string());
        return Err(SessionError::IncludeCycle {
            agent: agent.to_string(),
            chain: names.join(" -> "),
        });
    }
    let text = std::fs::read_to_string(file).map_err(|source| SessionError::AgentRead {
        path: file.to_path_buf(),
        source,
    })?;
    chain.push(key);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match include_target(line) {
            Some(include) => {
                let resolved = agent_dir.join(include);
                if !resolved.is_file() {
                    return Err(SessionError::MissingInclude {
                        agent: agent.to_string(),
                        include: include.to_string(),
                        from: file.to_path_buf(),
                        resolved,
                    });
                }
                let body = expand(agent, agent_dir, &resolved, chain)?;
                out.push_str(&body);
                if !body.ends_with('\n') && line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    chain.pop();
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn agent(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let p = dir.path().join("a").join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn includes_are_expanded_recursively_relative_to_the_agent_dir() {
        let d = agent(&[
            ("AGENT.md", "Top.\n<!-- INCLUDE: parts/one.md -->\nEnd.\n"),
            ("parts/one.md", "One.\n  <!--INCLUDE:parts/two.md-->  \n"),
            ("parts/two.md", "Two."),
        ]);
        let p = load_system_prompt(d.path(), "a").unwrap();
        assert_eq!(p, "Top.\nOne.\nTwo.\nEnd.");
    }

    #[test]
    fn a_non_directive_comment_is_kept() {
        let d = agent(&[("AGENT.md", "<!-- MCP_LIST -->\n<!-- INCLUDE: -->\n")]);
        let p = load_system_prompt(d.path(), "a").unwrap();
        assert_eq!(p, "<!-- MCP_LIST -->\n<!-- INCLUDE: -->");
    }

    #[test]
    fn missing_include_is_a_clear_error() {
        let d = agent(&[("AGENT.md", "x\n<!-- INCLUDE: nope.md -->\n")]);
        let e = load_system_prompt(d.path(), "a").unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, SessionError::MissingInclude { .. }), "{msg}");
        assert!(
            msg.contains("includes `nope.md`, which does not exist"),
            "{msg}"
        );
    }

    #[test]
    fn include_cycles_are_refused() {
        let d = agent(&[
            ("AGENT.md", "<!-- INCLUDE: x.md -->\n"),
            ("x.md", "<!-- INCLUDE: y.md -->\n"),
            ("y.md", "<!-- INCLUDE: x.md -->\n"),
        ]);
        let e = load_system_prompt(d.path(), "a").unwrap_err();
        assert!(matches!(e, SessionError::IncludeCycle { .. }), "{e}");
        assert!(e.to_string().contains("x.md -> "), "{e}");
        let d = agent(&[("AGENT.md", "<!-- INCLUDE: AGENT.md -->\n")]);
        assert!(matches!(
            load_system_prompt(d.path(), "a"),
            Err(SessionError::IncludeCycle { .. })
        ));
    }

    #[test]
    fn the_default_agent_answers_without_any_agents_dir() {
        let gone = tempfile::tempdir().unwrap().path().join("no-such-dir");
        let p = load_system_prompt(&gone, DEFAULT_AGENT).unwrap();
        assert!(p.starts_with("You are Skald"), "{p}");
        assert_eq!(Some(p.as_str()), builtin_system_prompt(DEFAULT_AGENT));
        // A file on disk wins over the compiled-in copy.
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("main")).unwrap();
        std::fs::write(d.path().join("main/AGENT.md"), "Edited.\n").unwrap();
        assert_eq!(
            load_system_prompt(d.path(), DEFAULT_AGENT).unwrap(),
            "Edited."
        );
        // A directory without its AGENT.md is a broken install, not a fallback.
        std::fs::remove_file(d.path().join("main/AGENT.md")).unwrap();
        assert!(matches!(
            load_system_prompt(d.path(), DEFAULT_AGENT),
            Err(SessionError::AgentNotFound { .. })
        ));
        assert_eq!(builtin_system_prompt("other"), None);
    }

    #[test]
    fn unknown_or_odd_agent_ids_are_not_found() {
        let d = agent(&[("AGENT.md", "x")]);
        for id in ["b", "", "..", "a/../a"] {
            assert!(
                matches!(
                    load_system_prompt(d.path(), id),
                    Err(SessionError::AgentNotFound { .. })
                ),
                "{id}"
            );
        }
    }

    #[test]
    fn the_bundled_main_agent_loads() {
        let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../agents");
        let p = load_system_prompt(&agents, DEFAULT_AGENT).unwrap();
        assert!(p.contains("Skald"), "{p}");
    }
}
