//! `skald mcp …`: configure MCP servers (stored in the database the app
//! shares), list them and their tools, import `mcpServers` JSON; and
//! `skald tool run mcp__NAME__TOOL`, which connects on demand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Subcommand;
use serde_json::{Value, json};
use skald_core_api::{CancellationToken, ExecutionOutcome, ToolError, ToolName, drive_execution};
use skald_mcp::{McpManager, McpSource, ServerConfig, Transport, parse_import};
use skald_store::Store;
use skald_tools::ToolSource;

use crate::{approve, fail, print_out, stop_signals};

#[derive(Subcommand)]
pub enum McpCommand {
    /// Add (or replace) a server: `skald mcp add NAME -- COMMAND ARGS...`
    /// for stdio, `skald mcp add NAME URL` for streamable HTTP.
    Add {
        /// Letters, digits, `-`, `_` (tools become `mcp__NAME__TOOL`).
        name: String,
        /// An environment variable for a stdio server; `${SECRET}` in the
        /// value is filled from Skald's secrets.
        #[arg(long = "env", value_name = "K=V")]
        env: Vec<String>,
        /// An HTTP header; `${SECRET}` in the value is filled from secrets.
        #[arg(long = "header", value_name = "K:V")]
        header: Vec<String>,
        /// Working directory of a stdio server.
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Per-call timeout in seconds (default 60).
        #[arg(long, value_name = "SECS")]
        timeout: Option<u64>,
        /// What the server is for, as the model reads it.
        #[arg(long, value_name = "TEXT")]
        description: Option<String>,
        /// Added disabled.
        #[arg(long)]
        disabled: bool,
        /// An HTTP server's OAuth client registered beforehand (with
        /// `http://127.0.0.1` as redirect), used instead of dynamic
        /// registration at `skald mcp login`.
        #[arg(long, value_name = "ID")]
        client_id: Option<String>,
        /// The environment variable holding that client's secret; it goes
        /// to the secrets store (a secret on the command line would be in
        /// the shell's history and the process list).
        #[arg(long, value_name = "VAR", requires = "client_id")]
        client_secret_env: Option<String>,
        /// The URL, or the command and its arguments (after `--`).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        target: Vec<String>,
    },
    /// List the configured servers.
    List {
        /// Connect to each enabled server and show its status.
        #[arg(long)]
        status: bool,
        /// Machine-readable.
        #[arg(long)]
        json: bool,
    },
    /// Connect to a server and list its tools.
    Tools {
        name: String,
        /// Machine-readable.
        #[arg(long)]
        json: bool,
    },
    /// Remove a server.
    Remove { name: String },
    /// Turn a server on.
    Enable { name: String },
    /// Turn a server off (kept configured).
    Disable { name: String },
    /// Sign in to an HTTP server with OAuth: opens the browser (`$BROWSER`,
    /// else the desktop's opener) at its authorization page and waits for
    /// the redirect; the URL is printed too. Tokens go to the secrets store.
    Login { name: String },
    /// Forget a server's OAuth tokens.
    Logout { name: String },
    /// Import Claude Desktop / Claude Code / Cursor `mcpServers` JSON (or
    /// VS Code's `servers`); fields Skald does not use are reported.
    Import { file: PathBuf },
    /// Offer a server's tools from a chat's first message, without
    /// `activate_tools` (they take context in every request): in every chat,
    /// or with `--session` in one. Without on|off, shows the list.
    AlwaysOn {
        name: Option<String>,
        state: Option<OnOff>,
        /// One session instead of every one.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Let MCP servers ask the session's model for completions (sampling;
    /// they spend your tokens). Off by default: such requests are declined.
    /// Without on|off, shows the setting.
    Sampling { state: Option<OnOff> },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

async fn open(dir: &Path) -> Result<Store, ExitCode> {
    Store::open(dir).await.map_err(|e| fail(1, &e.to_string()))
}

fn log_dir(dir: &Path) -> PathBuf {
    dir.join("mcp-logs")
}

fn pairs(items: &[String], sep: char, what: &str) -> Result<BTreeMap<String, String>, ExitCode> {
    items
        .iter()
        .map(|s| {
            s.split_once(sep)
                .map(|(k, v)| (k.trim().to_string(), v.trim_start().to_string()))
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| fail(2, &format!("{what} `{s}` is not K{sep}V")))
        })
        .collect()
}

pub async fn command(dir: &Path, cmd: McpCommand) -> ExitCode {
    let store = match open(dir).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let code = match cmd {
        McpCommand::Add {
            name,
            env,
            header,
            cwd,
            timeout,
            description,
            disabled,
            client_id,
            client_secret_env,
            target,
        } => {
            add(
                &store,
                name,
                env,
                header,
                cwd,
                timeout,
                description,
                disabled,
                (client_id, client_secret_env),
                target,
            )
            .await
        }
        McpCommand::List { status, json } => list(&store, dir, status, json).await,
        McpCommand::Tools { name, json } => tools(&store, dir, &name, json).await,
        McpCommand::Remove { name } => match store.mcp_servers().delete(&name).await {
            Ok(true) => {
                print_out(&format!("removed {name}"));
                ExitCode::SUCCESS
            }
            Ok(false) => fail(2, &format!("no MCP server named `{name}`")),
            Err(e) => fail(1, &e.to_string()),
        },
        McpCommand::Enable { name } => toggle(&store, &name, true).await,
        McpCommand::Disable { name } => toggle(&store, &name, false).await,
        McpCommand::Import { file } => import(&store, &file).await,
        McpCommand::AlwaysOn {
            name,
            state,
            session,
        } => always_on(&store, name, state, session.as_deref()).await,
        McpCommand::Sampling { state } => sampling(&store, state).await,
        McpCommand::Login { name } => login(&store, &name).await,
        McpCommand::Logout { name } => match skald_mcp::oauth::sign_out(&store, &name).await {
            Ok(true) => {
                print_out(&format!("signed out of {name}"));
                ExitCode::SUCCESS
            }
            Ok(false) => fail(2, &format!("no sign-in stored for `{name}`")),
            Err(e) => fail(1, &e.to_string()),
        },
    };
    store.close().await;
    code
}

#[allow(clippy::too_many_arguments)]
async fn add(
    store: &Store,
    name: String,
    env: Vec<String>,
    header: Vec<String>,
    cwd: Option<PathBuf>,
    timeout: Option<u64>,
    description: Option<String>,
    disabled: bool,
    (client_id, client_secret_env): (Option<String>, Option<String>),
    target: Vec<String>,
) -> ExitCode {
    let is_url = target.len() == 1
        && (target[0].starts_with("http://") || target[0].starts_with("https://"));
    let client_secret = match &client_secret_env {
        Some(var) => match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Some(v.trim().to_string()),
            _ => return fail(2, &format!("--client-secret-env: `{var}` is not set")),
        },
        None => None,
    };
    let transport = if is_url {
        if !env.is_empty() || cwd.is_some() {
            return fail(2, "--env and --cwd are for stdio servers, not a URL");
        }
        match pairs(&header, ':', "header") {
            Ok(headers) => Transport::Http {
                url: target[0].clone(),
                headers,
                client_id: client_id
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty()),
            },
            Err(code) => return code,
        }
    } else {
        if !header.is_empty() {
            return fail(2, "--header is for HTTP servers, not a command");
        }
        if client_id.is_some() {
            return fail(2, "--client-id is for HTTP servers (OAuth), not a command");
        }
        let env = match pairs(&env, '=', "env") {
            Ok(e) => e,
            Err(code) => return code,
        };
        let mut parts = target.into_iter();
        let Some(command) = parts.next() else {
            return fail(
                2,
                "no command given (`skald mcp add NAME -- COMMAND ARGS...`)",
            );
        };
        Transport::Stdio {
            command,
            args: parts.collect(),
            env,
            cwd: cwd.map(|p| p.display().to_string()),
        }
    };
    let mut config = ServerConfig::new(&name, transport);
    config.enabled = !disabled;
    if let Some(secs) = timeout {
        config = config.with_timeout(Duration::from_secs(secs));
    }
    if let Some(d) = description {
        config = config.with_description(d);
    }
    let row = match config.to_row() {
        Ok(r) => r,
        Err(e) => return fail(2, &e.to_string()),
    };
    // Replacing a server without a new secret keeps no stale one.
    if let Err(e) =
        skald_mcp::oauth::set_client_secret(store, &name, client_secret.as_deref()).await
    {
        return fail(1, &e.to_string());
    }
    match store.mcp_servers().upsert(&row).await {
        Ok(new) => {
            print_out(&format!(
                "{} {name}: {} {}",
                if new { "added" } else { "replaced" },
                config.transport.kind(),
                config.transport.summary()
            ));
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, &e.to_string()),
    }
}

