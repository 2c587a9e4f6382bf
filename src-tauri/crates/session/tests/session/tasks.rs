//! Async tasks and cron jobs (`execute_task` modes `async` and `cron`):
//! each agent has its own scripted provider (see `subagents.rs`), so what
//! every agent receives is asserted; cron runs on a fake clock.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use skald_llm::{LlmError, Message, ScriptedTurn, StopReason};
use skald_protocol::TurnOutcome;
use skald_session::tasks::FakeClock;
use skald_session::{Attention, AttentionKind, HandlerConfig, NullSink, RecordingSink};
use skald_store::{JobExtras, JobKind, JobRunStatus, NewJob, Role, ToolCallStatus};

use crate::common::tool_content;
use crate::multi_agent::*;

fn async_task(id: &str, agent: &str, title: &str, prompt: &str) -> ScriptedTurn {
    ScriptedTurn::new()
        .tool_call(
            0,
            id,
            "execute_task",
            json!({"mode": "async", "title": title, "prompt": prompt, "agent_id": agent})
                .to_string(),
        )
        .done(StopReason::ToolUse)
}

fn cron_task(id: &str, agent: &str, title: &str, cron: &str) -> ScriptedTurn {
    ScriptedTurn::new()
        .tool_call(
            0,
            id,
            "execute_task",
            json!({"mode": "cron", "title": title, "prompt": "check the backups", "agent_id": agent, "cron": cron})
                .to_string(),
        )
        .done(StopReason::ToolUse)
}

fn call(id: &str, name: &str, args: Value) -> ScriptedTurn {
    ScriptedTurn::new()
        .tool_call(0, id, name, args.to_string())
        .done(StopReason::ToolUse)
}

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// The JSON of the last tool result of a request.
fn last_result(req: &skald_llm::ChatRequest) -> Value {
    serde_json::from_str(tool_content(req.messages.last().unwrap())).unwrap()
}

