//! `skald tasks [list|show ID|stop ID]` and `skald cron [list|run ID]`:
//! background tasks (`execute_task` async) and cron jobs, on the same store
//! and handler the app uses.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Subcommand;
use skald_protocol::{TaskRunView, TaskView};
use skald_session::tasks::{local_label, utc_label};

use crate::approve::{ApproveMode, ApprovingSink};
use crate::chat::Host;
use crate::{fail, print_out};

#[derive(Subcommand)]
pub enum TasksCommand {
    /// Every task and cron job, newest first (the default).
    List {
        /// Machine-readable (the `TaskView` IPC type).
        #[arg(long)]
        json: bool,
    },
    /// One task with its runs: outcome, transcript session, output.
    Show {
        id: i64,
        /// Machine-readable (the `TaskDetailView` IPC type).
        #[arg(long)]
        json: bool,
    },
    /// Stop a running task or cron run (from any process): its shells are
    /// killed, its calls cancelled, and its ending goes to its conversation.
    Stop { id: i64 },
}

#[derive(Subcommand)]
pub enum CronCommand {
    /// The cron jobs: schedule, time zone, next run in local time (the default).
    List {
        /// Machine-readable (the `TaskView` IPC type).
        #[arg(long)]
        json: bool,
    },
    /// Run a cron job now and wait for it (its result goes to Home).
    Run {
        id: i64,
        /// How its calls the rules ask about are answered: on the terminal,
        /// approved, or rejected. Without it they wait in the Inbox (the
        /// app, or `skald approve` from another terminal).
        #[arg(long, value_enum)]
        approve: Option<ApproveMode>,
    },
    /// The time zone cron jobs are evaluated in: shows it, or sets ZONE (an
    /// IANA name such as Europe/Berlin) for new cron jobs; `--system` goes
    /// back to the system's.
    Tz {
        zone: Option<String>,
        #[arg(long, conflicts_with = "zone")]
        system: bool,
    },
}

async fn open(data_dir: &Path) -> Result<Host, ExitCode> {
    Host::open(data_dir).await.map_err(|e| fail(1, &e))
}

fn when(ms: Option<i64>, tz: &str) -> String {
    ms.map(|ms| local_label(ms, tz))
        .unwrap_or_else(|| "-".into())
}

fn json_out(v: serde_json::Result<serde_json::Value>) -> ExitCode {
    match v.and_then(|v| serde_json::to_string_pretty(&v)) {
        Ok(s) => {
            print_out(&s);
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, &format!("cannot serialise: {e}")),
    }
}

fn task_line(t: &TaskView, tz: &str) -> String {
    let icon = if t.kind == "cron" { "📅" } else { "🚀" };
    let detail = match (&t.cron, &t.last_run) {
        (Some(expr), _) if t.enabled => format!(
            "{expr} ({}) next {}",
            t.time_zone.as_deref().unwrap_or(tz),
            when(t.next_run_at, t.time_zone.as_deref().unwrap_or(tz))
        ),
        (Some(expr), _) => format!("{expr} (disabled)"),
        (None, Some(run)) => match run.finished_at {
            Some(end) => format!("ended {}", when(Some(end), tz)),
            None => format!("started {}", when(Some(run.started_at), tz)),
        },
        (None, None) => String::new(),
    };
    format!(
        "{:>4}  {icon} {:<11} {} → {}  {detail}",
        t.id, t.state, t.title, t.agent_id
    )
}

fn run_line(r: &TaskRunView, tz: &str) -> String {
    let end = r
        .finished_at
        .map(|ms| when(Some(ms), tz))
        .unwrap_or_else(|| "…".into());
    let session = r.session_id.as_deref().unwrap_or("-");
    format!(
        "  run {:>4}  {:<11} {:<8} {} → {}  session {session}",
        r.id,
        r.status,
        r.trigger,
        when(Some(r.started_at), tz),
        end
    )
}

pub async fn tasks(data_dir: &Path, command: Option<TasksCommand>) -> ExitCode {
    let host = match open(data_dir).await {
        Ok(h) => h,
        Err(code) => return code,
    };
    let h = &host.handler;
    let tz = h.time_zone();
    let code = match command.unwrap_or(TasksCommand::List { json: false }) {
        TasksCommand::List { json } => match h.list_tasks().await {
            Ok(list) if json => json_out(serde_json::to_value(&list)),
            Ok(list) if list.is_empty() => {
                eprintln!("skald: no tasks");
                ExitCode::SUCCESS
            }
            Ok(list) => {
                let lines: Vec<String> = list.iter().map(|t| task_line(t, &tz)).collect();
                print_out(&lines.join("\n"));
                ExitCode::SUCCESS
            }
            Err(e) => fail(1, &e.to_string()),
        },
        TasksCommand::Show { id, json } => match h.task(id).await {
            Ok(d) if json => json_out(serde_json::to_value(&d)),
            Ok(d) => {
                let mut out = vec![task_line(&d.task, &tz)];
                if let Some(words) = &d.task.cron_words {
                    out.push(format!("  schedule: {words}"));
                }
                out.push(format!("  prompt: {}", d.task.prompt));
                out.extend(d.runs.iter().map(|r| run_line(r, &tz)));
                if let Some(last) = d.runs.first() {
                    if let Some(e) = &last.error {
                        out.push(format!("  error: {e}"));
                    }
                    if let Some(o) = &last.output {
                        out.push(format!("  output:\n{o}"));
                    }
                }
                print_out(&out.join("\n"));
                ExitCode::SUCCESS
            }
            Err(e) => fail(2, &e.to_string()),
        },
        TasksCommand::Stop { id } => stop(&host, id).await,
    };
    host.close().await;
    code
}