async fn configs(store: &Store) -> Result<Vec<ServerConfig>, ExitCode> {
    let rows = store
        .mcp_servers()
        .list()
        .await
        .map_err(|e| fail(1, &e.to_string()))?;
    rows.iter()
        .map(|r| ServerConfig::from_row(r).map_err(|e| fail(1, &e.to_string())))
        .collect()
}

async fn list(store: &Store, dir: &Path, status: bool, json: bool) -> ExitCode {
    let configs = match configs(store).await {
        Ok(c) => c,
        Err(code) => return code,
    };
    let manager = McpManager::new(Some(log_dir(dir)), Some(store.clone()));
    if status {
        for c in &configs {
            manager.put(c.clone());
        }
        let waits = configs.iter().map(|c| manager.wait_ready(&c.name));
        futures_join_all(waits).await;
    }
    let mut out = Vec::new();
    let mut lines = Vec::new();
    for c in &configs {
        let st = manager.status(&c.name);
        out.push(json!({
            "name": c.name,
            "transport": c.transport.kind(),
            "target": c.transport.summary(),
            "enabled": c.enabled,
            "timeout_ms": c.timeout.as_millis() as u64,
            "description": c.description,
            "status": st,
        }));
        let state = match &st {
            Some(skald_mcp::ServerStatus::Ready { tools }) => format!("ready, {tools} tools"),
            Some(skald_mcp::ServerStatus::Failed { reason, .. }) => format!("failed: {reason}"),
            Some(s) => s.label().to_string(),
            None if c.enabled => "enabled".to_string(),
            None => "disabled".to_string(),
        };
        lines.push(format!(
            "{}\t{}\t{}\t{}",
            c.name,
            c.transport.kind(),
            state,
            c.transport.summary()
        ));
    }
    manager.shutdown();
    if json {
        print_out(&Value::Array(out).to_string());
    } else if lines.is_empty() {
        print_out("no MCP servers (`skald mcp add NAME -- COMMAND ARGS...`)");
    } else {
        print_out(&lines.join("\n"));
    }
    ExitCode::SUCCESS
}