#[tokio::test]
async fn an_async_task_reports_back_and_the_parent_turn_resumes_by_itself() {
    let e = env(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![
                    async_task("a1", "worker", "Count files", "Count the files in src."),
                    answer("Started it."),
                    answer("The worker counted 42."),
                ],
            ),
            ("worker", vec![answer("42 files.")]),
        ],
    )
    .await;
    e.handler.set_time_zone("Europe/Berlin").await.unwrap();
    let sid = e.session().await;
    let outcome = e
        .handler
        .send_message(&sid, "count them in the background", RecordingSink::new())
        .await
        .unwrap();
    assert_eq!(outcome, TurnOutcome::Completed);
    tasks_idle(&e).await;

    let main = e.requests("main");
    assert_eq!(main.len(), 3, "the parent resumed once, by itself");
    // The call returns at once with the task's id.
    assert_eq!(
        serde_json::from_str::<Value>(&results(&main[1])[0]).unwrap(),
        json!({"task_id": 1, "status": "started"})
    );
    // The interactive agent has execute_task (naming the time zone) and
    // read_agent_result.
    let names = tool_names(&main[0]);
    assert!(names.contains(&"execute_task".to_string()));
    assert!(names.contains(&"read_agent_result".to_string()));
    let desc = main[0]
        .tools
        .iter()
        .find(|t| t.name == "execute_task")
        .unwrap()
        .description
        .clone();
    assert!(desc.contains("Europe/Berlin"), "{desc}");
    // The ending arrives as a completed task_completed call.
    let delivered = last_result(&main[2]);
    assert_eq!(delivered["status"], "done");
    assert_eq!(delivered["output"], "42 files.");
    assert_eq!(delivered["task_id"], 1);
    assert_eq!(delivered["mode"], "async");
    match &main[2].messages[main[2].messages.len() - 2] {
        Message::Assistant { tool_calls, .. } => {
            assert_eq!(tool_calls[0].name, "task_completed");
        }
        other => panic!("not the delivered call: {other:?}"),
    }

    // The worker ran in its own background session: its prompt, its
    // tools (execute_subtask, not execute_task or read_agent_result).
    let worker = e.requests("worker");
    assert_eq!(worker.len(), 1);
    assert!(
        worker[0]
            .system
            .as_deref()
            .unwrap()
            .starts_with("Agent worker.")
    );
    let first_user = worker[0]
        .messages
        .iter()
        .find(|m| matches!(m, Message::User { .. }))
        .unwrap();
    assert_eq!(user_text(first_user), "Count the files in src.");
    let wnames = tool_names(&worker[0]);
    assert!(
        wnames.contains(&"execute_subtask".to_string()),
        "{wnames:?}"
    );
    assert!(!wnames.contains(&"execute_task".to_string()));
    assert!(!wnames.contains(&"read_agent_result".to_string()));

    // The rows: the task done, its run linked to its session and delivered.
    let detail = e.handler.task(1).await.unwrap();
    assert_eq!(detail.task.state, "done");
    assert_eq!(detail.task.kind, "async");
    assert_eq!(detail.runs.len(), 1);
    let run = &detail.runs[0];
    assert_eq!(run.status, "done");
    assert_eq!(run.trigger, "async");
    let bg = run.session_id.clone().unwrap();
    assert_ne!(bg, sid);
    let bg_row = e.store.sessions().get(&bg).await.unwrap().unwrap();
    assert_eq!(bg_row.agent_id, "worker");
    assert_eq!(bg_row.run_context.unwrap()["background"], true);
    let stored = e.store.jobs().get_run(run.id).await.unwrap().unwrap();
    assert!(stored.delivered_at.is_some());
    // The parent's history, in order.
    let rows = e.store.history().list_for_session(&sid).await.unwrap();
    let roles: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r.role.as_str(), r.content.as_str()))
        .filter(|(r, _)| *r != "tool")
        .collect();
    assert_eq!(
        roles,
        [
            ("user", "count them in the background"),
            ("assistant", ""),
            ("assistant", "Started it."),
            ("assistant", ""),
            ("assistant", "The worker counted 42."),
        ]
    );
    let calls = e.store.tool_calls().list_for_session(&sid).await.unwrap();
    assert_eq!(calls[1].name, "task_completed");
    assert_eq!(calls[1].status, ToolCallStatus::Done);
    // The card's label names the mode, the agent and the title.
    let history = e.handler.history(&sid).await.unwrap();
    let labels: Vec<String> = history
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.label_short.clone()))
        .collect();
    assert_eq!(
        labels,
        [
            "execute_task 🚀 → worker: Count files",
            "task_completed 🚀 → worker: Count files"
        ]
    );
}

#[tokio::test]
async fn a_failed_async_task_delivers_its_partial_output_and_read_agent_result_is_never_ready() {
    let e =
        env(
            &[("worker", "task")],
            vec![
                (
                    "main",
                    vec![
                        async_task("a1", "worker", "Dig", "Dig."),
                        call("r1", "read_agent_result", json!({"task_id": 1})),
                        answer("Waiting."),
                        answer("It failed."),
                    ],
                ),
                (
                    "worker",
                    vec![ScriptedTurn::new().text("found half of it").error(
                        LlmError::StreamBroken {
                            provider: "fake".into(),
                            message: "connection reset".into(),
                        },
                    )],
                ),
            ],
        )
        .await;
    let sid = e.session().await;
    e.handler.send_message(&sid, "dig", NullSink).await.unwrap();
    tasks_idle(&e).await;
    let main = e.requests("main");
    assert_eq!(main.len(), 4);
    assert_eq!(
        serde_json::from_str::<Value>(&results(&main[2])[0]).unwrap()["status"],
        "not_ready"
    );
    let delivered = last_result(&main[3]);
    assert_eq!(delivered["status"], "failed");
    assert_eq!(delivered["output"], "found half of it");
    assert!(
        delivered["error"]
            .as_str()
            .unwrap()
            .contains("connection reset")
    );
}

