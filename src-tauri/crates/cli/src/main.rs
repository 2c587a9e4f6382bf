//! `skald`: the headless face of Skald. Same registry, same store, same
//! session driver as the desktop app; for scripting, tests and terminals.
//!
//! Exit codes: 0 success, 1 the tool (or turn) failed, the session is busy
//! with another turn (in this or another process) or the database cannot be
//! used (disk full, read-only, locked, a directory, not a database: one
//! line says which), 2 bad input (unknown tool or session, malformed JSON,
//! schema violation, no provider), 3 the round limit was reached, 4 the call
//! was rejected (a deny rule, or the person / `--approve no`), 75 a restart
//! was requested, 130 stopped.

mod agents;
mod approve;
mod catalog_md;
mod chat;
mod chat_model;
mod compact;
mod companion;
mod mcp;
mod models;
mod print;
mod redo;
mod tasks;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::Value;
use skald_core_api::{CancellationToken, ExecutionOutcome, ToolError, drive_execution};
use skald_tools::{BuiltinDeps, builtin_registry};

/// Exit code when the `restart` tool asked the host to restart (EX_TEMPFAIL).
pub const EXIT_RESTART: u8 = 75;

#[derive(Parser)]
#[command(
    name = "skald",
    version,
    about = "Skald, headless: chat, tools and the store from a terminal"
)]
struct Cli {
    /// Where Skald keeps its database (overrides SKALD_DATA_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every tool: registry, synthetic and MCP.
    Tools {
        /// Machine-readable catalogue (the `AllTools` IPC type).
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// The catalogue table of docs/tools.md.
        #[arg(long)]
        markdown: bool,
    },
    /// Configure MCP servers and list their tools.
    Mcp {
        #[command(subcommand)]
        command: mcp::McpCommand,
    },
    /// Work with a single tool.
    Tool {
        #[command(subcommand)]
        command: ToolCommand,
    },
    /// Open (creating or migrating) the database and print where it is.
    Status,
    /// Run one turn: send PROMPT, stream the answer to stdout and tool
    /// events to stderr. Ctrl-C stops the turn.
    Chat {
        /// What to say.
        prompt: String,
        /// Continue this session (default: start a new one).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// The model to ask (default: the default model in the DB).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// Where tools run (default: the current directory for a new session,
        /// the session's own for `--session`).
        #[arg(long, value_name = "DIR")]
        workdir: Option<PathBuf>,
        /// How calls the rules ask about are answered: on the terminal,
        /// approved, or rejected. A deny rule is always final.
        #[arg(long, value_enum, default_value = "ask")]
        approve: approve::ApproveMode,
    },
    /// List what waits for the person across sessions: tool calls to
    /// approve, then questions to answer (`--json`: `{"approvals": […], "questions": […]}`).
    Inbox {
        /// Machine-readable: the `PendingApprovalView` and
        /// `PendingQuestionView` IPC types under `approvals` and `questions`.
        #[arg(long)]
        json: bool,
    },
    /// Approve a waiting call (its id from `skald inbox`): it runs, and its
    /// turn continues when a provider is configured.
    Approve {
        /// The tool call id.
        id: String,
    },
    /// Reject a waiting call; the model reads "User rejected this tool
    /// call." plus " Reason: NOTE" when a note is given.
    Reject {
        /// The tool call id.
        id: String,
        /// Why, told to the model.
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
    },
    /// List the agents (bundled, built in, and yours from
    /// `$SKALD_AGENTS_DIR` or `<data dir>/agents`); broken ones are named on
    /// stderr with why, and the exit code is 1.
    Agents {
        /// Machine-readable: `{agents: [...], problems: [...]}`.
        #[arg(long)]
        json: bool,
    },
    /// Answer a question an agent waits on (its id from `skald inbox`);
    /// the turn goes on with TEXT as the answer.
    Answer {
        /// The question's id (its tool call id).
        id: String,
        /// The answer.
        text: String,
    },
    /// Show a session's scratchpad (default: the most recent session), or
    /// change one entry: `set KEY VALUE`, `rm KEY`.
    Scratchpad {
        /// The session (default: the most recent one).
        session: Option<String>,
        #[command(subcommand)]
        change: Option<ScratchpadCommand>,
    },
    /// Summarise every turn of SESSION but the last with its model; later
    /// requests send the summary in their place (the chat's "compact").
    Compact {
        /// The session id (from `skald sessions`).
        session: String,
        /// The model that summarises (default: the default model).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
    },
    /// Run the failed last turn of SESSION again (a cut answer dropped,
    /// finished tool calls not re-run), or send a message kept unsent.
    Retry {
        /// The session id (from `skald sessions`).
        session: String,
        /// Ask this model for this redo only (as `skald chat --model`); the
        /// chat keeps its own model (`skald sessions model` changes that).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// How calls the rules ask about are answered (as `skald chat`).
        #[arg(long, value_enum, default_value = "ask")]
        approve: approve::ApproveMode,
    },
    /// Drop the last answer of SESSION and ask the model again.
    Regenerate {
        /// The session id (from `skald sessions`).
        session: String,
        /// Ask this model for this redo only (as `skald chat --model`); the
        /// chat keeps its own model (`skald sessions model` changes that).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// How calls the rules ask about are answered (as `skald chat`).
        #[arg(long, value_enum, default_value = "ask")]
        approve: approve::ApproveMode,
    },
    /// Replace the last message of SESSION (and what followed it) with
    /// TEXT, and run the turn.
    Edit {
        /// The session id (from `skald sessions`).
        session: String,
        /// The new message.
        text: String,
        /// Ask this model for this redo only (as `skald chat --model`); the
        /// chat keeps its own model (`skald sessions model` changes that).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// How calls the rules ask about are answered (as `skald chat`).
        #[arg(long, value_enum, default_value = "ask")]
        approve: approve::ApproveMode,
    },
    /// List chat sessions, most recent first; `model SESSION` shows or
    /// sets a chat's own model.
    Sessions {
        /// Machine-readable (the `SessionSummary` IPC type).
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        command: Option<SessionsCommand>,
    },
    /// The models each configured endpoint offers; `use NAME` picks the one
    /// turns take when an endpoint comes from the environment only.
    Models {
        #[command(subcommand)]
        command: Option<ModelsCommand>,
    },
    /// Background tasks (`execute_task` async) and cron jobs: `list`
    /// (default), `show ID`, `stop ID`.
    Tasks {
        #[command(subcommand)]
        command: Option<tasks::TasksCommand>,
    },
    /// Cron jobs: `list` (default), `run ID`.
    Cron {
        #[command(subcommand)]
        command: Option<tasks::CronCommand>,
    },
    /// Finish what a crash interrupted: settle unfinished tool calls (re-run
    /// the re-runnable ones) and answer turns that were cut short.
    Resume {
        /// The model to answer with (default: the default model in the DB).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// How re-run calls the rules ask about are answered: on the
        /// terminal, approved, or rejected (never left waiting forever).
        #[arg(long, value_enum, default_value = "ask")]
        approve: approve::ApproveMode,
    },
}