/// Stops task `id` and waits (up to 10 s) until its run says how it ended.
async fn stop(host: &Host, id: i64) -> ExitCode {
    let h = &host.handler;
    match h.stop_task(id).await {
        Ok(true) => {}
        Ok(false) => return fail(1, &format!("task {id} is not running")),
        Err(e) => return fail(2, &e.to_string()),
    }
    let start = Instant::now();
    loop {
        match h.task(id).await {
            Ok(d) => {
                if let Some(run) = d.runs.first()
                    && run.status != "running"
                {
                    eprintln!("skald: task {id} stopped (run {}: {})", run.id, run.status);
                    // A run ended here is delivered before we exit.
                    h.wait_tasks_idle().await;
                    return ExitCode::SUCCESS;
                }
            }
            Err(e) => return fail(1, &e.to_string()),
        }
        if start.elapsed() > Duration::from_secs(10) {
            return fail(
                1,
                &format!("asked task {id} to stop; it has not ended yet (its process is busy)"),
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub async fn cron(data_dir: &Path, command: Option<CronCommand>) -> ExitCode {
    let host = match open(data_dir).await {
        Ok(h) => h,
        Err(code) => return code,
    };
    let h = &host.handler;
    let tz = h.time_zone();
    let code = match command.unwrap_or(CronCommand::List { json: false }) {
        CronCommand::List { json } => match h.list_tasks().await {
            Ok(list) => {
                let list: Vec<TaskView> = list.into_iter().filter(|t| t.kind == "cron").collect();
                if json {
                    json_out(serde_json::to_value(&list))
                } else if list.is_empty() {
                    eprintln!("skald: no cron jobs");
                    ExitCode::SUCCESS
                } else {
                    let lines: Vec<String> = list
                        .iter()
                        .map(|t| {
                            let zone = t.time_zone.clone().unwrap_or_else(|| tz.clone());
                            format!(
                                "{:>4}  {:<8} {:<14} {} ({zone})  next {} ({})  {} → {}",
                                t.id,
                                if t.enabled { "enabled" } else { "disabled" },
                                t.cron.clone().unwrap_or_default(),
                                t.cron_words.clone().unwrap_or_default(),
                                when(t.next_run_at, &zone),
                                t.next_run_at.map(utc_label).unwrap_or_else(|| "-".into()),
                                t.title,
                                t.agent_id
                            )
                        })
                        .collect();
                    print_out(&lines.join("\n"));
                    ExitCode::SUCCESS
                }
            }
            Err(e) => fail(1, &e.to_string()),
        },
        CronCommand::Tz { zone, system } => time_zone(h, zone.as_deref(), system).await,
        CronCommand::Run { id, approve } => match h.run_task_now(id).await {
            Ok(Some(run)) => {
                eprintln!("skald: running cron job {id} (run {run})…");
                let answering = approve.map(|mode| answer_approvals(&host, mode));
                h.wait_tasks_idle().await;
                if let Some(a) = answering {
                    a.abort();
                }
                match h.task(id).await {
                    Ok(d) => match d.runs.iter().find(|r| r.id == run) {
                        Some(r) => {
                            eprintln!(
                                "skald: run {run} {}; its result is in Home (session {})",
                                r.status,
                                r.session_id.as_deref().unwrap_or("-")
                            );
                            if let Some(o) = &r.output {
                                print_out(o);
                            }
                            if r.status == "done" {
                                ExitCode::SUCCESS
                            } else {
                                ExitCode::from(1)
                            }
                        }
                        None => fail(1, "the run disappeared (the job was deleted)"),
                    },
                    Err(e) => fail(1, &e.to_string()),
                }
            }
            Ok(None) => fail(1, &format!("cron job {id} is already running")),
            Err(e) => fail(2, &e.to_string()),
        },
    };
    host.close().await;
    code
}

/// Answers the approvals background runs of this process ask for, as
/// `skald chat --approve` does for the tasks its turn starts.
fn answer_approvals(host: &Host, mode: ApproveMode) -> tokio::task::JoinHandle<()> {
    let sink = ApprovingSink::new(mode, host.approvals.clone());
    let mut bus = host.handler.subscribe_all();
    tokio::spawn(async move {
        loop {
            match bus.recv().await {
                Ok(event @ skald_protocol::SessionEvent::ApprovalRequired { .. }) => {
                    skald_session::EventSink::emit(&sink, event);
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    })
}

/// `skald cron tz [ZONE | --system]`.
async fn time_zone(
    h: &skald_session::ChatSessionHandler,
    zone: Option<&str>,
    system: bool,
) -> ExitCode {
    let changed = match (zone, system) {
        (Some(z), _) => h.set_time_zone(z).await.map(|()| true),
        (None, true) => h.use_system_time_zone().await.map(|()| true),
        (None, false) => Ok(false),
    };
    if let Err(e) = changed {
        return fail(2, &e.to_string());
    }
    match h.time_zone_view().await {
        Ok(v) => {
            let whose = if v.from_system {
                "the system's"
            } else {
                "set by you"
            };
            print_out(&v.time_zone);
            eprintln!(
                "skald: cron jobs scheduled from now on use {} ({whose}; the system's is {}); \
                 existing jobs keep the zone they were scheduled in",
                v.time_zone, v.system_time_zone
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, &e.to_string()),
    }
}