#[tokio::test]
async fn stopping_an_async_task_kills_its_60s_shell_and_its_ending_is_delivered() {
    let e = env(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![
                    async_task("a1", "worker", "Sleep", "Sleep a minute."),
                    answer("Started."),
                    answer("It was stopped."),
                ],
            ),
            ("worker", vec![sixty_second_shell("w1"), answer("never")]),
        ],
    )
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "sleep in the background", NullSink)
        .await
        .unwrap();
    let pgid = shell_started(&e.workdir).await;
    assert_eq!(e.handler.task(1).await.unwrap().task.state, "running");

    let t0 = Instant::now();
    assert!(e.handler.stop_task(1).await.unwrap());
    tasks_idle(&e).await;
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    shell_gone(pgid, Duration::from_secs(2)).await;
    let detail = e.handler.task(1).await.unwrap();
    assert_eq!(detail.runs[0].status, "cancelled");
    let bg = detail.runs[0].session_id.clone().unwrap();
    let rows = e.store.tool_calls().list_for_session(&bg).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, ToolCallStatus::Cancelled);
    assert_eq!(e.requests("worker").len(), 1, "never asked again");
    let main = e.requests("main");
    assert_eq!(last_result(&main[2])["status"], "cancelled");
    // Stopping it again: it is not running.
    assert!(!e.handler.stop_task(1).await.unwrap());
}

#[tokio::test]
async fn a_bad_cron_expression_is_a_clear_error_with_an_example() {
    let e = env(
        &[("worker", "task")],
        vec![(
            "main",
            vec![
                cron_task("c1", "worker", "Backups", "every morning"),
                answer("ok"),
            ],
        )],
    )
    .await;
    let sid = e.session().await;
    e.handler.send_message(&sid, "x", NullSink).await.unwrap();
    let err = results(&e.requests("main")[1])[0].clone();
    assert!(err.contains("invalid cron expression"), "{err}");
    assert!(err.contains("\"0 9 * * 1-5\""), "{err}");
    assert!(e.store.jobs().list().await.unwrap().is_empty());
}