#[derive(Subcommand)]
enum SessionsCommand {
    /// Show the chat's own model, the default and the models it may
    /// switch to (stdout: one `PROVIDER/MODEL` per line); with PICK, give
    /// the chat that model for its next turns, as the chat header's
    /// switcher does (`default`: follow the default model again).
    Model {
        /// The session id (from `skald sessions`).
        session: String,
        /// `PROVIDER/MODEL` as listed (`env:openai/gpt-4o`), or `default`.
        pick: Option<String>,
    },
}

#[derive(Subcommand)]
enum ModelsCommand {
    /// Use NAME for turns that name no model (environment endpoints).
    Use {
        /// The model, as `skald models` lists it.
        name: String,
        /// Which environment endpoint, when several are configured.
        #[arg(long, value_enum)]
        kind: Option<EnvKindArg>,
    },
    /// Whether images in tool results are sent to MODEL of PROVIDER
    /// (`openai`, `anthropic`, `ollama`, `openrouter` or a stored provider's
    /// name): `on`, `off` (a text-only model whose server refuses images: it
    /// gets a note instead) or `default` (sent when the provider takes
    /// images). Without a value, prints the setting.
    Images {
        provider: String,
        model: String,
        #[arg(value_enum)]
        value: Option<models::ImagesArg>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum EnvKindArg {
    Openai,
    Anthropic,
    Ollama,
}

impl From<EnvKindArg> for skald_store::ProviderKind {
    fn from(k: EnvKindArg) -> Self {
        match k {
            EnvKindArg::Openai => skald_store::ProviderKind::OpenAi,
            EnvKindArg::Anthropic => skald_store::ProviderKind::Anthropic,
            EnvKindArg::Ollama => skald_store::ProviderKind::Ollama,
        }
    }
}

#[derive(Subcommand)]
enum ScratchpadCommand {
    /// Write an entry (an empty VALUE deletes it).
    Set { key: String, value: String },
    /// Delete an entry.
    Rm { key: String },
}

#[derive(Subcommand)]
enum ToolCommand {
    /// Run one tool through the registry and print its result.
    Run {
        /// Tool name, as `skald tools` lists it.
        name: String,
        /// Arguments as a JSON object, e.g. '{"path": "README.md"}'.
        #[arg(default_value = "{}")]
        args: String,
        /// Working directory the call runs in (default: the current one).
        #[arg(long, value_name = "DIR")]
        workdir: Option<PathBuf>,
        /// How a call the rules ask about is answered: on the terminal,
        /// approved, or rejected. A deny rule is always final.
        #[arg(long, value_enum, default_value = "ask")]
        approve: approve::ApproveMode,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SKALD_LOG")
                // Warnings, plus the audit line every shell command logs
                // before it runs (`execute_cmd: running shell command`).
                .unwrap_or_else(|_| {
                    tracing_subscriber::EnvFilter::new("warn,skald_tools::exec=info")
                }),
        )
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal, never into logs and pipes.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("skald: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(run(cli))
}

/// The store, only if its database already exists (listing tools must not
/// create one).
async fn existing_store(data_dir: Option<PathBuf>) -> Option<skald_store::Store> {
    let dir = data_dir
        .map_or_else(skald_store::default_data_dir, Ok)
        .ok()?;
    if !dir.join(skald_store::DB_FILE_NAME).is_file() {
        return None;
    }
    skald_store::Store::open(&dir).await.ok()
}

async fn run(cli: Cli) -> ExitCode {
    let deps = BuiltinDeps::default();
    let registry = std::sync::Arc::new(builtin_registry(&deps));
    match cli.command {
        Command::Tools { json, markdown } => {
            let catalog = match catalog_md::catalogue(registry).await {
                Ok(c) => c,
                Err(e) => return fail(1, &format!("cannot list the tools: {e}")),
            };
            // The Markdown table is the static catalogue (docs/tools.md); the
            // other views add tools discovered in an existing database.
            let all = match (markdown, existing_store(cli.data_dir.clone()).await) {
                (false, Some(store)) => {
                    let all = skald_session::catalog_with_known(&catalog, &store).await;
                    store.close().await;
                    all
                }
                _ => catalog.list_all(),
            };
            let out = if json {
                match serde_json::to_string_pretty(&all) {
                    Ok(s) => s,
                    Err(e) => return fail(1, &format!("cannot serialise the catalogue: {e}")),
                }
            } else if markdown {
                catalog_md::markdown_table(&all)
            } else {
                catalog_md::plain_listing(&all)
            };
            print_out(&out);
            ExitCode::SUCCESS
        }
        Command::Tool {
            command:
                ToolCommand::Run {
                    name,
                    args,
                    workdir,
                    approve,
                },
        } => {
            let code = run_tool(&registry, &name, &args, workdir, cli.data_dir, approve).await;
            if code == ExitCode::SUCCESS && deps.restart.is_requested() {
                eprintln!(
                    "skald: restart requested; exiting with {EXIT_RESTART} so a supervisor can restart"
                );
                return ExitCode::from(EXIT_RESTART);
            }
            code
        }
        Command::Status => status(cli.data_dir).await,
        Command::Mcp { command } => match data_dir(cli.data_dir) {
            Ok(dir) => mcp::command(&dir, command).await,
            Err(code) => code,
        },
        Command::Chat {
            prompt,
            session,
            model,
            workdir,
            approve,
        } => match data_dir(cli.data_dir) {
            Ok(dir) => {
                let args = chat::ChatArgs {
                    prompt,
                    session,
                    model,
                    workdir,
                    approve,
                };
                chat::chat(&dir, args).await
            }
            Err(code) => code,
        },
        Command::Agents { json } => match data_dir(cli.data_dir) {
            Ok(dir) => agents::agents(&dir, json),
            Err(code) => code,
        },
        Command::Answer { id, text } => match data_dir(cli.data_dir) {
            Ok(dir) => companion::answer(&dir, &id, &text).await,
            Err(code) => code,
        },
        Command::Scratchpad { session, change } => match data_dir(cli.data_dir) {
            Ok(dir) => {
                let action = match change {
                    None => companion::ScratchpadAction::Show,
                    Some(ScratchpadCommand::Set { key, value }) => {
                        companion::ScratchpadAction::Set { key, value }
                    }
                    Some(ScratchpadCommand::Rm { key }) => {
                        companion::ScratchpadAction::Remove { key }
                    }
                };
                companion::scratchpad(&dir, session, action).await
            }
            Err(code) => code,
        },
        Command::Compact { session, model } => match data_dir(cli.data_dir) {
            Ok(dir) => compact::compact(&dir, &session, model.as_deref()).await,
            Err(code) => code,
        },
        Command::Retry {
            session,
            model,
            approve,
        } => match data_dir(cli.data_dir) {
            Ok(dir) => redo::redo(&dir, &session, chat::Action::Retry, model, approve).await,
            Err(code) => code,
        },
        Command::Regenerate {
            session,
            model,
            approve,
        } => match data_dir(cli.data_dir) {
            Ok(dir) => redo::redo(&dir, &session, chat::Action::Regenerate, model, approve).await,
            Err(code) => code,
        },
        Command::Edit {
            session,
            text,
            model,
            approve,
        } => match data_dir(cli.data_dir) {
            Ok(dir) => redo::redo(&dir, &session, chat::Action::Edit(text), model, approve).await,
            Err(code) => code,
        },
        Command::Sessions { json, command } => match data_dir(cli.data_dir) {
            Ok(dir) => match command {
                None => chat::sessions(&dir, json).await,
                Some(SessionsCommand::Model { session, pick }) => {
                    chat_model::model(&dir, &session, pick.as_deref()).await
                }
            },
            Err(code) => code,
        },
        Command::Tasks { command } => match data_dir(cli.data_dir) {
            Ok(dir) => tasks::tasks(&dir, command).await,
            Err(code) => code,
        },
        Command::Cron { command } => match data_dir(cli.data_dir) {
            Ok(dir) => tasks::cron(&dir, command).await,
            Err(code) => code,
        },
        Command::Resume { model, approve } => match data_dir(cli.data_dir) {
            Ok(dir) => chat::resume(&dir, model, approve).await,
            Err(code) => code,
        },
        Command::Models { command } => match data_dir(cli.data_dir) {
            Ok(dir) => match command {
                None => models::list(&dir).await,
                Some(ModelsCommand::Use { name, kind }) => {
                    models::choose(&dir, &name, kind.map(Into::into)).await
                }
                Some(ModelsCommand::Images {
                    provider,
                    model,
                    value,
                }) => models::images(&dir, &provider, &model, value).await,
            },
            Err(code) => code,
        },
        Command::Inbox { json } => match data_dir(cli.data_dir) {
            Ok(dir) => approve::inbox(&dir, json).await,
            Err(code) => code,
        },
        Command::Approve { id } => match data_dir(cli.data_dir) {
            Ok(dir) => approve::resolve(&dir, &id, true, None).await,
            Err(code) => code,
        },
        Command::Reject { id, note } => match data_dir(cli.data_dir) {
            Ok(dir) => approve::resolve(&dir, &id, false, note).await,
            Err(code) => code,
        },
    }
}

/// `--data-dir`, else `SKALD_DATA_DIR`, else the platform data directory.
fn data_dir(flag: Option<PathBuf>) -> Result<PathBuf, ExitCode> {
    flag.map_or_else(skald_store::default_data_dir, Ok)
        .map_err(|e| fail(1, &e.to_string()))
}

async fn run_tool(
    registry: &skald_tools::ToolRegistry,
    name: &str,
    args: &str,
    workdir: Option<PathBuf>,
    data_dir_flag: Option<PathBuf>,
    approve: approve::ApproveMode,
) -> ExitCode {
    let is_mcp = skald_core_api::ToolName::parse(name).mcp_server().is_some();
    if !registry.contains(name) && !is_mcp {
        return fail(
            2,
            &format!("unknown tool `{name}` (`skald tools` lists the tools)"),
        );
    }
    let args: Value = match serde_json::from_str(args) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            return fail(
                2,
                "arguments must be a JSON object, e.g. '{\"path\": \"a.txt\"}'",
            );
        }
        Err(e) => return fail(2, &format!("malformed JSON arguments: {e}")),
    };
    let workdir = match workdir.map_or_else(std::env::current_dir, Ok) {
        Ok(dir) => dir,
        Err(e) => return fail(2, &format!("cannot determine the working directory: {e}")),
    };
    let workdir = if workdir.is_absolute() {
        workdir
    } else {
        match std::env::current_dir() {
            Ok(cwd) => cwd.join(workdir),
            Err(e) => return fail(2, &format!("cannot determine the working directory: {e}")),
        }
    };
    if !workdir.is_dir() {
        return fail(
            2,
            &format!("working directory {} is not a directory", workdir.display()),
        );
    }
    if is_mcp {
        let dir = match data_dir(data_dir_flag) {
            Ok(d) => d,
            Err(code) => return code,
        };
        return mcp::run_tool(&dir, registry, name, args, &workdir, approve).await;
    }
    let args = registry.effective_args(name, args, &workdir);
    // Checked before the gate: nobody approves a call that cannot run.
    if let Err(e) = registry.check_args(name, &args) {
        return fail(2, &e.to_string());
    }
    let dir = match data_dir(data_dir_flag) {
        Ok(d) => d,
        Err(code) => return code,
    };
    if let Err(code) = approve::gate_tool_run(&dir, registry, name, &args, &workdir, approve).await
    {
        return code;
    }
    let Some(exec) = registry.run(name, args) else {
        return fail(2, &format!("unknown tool `{name}`"));
    };
    // Ctrl-C or SIGTERM stops the tool the same way the app's Stop button does.
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    let mut stop = stop_signals();
    tokio::spawn(async move {
        if stop.recv().await.is_some() {
            on_signal.cancel();
        }
    });
    match drive_execution(exec.as_ref(), cancel).await {
        ExecutionOutcome::Completed(out) => {
            print_out(&out.text_for_model(false));
            ExitCode::SUCCESS
        }
        ExecutionOutcome::Failed(e @ ToolError::InvalidArguments { .. }) => fail(2, &e.to_string()),
        ExecutionOutcome::Failed(e) => fail(1, &e.to_string()),
        ExecutionOutcome::Cancelled => fail(1, "cancelled"),
    }
}

async fn status(data_dir: Option<PathBuf>) -> ExitCode {
    let dir = match self::data_dir(data_dir) {
        Ok(d) => d,
        Err(code) => return code,
    };
    match skald_store::Store::open(&dir).await {
        Ok(store) => {
            let version = store.schema_version().await.unwrap_or(0);
            print_out(&format!(
                "data dir: {}\ndatabase: {}\nschema version: {version}",
                dir.display(),
                dir.join(skald_store::DB_FILE_NAME).display()
            ));
            store.close().await;
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, &e.to_string()),
    }
}

pub(crate) fn print_out(s: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(s.as_bytes());
    if !s.ends_with('\n') {
        let _ = stdout.write_all(b"\n");
    }
}

/// Yields once per Ctrl-C (SIGINT) or SIGTERM: both stop the running work
/// the way the app's Stop button does. Listening starts immediately.
pub(crate) fn stop_signals() -> tokio::sync::mpsc::UnboundedReceiver<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let mut int = signal(SignalKind::interrupt()).ok();
    let mut term = signal(SignalKind::terminate()).ok();
    tokio::spawn(async move {
        loop {
            let got = tokio::select! {
                Some(()) = recv(&mut int) => true,
                Some(()) = recv(&mut term) => true,
                else => false,
            };
            if !got || tx.send(()).is_err() {
                break;
            }
        }
    });
    rx
}

async fn recv(sig: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
    match sig {
        Some(s) => s.recv().await,
        None => None,
    }
}

/// One line on stderr, then the exit code.
pub(crate) fn fail(code: u8, reason: &str) -> ExitCode {
    let line = reason.lines().next().unwrap_or(reason);
    eprintln!("skald: {line}");
    ExitCode::from(code)
}
