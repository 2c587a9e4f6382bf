//! The approval gate on a terminal: `--approve ask|yes|no` answers a
//! `require` (ask on stderr and read y/n from stdin; approve; reject). A
//! `deny` is always final. Without a terminal on stdin, `ask` rejects with
//! a message saying so. `skald inbox`, `skald approve` and `skald reject`
//! work on the calls left waiting.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::ValueEnum;
use skald_approval::{Action, CallContext, Decision, RunContext, decide, load_snapshot};
use skald_protocol::{ApprovalKind, ApprovalRequest, SessionEvent};
use skald_session::{ApprovalGate, ApprovalManager, EventSink, Verdict};
use skald_store::Store;
use skald_tools::ToolRegistry;

use crate::chat::Host;
use crate::print::PrintSink;
use crate::{fail, print_out};

/// Exit code of a call the gate or the person rejected.
pub const EXIT_REJECTED: u8 = 4;

/// How a `require` is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ApproveMode {
    /// Ask on the terminal (stderr), read y/n from stdin.
    Ask,
    /// Approve automatically.
    Yes,
    /// Reject automatically.
    No,
}

/// Lines of a preview shown on the terminal.
const PREVIEW_LINES: usize = 40;

/// A short rendering of what is asked, for stderr.
fn describe(req: &ApprovalRequest) -> String {
    let mut out = format!("approval needed: {} ({})", req.label_full, req.reason);
    match &req.kind {
        ApprovalKind::Command {
            command,
            working_dir,
        } => {
            out.push_str(&format!("\n  command: {command}"));
            if let Some(dir) = working_dir {
                out.push_str(&format!("\n  in: {dir}"));
            }
        }
        ApprovalKind::Write {
            path,
            old_content,
            new_content,
        } => {
            out.push_str(&format!("\n  file: {path}"));
            out.push_str(&line_diff(old_content.as_deref(), new_content.as_deref()));
        }
        ApprovalKind::Generic => {
            out.push_str(&format!("\n  arguments: {}", req.arguments));
        }
    }
    out
}

/// A crude line diff: the lines only in the old content (`-`), then the
/// lines only in the new (`+`), capped.
fn line_diff(old: Option<&str>, new: Option<&str>) -> String {
    let old_lines: Vec<&str> = old.map(|s| s.lines().collect()).unwrap_or_default();
    let Some(new) = new else {
        return "\n  (the new content cannot be predicted)".to_string();
    };
    let new_lines: Vec<&str> = new.lines().collect();
    let mut out = String::new();
    let removed = old_lines.iter().filter(|l| !new_lines.contains(l));
    let added = new_lines.iter().filter(|l| !old_lines.contains(l));
    for (n, line) in removed
        .map(|l| format!("\n  - {l}"))
        .chain(added.map(|l| format!("\n  + {l}")))
        .enumerate()
    {
        if n == PREVIEW_LINES {
            out.push_str("\n  …");
            break;
        }
        out.push_str(&line);
    }
    out
}