#[tokio::test]
async fn cron_runs_in_the_persons_time_zone_across_dst_missed_runs_once_disable_and_delete() {
    // Friday 2026-03-27 13:00 in Berlin (CET, +1); DST starts Sunday 29th.
    let clock = FakeClock::at(utc("2026-03-27T12:00:00Z"));
    let c = clock.clone();
    let e = env_with(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![
                    cron_task("c1", "worker", "Backups", "0 9 * * *"),
                    answer("Scheduled."),
                    // Home answers each delivered run.
                    answer("Backups fine (Saturday)."),
                    answer("Backups fine (missed)."),
                    call("l1", "list_items", json!({"type": "cron"})),
                    answer("Listed."),
                ],
            ),
            (
                "worker",
                vec![answer("All backups present."), answer("Still present.")],
            ),
        ],
        HandlerConfig::default(),
        move |h| h.with_clock(Arc::new(c)),
    )
    .await;
    e.handler.set_time_zone("Europe/Berlin").await.unwrap();
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "schedule it", NullSink)
        .await
        .unwrap();
    let scheduled: Value = serde_json::from_str(&results(&e.requests("main")[1])[0]).unwrap();
    assert_eq!(scheduled["status"], "scheduled");
    assert_eq!(scheduled["time_zone"], "Europe/Berlin");
    assert_eq!(scheduled["next_run_at"], "2026-03-28T08:00:00Z");
    assert_eq!(scheduled["next_run_local"], "2026-03-28 09:00 CET");
    let id = scheduled["task_id"].as_i64().unwrap();

    // Not due yet: nothing runs.
    assert_eq!(e.handler.scheduler_tick().await.unwrap(), Some(vec![]));
    // Saturday 09:00 CET.
    clock.set(utc("2026-03-28T08:00:05Z"));
    let started = e.handler.scheduler_tick().await.unwrap().unwrap();
    assert_eq!(started.len(), 1);
    tasks_idle(&e).await;
    let view = e.handler.task(id).await.unwrap();
    assert_eq!(view.runs[0].status, "done");
    assert_eq!(view.runs[0].trigger, "schedule");
    // Sunday 09:00 is CEST (+2) now: 07:00 UTC.
    assert_eq!(
        view.task.next_run_at,
        Some(utc("2026-03-29T07:00:00Z").timestamp_millis())
    );
    assert_eq!(
        view.task.cron_words.as_deref().map(str::is_empty),
        Some(false)
    );
    // The result went to Home, whose turn resumed.
    let home = e.handler.home_session().await.unwrap();
    let home_calls = e.store.tool_calls().list_for_session(&home).await.unwrap();
    assert_eq!(home_calls.len(), 1);
    assert_eq!(home_calls[0].name, "task_completed");
    let delivered: Value = serde_json::from_str(home_calls[0].result.as_deref().unwrap()).unwrap();
    assert_eq!(delivered["output"], "All backups present.");
    assert_eq!(delivered["mode"], "cron");

    // Closed from Saturday to Thursday noon: five ticks missed, one run.
    clock.set(utc("2026-04-02T10:00:00Z"));
    let started = e.handler.scheduler_tick().await.unwrap().unwrap();
    assert_eq!(started.len(), 1);
    assert_eq!(e.handler.scheduler_tick().await.unwrap(), Some(vec![]));
    tasks_idle(&e).await;
    let view = e.handler.task(id).await.unwrap();
    assert_eq!(view.runs.len(), 2);
    assert_eq!(view.runs[0].trigger, "missed");
    assert_eq!(
        view.task.next_run_at,
        Some(utc("2026-04-03T07:00:00Z").timestamp_millis())
    );
    assert_eq!(e.requests("worker").len(), 2);

    // Listed through list_items(type=cron).
    e.handler
        .send_message(&sid, "list", NullSink)
        .await
        .unwrap();
    let main = e.requests("main");
    let listed = last_result(&main[main.len() - 1]);
    assert_eq!(listed["cron"][0]["task_id"], id);
    assert_eq!(listed["cron"][0]["cron"], "0 9 * * *");
    assert_eq!(listed["cron"][0]["next_run_local"], "2026-04-03 09:00 CEST");

    // Disabled: never due, however late.
    let view = e.handler.set_task_enabled(id, false).await.unwrap();
    assert_eq!(view.state, "disabled");
    assert_eq!(view.next_run_at, None);
    clock.set(utc("2026-04-05T10:00:00Z"));
    assert_eq!(e.handler.scheduler_tick().await.unwrap(), Some(vec![]));
    // Enabled again: planned from now, not from the past.
    let view = e.handler.set_task_enabled(id, true).await.unwrap();
    assert_eq!(
        view.next_run_at,
        Some(utc("2026-04-06T07:00:00Z").timestamp_millis())
    );
    // Deleted: gone with its runs.
    assert!(e.handler.delete_task(id).await.unwrap());
    assert!(e.handler.task(id).await.is_err());
    assert!(e.store.jobs().list_runs(id, 10).await.unwrap().is_empty());
    clock.set(utc("2026-04-07T10:00:00Z"));
    assert_eq!(e.handler.scheduler_tick().await.unwrap(), Some(vec![]));
    assert_eq!(e.requests("worker").len(), 2);
}

#[tokio::test]
async fn one_scheduler_across_handlers_on_one_database() {
    let e = env(&[("worker", "task")], vec![]).await;
    let other = skald_session::ChatSessionHandler::new(
        e.store.clone(),
        Arc::new(skald_tools::builtin_registry(&Default::default())),
        Arc::new(skald_session::FixedProvider::new(
            e.provider.clone(),
            "test-model",
        )),
        e.agents_dir.clone(),
    );
    assert!(e.handler.scheduler_tick().await.unwrap().is_some());
    assert_eq!(
        other.scheduler_tick().await.unwrap(),
        None,
        "the lease is held by the first"
    );
}