async fn always_on(
    store: &Store,
    name: Option<String>,
    state: Option<OnOff>,
    session: Option<&str>,
) -> ExitCode {
    if let Some(id) = session {
        match store.sessions().get(id).await {
            Ok(Some(_)) => {}
            Ok(None) => return fail(2, &format!("no session `{id}`")),
            Err(e) => return fail(1, &e.to_string()),
        }
    }
    let mut names = match own_always_on(store, session).await {
        Ok(n) => n,
        Err(e) => return fail(1, &e.to_string()),
    };
    let (Some(name), Some(state)) = (name.clone(), state) else {
        if name.is_some() {
            return fail(2, "say on or off: `skald mcp always-on NAME on|off`");
        }
        let all = match skald_session::mcp_always_on(store, session).await {
            Ok(a) => a,
            Err(e) => return fail(1, &e.to_string()),
        };
        if all.is_empty() {
            print_out("no MCP server is always on (`skald mcp always-on NAME on`)");
        } else {
            print_out(&all.into_iter().collect::<Vec<_>>().join("\n"));
        }
        return ExitCode::SUCCESS;
    };
    match store.mcp_servers().get(&name).await {
        Ok(Some(_)) => {}
        Ok(None) => return fail(2, &format!("no MCP server named `{name}`")),
        Err(e) => return fail(1, &e.to_string()),
    }
    names.retain(|n| *n != name);
    if state == OnOff::On {
        names.push(name.clone());
    }
    if let Err(e) = skald_session::set_mcp_always_on(store, session, &names).await {
        return fail(1, &e.to_string());
    }
    let scope = session.map_or("every chat".to_string(), |id| format!("session {id}"));
    print_out(&match state {
        OnOff::On => format!("{name} is always on in {scope}: its tools need no activate_tools"),
        OnOff::Off => format!("{name} is no longer always on in {scope}"),
    });
    ExitCode::SUCCESS
}