/// Asks on stderr, reads y/n from stdin. `None` when stdin is no terminal.
fn ask_terminal(prompt: &str) -> Option<bool> {
    if !std::io::stdin().is_terminal() {
        return None;
    }
    // The calls of one message are asked about together, each on its own
    // thread: one question on the terminal at a time.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _asking = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    eprint!("{prompt}\napprove? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return Some(false);
    }
    Some(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

const NO_TTY: &str = "approval needed but stdin is not a terminal: rejecting (pass --approve yes to allow it, or run from a terminal to be asked)";

/// The verdict of `mode` for `req` (may block on the terminal).
fn answer_of(mode: ApproveMode, req: &ApprovalRequest) -> Verdict {
    match mode {
        ApproveMode::Yes => {
            eprintln!("skald: approving {} (--approve yes)", req.label_short);
            Verdict::Allow
        }
        ApproveMode::No => {
            eprintln!("skald: rejecting {} (--approve no)", req.label_short);
            Verdict::UserReject { note: None }
        }
        ApproveMode::Ask => match ask_terminal(&describe(req)) {
            Some(true) => Verdict::Allow,
            Some(false) => Verdict::UserReject { note: None },
            None => {
                eprintln!("skald: {NO_TTY}");
                Verdict::UserReject { note: None }
            }
        },
    }
}

/// A [`PrintSink`] that also answers approvals as `mode` says.
pub struct ApprovingSink {
    pub print: PrintSink,
    mode: ApproveMode,
    manager: ApprovalManager,
}

impl ApprovingSink {
    pub fn new(mode: ApproveMode, manager: ApprovalManager) -> Self {
        Self {
            print: PrintSink::new(),
            mode,
            manager,
        }
    }
}

impl EventSink for ApprovingSink {
    fn emit(&self, event: SessionEvent) {
        let request = approval_of(&event);
        self.print.emit(event);
        let Some(request) = request else { return };
        self.print.end_line();
        let (mode, manager) = (self.mode, self.manager.clone());
        // The sink must not block the turn: the terminal is read elsewhere.
        let spawned = std::thread::Builder::new()
            .name("approve".into())
            .spawn(move || {
                let verdict = answer_of(mode, &request);
                if !manager.answer(&request.tool_call_id, verdict) {
                    eprintln!("skald: the call is no longer waiting");
                }
            });
        if let Err(e) = spawned {
            eprintln!("skald: cannot ask for approval: {e}");
        }
    }
}

/// The approval an event asks for, a sub-agent's too.
fn approval_of(event: &SessionEvent) -> Option<ApprovalRequest> {
    match event {
        SessionEvent::ApprovalRequired { request, .. } => Some(request.clone()),
        SessionEvent::SubAgent { event, .. } => approval_of(event),
        _ => None,
    }
}

/// `skald tool run`'s gate: the rules with a RunContext in `workdir` (no
/// session, no bypasses). `Ok(())` runs the call; `Err` is the exit code.
pub async fn gate_tool_run(
    data_dir: &Path,
    registry: &ToolRegistry,
    name: &str,
    args: &serde_json::Value,
    workdir: &Path,
    mode: ApproveMode,
) -> Result<(), ExitCode> {
    let store = Store::open(data_dir)
        .await
        .map_err(|e| fail(1, &e.to_string()))?;
    if let Err(e) = skald_session::bootstrap(&store).await {
        tracing::warn!(error = %e, "cannot seed the approval rules");
    }
    let snapshot = load_snapshot(&store).await;
    store.close().await;
    let ctx = RunContext::in_dir(workdir).canonicalized();
    let source = if skald_core_api::ToolName::parse(name).mcp_server().is_some() {
        skald_tools::source::MCP
    } else {
        skald_tools::source::BUILTIN
    };
    let traits = registry.get(name).map(|t| t.traits()).unwrap_or_default();
    let mut call = CallContext::for_run_with_traits(name, traits, args, &ctx).with_source(source);
    if let Some(c) = registry.category_of(name) {
        call = call.with_category(c);
    }
    let decision = match snapshot {
        Ok(rules) => decide(
            &rules,
            &call,
            &ctx,
            &Default::default(),
            skald_approval::Now::current(),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "approval rules cannot be loaded: asking");
            Decision::require_load_failure()
        }
    };
    match decision.action {
        Action::Allow => Ok(()),
        Action::Deny => Err(fail(
            EXIT_REJECTED,
            &format!("rejected: {}", decision.reason),
        )),
        Action::Require => {
            let preview = registry
                .get(name)
                .and_then(|t| skald_approval::predict_write(t.as_ref(), args));
            let (old, new) = match preview {
                Some(p) => (p.old, p.new),
                None => (None, None),
            };
            let request = skald_session::approval_request(
                skald_session::CallCard::of(registry, name, args),
                "",
                name,
                args.clone(),
                decision.reason,
                old,
                new,
            );
            match answer_of(mode, &request) {
                Verdict::Allow | Verdict::Allowed { .. } => Ok(()),
                Verdict::Reject { .. } | Verdict::UserReject { .. } => Err(fail(
                    EXIT_REJECTED,
                    "rejected: User rejected this tool call.",
                )),
            }
        }
    }
}

/// `skald inbox`: every call waiting for approval.
pub async fn inbox(data_dir: &Path, json: bool) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let list = host.handler.list_pending().await;
    let questions = host.handler.pending_questions().await;
    host.close().await;
    let list = match list {
        Ok(l) => l,
        Err(e) => return fail(1, &e.to_string()),
    };
    let questions = match questions {
        Ok(q) => q,
        Err(e) => return fail(1, &e.to_string()),
    };
    if json {
        // One object, so a script finds both kinds of waiting without
        // guessing which an entry is.
        let both = serde_json::json!({ "approvals": list, "questions": questions });
        return match serde_json::to_string_pretty(&both) {
            Ok(s) => {
                print_out(&s);
                ExitCode::SUCCESS
            }
            Err(e) => fail(1, &format!("cannot serialise the inbox: {e}")),
        };
    }
    if list.is_empty() && questions.is_empty() {
        eprintln!("skald: nothing waits for approval or an answer");
        return ExitCode::SUCCESS;
    }
    let mut lines: Vec<String> = list
        .iter()
        .map(|p| {
            format!(
                "{}  {}  {}  ({})",
                p.request.tool_call_id, p.session_id, p.request.label_full, p.request.reason
            )
        })
        .collect();
    lines.extend(crate::companion::question_lines(&questions));
    print_out(&lines.join("\n"));
    ExitCode::SUCCESS
}

/// `skald approve ID` / `skald reject ID [--note]`: settles a pending call
/// (running it when approved) and continues its turn when a provider is
/// configured.
pub async fn resolve(data_dir: &Path, id: &str, approve: bool, note: Option<String>) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let sink = PrintSink::new();
    let result = if approve {
        host.handler.approve(id, &sink).await
    } else {
        host.handler.reject(id, note.as_deref(), &sink).await
    };
    sink.end_line();
    host.close().await;
    match result {
        Ok(_) => {
            eprintln!(
                "skald: {} {id}",
                if approve { "approved" } else { "rejected" }
            );
            ExitCode::SUCCESS
        }
        Err(e @ skald_session::SessionError::NoPendingApproval(_)) => fail(2, &e.to_string()),
        Err(e) => fail(1, &e.to_string()),
    }
}