/// Fifty async tasks in one message, cron ticks meanwhile, one database:
/// every run ends done and delivered, exactly once, with no lock error.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_async_tasks_and_cron_ticks_end_consistent() {
    const N: usize = 50;
    let clock = FakeClock::at(utc("2026-01-05T07:59:00Z"));
    let c = clock.clone();
    let mut first = ScriptedTurn::new();
    for i in 0..N {
        first = first.tool_call(
            i,
            format!("a{i}"),
            "execute_task",
            json!({"mode": "async", "title": format!("T{i}"), "prompt": format!("job {i}"), "agent_id": "worker"})
                .to_string(),
        );
    }
    let mut main = vec![
        cron_task("c1", "worker", "Tick", "* * * * *"),
        answer("scheduled"),
        first.done(StopReason::ToolUse),
        answer("all started"),
    ];
    // However the endings batch, every delivery turn gets an answer.
    main.extend((0..N + 10).map(|_| answer("noted")));
    let e = env_with(
        &[("worker", "task")],
        vec![
            ("main", main),
            ("worker", (0..N + 10).map(|_| answer("done")).collect()),
        ],
        HandlerConfig::default(),
        move |h| h.with_clock(Arc::new(c)),
    )
    .await;
    let sid = e.session().await;
    e.handler
        .send_message(&sid, "cron", NullSink)
        .await
        .unwrap();
    let t0 = Instant::now();
    let h = e.handler.clone();
    let sid2 = sid.clone();
    let parent = tokio::spawn(async move { h.send_message(&sid2, "fifty", NullSink).await });
    // Cron ticks while the tasks run.
    for minute in 0..3 {
        clock.set(utc("2026-01-05T08:00:01Z") + chrono::Duration::minutes(minute));
        e.handler.scheduler_tick().await.unwrap().unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(parent.await.unwrap().unwrap(), TurnOutcome::Completed);
    tasks_idle(&e).await;
    let elapsed = t0.elapsed();
    eprintln!("fifty async tasks + 3 cron ticks: {elapsed:?}");

    let jobs = e.store.jobs();
    let all = jobs.list().await.unwrap();
    assert_eq!(all.len(), N + 1);
    let mut runs = 0;
    for job in &all {
        for run in jobs.list_runs(job.id, 100).await.unwrap() {
            runs += 1;
            assert_eq!(run.status, JobRunStatus::Done, "{run:?}");
            assert!(run.delivered_at.is_some(), "{run:?}");
            assert!(run.session_id.is_some());
        }
    }
    assert!(runs > N, "the cron job ran too");
    // Every async ending is in the parent exactly once.
    let delivered: Vec<String> = e
        .store
        .tool_calls()
        .list_for_session(&sid)
        .await
        .unwrap()
        .into_iter()
        .filter(|c| c.name == "task_completed")
        .map(|c| c.id)
        .collect();
    let mut unique = delivered.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(delivered.len(), N);
    assert_eq!(unique.len(), N);
    // Nothing failed on a lock anywhere.
    for s in e.store.sessions().list().await.unwrap() {
        for m in e.store.history().list_for_session(&s.id).await.unwrap() {
            assert!(
                !m.content.contains("database is locked"),
                "{}: {}",
                s.id,
                m.content
            );
        }
        for c in e.store.tool_calls().list_for_session(&s.id).await.unwrap() {
            assert_ne!(c.status, ToolCallStatus::Running, "{c:?}");
        }
    }
    let history = e.store.history().list_for_session(&sid).await.unwrap();
    assert!(history.iter().all(|m| m.role != Role::System));
}