/// A session's own always-on list (or the global one), without the global
/// one mixed in: that is what on|off edits.
async fn own_always_on(
    store: &Store,
    session: Option<&str>,
) -> Result<Vec<String>, skald_store::StoreError> {
    let key = match session {
        Some(id) => format!("{}:{id}", skald_session::ALWAYS_ON_SETTING),
        None => skald_session::ALWAYS_ON_SETTING.to_string(),
    };
    Ok(store
        .settings()
        .get(&key)
        .await?
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect())
}

async fn sampling(store: &Store, state: Option<OnOff>) -> ExitCode {
    if let Some(state) = state
        && let Err(e) = skald_session::set_mcp_allow_sampling(store, state == OnOff::On).await
    {
        return fail(1, &e.to_string());
    }
    match skald_session::mcp_allow_sampling(store).await {
        Ok(true) => print_out(
            "sampling: on — MCP servers may ask the session's model for completions (it spends your tokens)",
        ),
        Ok(false) => print_out("sampling: off — MCP servers' sampling requests are declined"),
        Err(e) => return fail(1, &e.to_string()),
    }
    ExitCode::SUCCESS
}

/// Waits for all; small enough not to need a dependency.
async fn futures_join_all<F: std::future::Future>(futs: impl Iterator<Item = F>) {
    let handles: Vec<_> = futs.map(Box::pin).collect();
    for h in handles {
        h.await;
    }
}

/// Starts one configured server and waits until it is ready.
async fn connect_one(store: &Store, dir: &Path, name: &str) -> Result<McpManager, ExitCode> {
    let row = match store.mcp_servers().get(name).await {
        Ok(Some(r)) => r,
        Ok(None) => {
            return Err(fail(
                2,
                &format!("no MCP server named `{name}` (`skald mcp list`)"),
            ));
        }
        Err(e) => return Err(fail(1, &e.to_string())),
    };
    let mut config = ServerConfig::from_row(&row).map_err(|e| fail(1, &e.to_string()))?;
    // Asking for it by name is using it, even when it is switched off.
    config.enabled = true;
    let manager = McpManager::new(Some(log_dir(dir)), Some(store.clone()));
    manager.put(config);
    if let Err(e) = manager.wait_ready(name).await {
        manager.shutdown();
        return Err(fail_multiline(1, &e.to_string()));
    }
    Ok(manager)
}

/// Like `fail`, but keeps every line (a server's stderr tail).
fn fail_multiline(code: u8, reason: &str) -> ExitCode {
    eprintln!("skald: {reason}");
    ExitCode::from(code)
}

async fn tools(store: &Store, dir: &Path, name: &str, json: bool) -> ExitCode {
    let manager = match connect_one(store, dir, name).await {
        Ok(m) => m,
        Err(code) => return code,
    };
    let tools = manager.tools(name);
    manager.shutdown();
    if json {
        let v: Vec<Value> = tools
            .iter()
            .map(|(t, d, s)| json!({"name": ToolName::mcp(name, t).to_string(), "description": d, "parameters": s}))
            .collect();
        print_out(&Value::Array(v).to_string());
    } else {
        let lines: Vec<String> = tools
            .iter()
            .map(|(t, d, _)| {
                let first = d.lines().next().unwrap_or_default();
                format!("{}\t{first}", ToolName::mcp(name, t))
            })
            .collect();
        print_out(&lines.join("\n"));
    }
    ExitCode::SUCCESS
}

async fn toggle(store: &Store, name: &str, on: bool) -> ExitCode {
    match store.mcp_servers().set_enabled(name, on).await {
        Ok(true) => {
            print_out(&format!(
                "{name} {}",
                if on { "enabled" } else { "disabled" }
            ));
            ExitCode::SUCCESS
        }
        Ok(false) => fail(2, &format!("no MCP server named `{name}`")),
        Err(e) => fail(1, &e.to_string()),
    }
}

