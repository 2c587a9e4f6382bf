//! [`CallContext`]: one tool call as the rules see it — the tool's name, who
//! calls it, and its `path` argument resolved twice: canonically (symlinks and
//! `..` resolved on disk by `canonicalize_for_policy`) and lexically (as
//! written). Building one is the only I/O the gate does; evaluating it is pure.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skald_core_api::{ToolCategory, ToolTraits};
use skald_tools::builtin_traits;
use skald_tools::fs::{ResolveError, canonicalize_for_policy, path_arg, resolve_for_policy};

use crate::paths::lexical;
use crate::run_context::RunContext;

/// The `path` argument of a call, resolved against the working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallPath {
    raw: String,
    lexical: PathBuf,
    canonical: PathBuf,
    resolved: bool,
}

impl CallPath {
    /// The argument as the model wrote it.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Absolute, with `.`/`..` folded as written (symlinks not followed).
    pub fn lexical(&self) -> &Path {
        &self.lexical
    }

    /// Absolute and canonical (`canonicalize_for_policy`): where the call
    /// really lands.
    pub fn canonical(&self) -> &Path {
        &self.canonical
    }

    /// Whether the resolver could follow the path to where it lands (a path
    /// into `secrets/` counts: it is resolved far enough to be denied). An
    /// unresolvable one — a file used as a directory, a symlink loop, a name
    /// too long — is one no tool will open; no allow rule or fast path
    /// vouches for it.
    pub fn is_resolved(&self) -> bool {
        self.resolved
    }
}

/// One tool call, ready to be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallContext {
    tool: String,
    traits: ToolTraits,
    agent_id: Option<String>,
    source: Option<String>,
    category: Option<ToolCategory>,
    lexical_workdir: PathBuf,
    canonical_workdir: PathBuf,
    path: Option<CallPath>,
}

impl CallContext {
    /// Builds the context of a call to `tool` with `args`, in `workdir`, the
    /// tool's traits being those of the built-in of that name (default for
    /// any other); see [`CallContext::with_traits`] for the rest.
    pub fn new(tool: impl Into<String>, args: &Value, workdir: &Path) -> Self {
        let tool = tool.into();
        let traits = builtin_traits(&tool);
        Self::with_traits(tool, traits, args, workdir)
    }

    /// Builds the context of a call to `tool`, which declares `traits`, with
    /// `args`, in `workdir`.
    ///
    /// The path is the call's `path` argument (trimmed; an empty or
    /// non-string value counts as no path), or `"."` for a tool whose path
    /// defaults to the working directory (`list_files`, `grep_files`). Any tool's
    /// `path` is extracted, so MCP tools with a `path` argument can be given
    /// path rules too. A relative `workdir` is made absolute against the
    /// process's current directory.
    ///
    /// The working directory given here is the one every relative path
    /// pattern and every RunContext fast path is resolved against; the gate
    /// builds it from the session's RunContext ([`CallContext::for_run`]).
    pub fn with_traits(
        tool: impl Into<String>,
        traits: ToolTraits,
        args: &Value,
        workdir: &Path,
    ) -> Self {
        let tool = tool.into();
        let workdir_abs = if workdir.is_absolute() {
            workdir.to_path_buf()
        } else {
            std::path::absolute(workdir).unwrap_or_else(|_| workdir.to_path_buf())
        };
        let lexical_workdir = lexical(&workdir_abs);
        let canonical_workdir = canonicalize_for_policy(&workdir_abs, &workdir_abs);
        let raw =
            path_arg(args).or_else(|| traits.path_defaults_to_workdir.then(|| ".".to_string()));
        let path = raw.map(|raw| {
            let p = Path::new(&raw);
            let lexical = lexical(&lexical_workdir.join(p));
            // The tools' own resolver, so the rules judge the file a tool
            // would open.
            let (canonical, resolved) = match resolve_for_policy(p, &workdir_abs) {
                Ok(c) => (c, true),
                Err(ResolveError::Secret(at)) => (at, true),
                Err(_) => (lexical.clone(), false),
            };
            CallPath {
                lexical,
                canonical,
                resolved,
                raw,
            }
        });
        Self {
            tool,
            traits,
            agent_id: None,
            source: None,
            category: None,
            lexical_workdir,
            canonical_workdir,
            path,
        }
    }

    /// [`CallContext::new`] in the RunContext's working directory (the
    /// process's current directory when the session has none).
    pub fn for_run(tool: impl Into<String>, args: &Value, ctx: &RunContext) -> Self {
        let tool = tool.into();
        let traits = builtin_traits(&tool);
        Self::for_run_with_traits(tool, traits, args, ctx)
    }

    /// [`CallContext::with_traits`] in the RunContext's working directory:
    /// what the gate builds, with the traits the round's tool declares.
    pub fn for_run_with_traits(
        tool: impl Into<String>,
        traits: ToolTraits,
        args: &Value,
        ctx: &RunContext,
    ) -> Self {
        let workdir = ctx
            .working_dir
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        Self::with_traits(tool, traits, args, &workdir)
    }

    /// The calling agent, for rules with an `agent_id`.
    pub fn with_agent(mut self, agent_id: impl Into<String>) -> Self {
        self.agent_id = Some(agent_id.into());
        self
    }

    /// The tool's source (e.g. `builtin`, `synthetic`, `mcp`), for rules
    /// with a `source`.
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The tool's category, for category bypasses.
    pub fn with_category(mut self, category: ToolCategory) -> Self {
        self.category = Some(category);
        self
    }

    /// The tool name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// What the tool declares it does to files.
    pub fn traits(&self) -> ToolTraits {
        self.traits
    }

    /// The calling agent, if known.
    pub fn agent_id(&self) -> Option<&str> {
        self.agent_id.as_deref()
    }

    /// The tool's source, if known.
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// The tool's category, if known.
    pub fn category(&self) -> Option<ToolCategory> {
        self.category
    }

    /// The call's path, if it has one.
    pub fn path(&self) -> Option<&CallPath> {
        self.path.as_ref()
    }

    /// The working directory, absolute, as given.
    pub fn lexical_workdir(&self) -> &Path {
        &self.lexical_workdir
    }

    /// The working directory, canonical.
    pub fn canonical_workdir(&self) -> &Path {
        &self.canonical_workdir
    }
}