#[tokio::test]
async fn toggle_item_and_delete_cron_job_change_a_cron_job_through_the_model() {
    let clock = FakeClock::at(utc("2026-06-01T10:00:00Z"));
    let c = clock.clone();
    let e = env_with(
        &[("worker", "task")],
        vec![(
            "main",
            vec![
                cron_task("c1", "worker", "Backups", "30 6 * * 1"),
                call(
                    "t1",
                    "toggle_item",
                    json!({"kind": "cron", "name": "Backups", "enabled": false}),
                ),
                call(
                    "t2",
                    "toggle_item",
                    json!({"kind": "cron", "name": "1", "enabled": true}),
                ),
                call(
                    "t3",
                    "toggle_item",
                    json!({"kind": "cron", "name": "nope", "enabled": true}),
                ),
                call("d1", "delete_cron_job", json!({"task_id": 1})),
                answer("Done."),
            ],
        )],
        HandlerConfig::default(),
        move |h| h.with_clock(Arc::new(c)).with_time_zone("America/New_York"),
    )
    .await;
    let sid = e.session().await;
    e.handler.send_message(&sid, "go", NullSink).await.unwrap();
    let main = e.requests("main");
    let r = |n: usize| results(&main[n])[0].clone();
    let scheduled: Value = serde_json::from_str(&r(1)).unwrap();
    // It is Monday 06:00 in New York (EDT, -4): today's 06:30 is 10:30 UTC.
    assert_eq!(scheduled["next_run_at"], "2026-06-01T10:30:00Z");
    assert_eq!(scheduled["time_zone"], "America/New_York");
    assert_eq!(r(2), "Cron job 1 disabled.");
    assert_eq!(r(3), "Cron job 1 enabled; next run 2026-06-01 06:30 EDT.");
    assert!(r(4).contains("no cron job `nope`"), "{}", r(4));
    assert_eq!(r(5), "Cron job 1 deleted.");
    assert!(e.store.jobs().list().await.unwrap().is_empty());
    let labels: Vec<String> = e
        .handler
        .history(&sid)
        .await
        .unwrap()
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.label_short.clone()))
        .collect();
    assert_eq!(labels[0], "execute_task 📅 → worker: Backups");
    assert_eq!(labels[1], "toggle_item cron Backups off");
    assert_eq!(labels[4], "delete_cron_job 📅 1");
}

/// A task's end is one moment for the person (the app shows it while its
/// window is hidden): its title and what it did, pointing at the
/// conversation it reports to. Neither the worker's turn nor the parent's
/// resumed turn asks again. Background sessions stay out of the chat list.
#[tokio::test]
async fn a_task_ending_asks_for_attention_once_and_its_session_is_no_chat() {
    let e = env(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![
                    async_task("a1", "worker", "Count files", "Count them."),
                    answer("Started it."),
                    answer("It counted 42."),
                ],
            ),
            ("worker", vec![answer("42 files.")]),
        ],
    )
    .await;
    let sid = e.session().await;
    let mut moments = e.handler.subscribe_attention();
    e.handler
        .send_message(&sid, "count", NullSink)
        .await
        .unwrap();
    tasks_idle(&e).await;
    assert_eq!(e.requests("main").len(), 3, "the parent resumed");
    let raised: Vec<Attention> = std::iter::from_fn(|| moments.try_recv().ok()).collect();
    // The parent's first turn ("Started it.") and the task's end, in
    // whichever order they came; nothing for the worker's or the resumed turn.
    let mut kinds: Vec<String> = raised
        .iter()
        .map(|a| format!("{:?} {}", a.kind, a.session_id))
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [format!("TaskEnded {sid}"), format!("TurnFinished {sid}")],
        "{raised:?}"
    );
    let ended = raised
        .iter()
        .find(|a| a.kind == AttentionKind::TaskEnded)
        .unwrap();
    assert_eq!(ended.title, "Task finished: 🚀 → worker: Count files");
    assert_eq!(ended.body, "42 files.");

    // The chat list has the conversation, not the task's session; the
    // transcript still opens by id.
    let listed: Vec<String> = e
        .handler
        .list_sessions()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, std::slice::from_ref(&sid));
    let bg = e.handler.task(1).await.unwrap().runs[0]
        .session_id
        .clone()
        .unwrap();
    assert_eq!(e.handler.open_session(&bg).await.unwrap().id, bg);
    assert_eq!(e.store.sessions().list().await.unwrap().len(), 2);
}