async fn import(store: &Store, file: &Path) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(2, &format!("cannot read {}: {e}", file.display())),
    };
    let report = match parse_import(&text) {
        Ok(r) => r,
        Err(e) => return fail(2, &e.to_string()),
    };
    for w in &report.warnings {
        eprintln!("skald: {w}");
    }
    for c in &report.servers {
        let row = match c.to_row() {
            Ok(r) => r,
            Err(e) => return fail(2, &e.to_string()),
        };
        if let Err(e) = store.mcp_servers().upsert(&row).await {
            return fail(1, &e.to_string());
        }
        print_out(&format!(
            "imported {}: {} {}",
            c.name,
            c.transport.kind(),
            c.transport.summary()
        ));
    }
    if report.servers.is_empty() {
        return fail(2, "no server could be imported");
    }
    ExitCode::SUCCESS
}

async fn login(store: &Store, name: &str) -> ExitCode {
    let row = match store.mcp_servers().get(name).await {
        Ok(Some(r)) => r,
        Ok(None) => {
            return fail(
                2,
                &format!("no MCP server named `{name}` (`skald mcp list`)"),
            );
        }
        Err(e) => return fail(1, &e.to_string()),
    };
    let (url, client_id) = match ServerConfig::from_row(&row) {
        Ok(ServerConfig {
            transport: Transport::Http { url, client_id, .. },
            ..
        }) => (url, client_id),
        Ok(_) => {
            return fail(
                2,
                &format!("{name} is a stdio server: login is for HTTP servers"),
            );
        }
        Err(e) => return fail(1, &e.to_string()),
    };
    let open = |auth: &str| {
        eprintln!("skald: sign in to {name} in your browser:\n  {auth}");
        open_browser(auth);
    };
    match skald_mcp::oauth::sign_in(
        store,
        name,
        &url,
        client_id.as_deref(),
        open,
        skald_mcp::oauth::SIGN_IN_TIMEOUT,
    )
    .await
    {
        Ok(()) => {
            print_out(&format!("signed in to {name}"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, &e.to_string()),
    }
}

/// `$BROWSER URL`, else the desktop's opener; failing is fine (the URL
/// was printed).
fn open_browser(url: &str) {
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    let spawned = std::process::Command::new(&opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("skald: cannot start {opener} ({e}); open the URL yourself");
    }
}

/// `skald tool run mcp__NAME__TOOL ARGS`: connect, gate, call; exit codes
/// as for built-in tools (2 unknown tool or bad arguments, 1 the call
/// failed, 4 rejected, 130 never: a stop is reported as cancelled, 1).
pub async fn run_tool(
    dir: &Path,
    registry: &skald_tools::ToolRegistry,
    name: &str,
    args: Value,
    workdir: &Path,
    approve_mode: approve::ApproveMode,
) -> ExitCode {
    let Some(server) = ToolName::parse(name).mcp_server().map(str::to_string) else {
        return fail(2, &format!("unknown tool `{name}`"));
    };
    let store = match open(dir).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let manager = match connect_one(&store, dir, &server).await {
        Ok(m) => m,
        Err(code) => {
            store.close().await;
            return code;
        }
    };
    store.close().await;
    let source = McpSource::new(manager.clone());
    let tools = source.tools();
    let Some(tool) = tools.iter().find(|t| t.name() == name) else {
        manager.shutdown();
        return fail(
            2,
            &format!("unknown tool `{name}` (`skald mcp tools {server}` lists them)"),
        );
    };
    if let Err(code) =
        approve::gate_tool_run(dir, registry, name, &args, workdir, approve_mode).await
    {
        manager.shutdown();
        return code;
    }
    let exec = tool.run(args);
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    let mut stop = stop_signals();
    tokio::spawn(async move {
        if stop.recv().await.is_some() {
            on_signal.cancel();
        }
    });
    let outcome = drive_execution(exec.as_ref(), cancel).await;
    drop(exec);
    manager.shutdown();
    match outcome {
        ExecutionOutcome::Completed(out) => {
            print_out(&out.text_for_model(false));
            ExitCode::SUCCESS
        }
        ExecutionOutcome::Failed(e @ ToolError::InvalidArguments { .. }) => fail(2, &e.to_string()),
        ExecutionOutcome::Failed(e) => fail(1, &e.to_string()),
        ExecutionOutcome::Cancelled => fail(1, "cancelled"),
    }
}