/// The turn that accepts an async task holds its conversation's lease until
/// the run's row exists. A task with no run whose conversation nobody holds
/// was cut off by a crash: reported interrupted at the next start at once
/// (never run), while one whose conversation is held is left alone.
#[tokio::test]
async fn an_async_task_whose_run_never_began_is_reported_at_the_next_start() {
    let e = env(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![answer("It never ran; shall I start it again?")],
            ),
            ("worker", vec![]),
        ],
    )
    .await;
    let sid = e.session().await;
    let job = e
        .store
        .jobs()
        .create_with(
            &NewJob {
                name: "Backup".into(),
                cron_expr: String::new(),
                prompt: "Back it up.".into(),
                agent_id: "worker".into(),
                enabled: true,
                run_context: Some(json!({"permissionGroup": "default"})),
                next_run_at: None,
            },
            &JobExtras {
                kind: JobKind::Async,
                description: None,
                time_zone: None,
                parent_session_id: Some(sid.clone()),
                parent_call_id: Some("a1".into()),
                working_dir: Some(e.workdir.to_string_lossy().into_owned()),
            },
        )
        .await
        .unwrap();
    // The accepting turn is alive (in another process): not a crash.
    let held = e.store.try_lease_session(&sid).unwrap().unwrap();
    assert_eq!(e.handler.recover_tasks().await.unwrap(), 0);
    assert!(
        e.store
            .jobs()
            .list_runs(job.id, 5)
            .await
            .unwrap()
            .is_empty()
    );
    drop(held);

    // It died: reported now, seconds (not a minute) after it was accepted.
    assert_eq!(e.handler.recover_tasks().await.unwrap(), 1);
    tasks_idle(&e).await;
    let runs = e.store.jobs().list_runs(job.id, 5).await.unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].status, JobRunStatus::Interrupted);
    assert!(runs[0].session_id.is_none(), "no session: it never ran");
    assert!(runs[0].delivered_at.is_some());
    assert!(e.requests("worker").is_empty());
    let main = e.requests("main");
    assert_eq!(main.len(), 1, "the parent was told and answered");
    let told = last_result(&main[0]);
    assert_eq!(told["status"], "interrupted");
    assert_eq!(told["title"], "Backup");
    // Once: a second start finds nothing to report.
    assert_eq!(e.handler.recover_tasks().await.unwrap(), 0);
    tasks_idle(&e).await;
    assert_eq!(e.requests("main").len(), 1);
}

/// A task that cannot start (here: its working directory is gone) fails
/// its call and leaves no job behind for the next start to report.
#[tokio::test]
async fn a_task_that_cannot_start_fails_its_call_and_leaves_no_job() {
    let e = env(
        &[("worker", "task")],
        vec![
            (
                "main",
                vec![
                    call(
                        "x1",
                        "execute_cmd",
                        json!({"command": "cd .. && rm -r work"}),
                    ),
                    async_task("a1", "worker", "Count files", "Count them."),
                    answer("It could not start."),
                ],
            ),
            ("worker", vec![]),
        ],
    )
    .await;
    let sid = e.session().await;
    e.handler.send_message(&sid, "go", NullSink).await.unwrap();
    let main = e.requests("main");
    assert_eq!(main.len(), 3);
    let err = &results(&main[2])[0];
    assert!(err.contains("the task could not start"), "{err}");
    assert!(e.store.jobs().list().await.unwrap().is_empty());
    assert_eq!(e.handler.recover_tasks().await.unwrap(), 0);
    assert!(e.requests("worker").is_empty());
}
