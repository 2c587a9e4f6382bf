//! The companion tools from a terminal: `skald scratchpad`, `skald answer`,
//! the questions `skald inbox` lists, and `skald chat` asking the person a
//! question on the terminal (or saying it waits in the Inbox).

use std::collections::HashSet;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use skald_protocol::PendingQuestionView;
use skald_session::ChatSessionHandler;

use crate::chat::Host;
use crate::print::PrintSink;
use crate::{fail, print_out};

/// How often `skald chat` looks for a question of its turn.
const QUESTION_POLL: Duration = Duration::from_millis(150);

/// What `skald scratchpad` does.
pub enum ScratchpadAction {
    Show,
    Set { key: String, value: String },
    Remove { key: String },
}

/// `skald scratchpad [SESSION] [set KEY VALUE | rm KEY]` (default: the most
/// recent session).
pub async fn scratchpad(
    data_dir: &Path,
    session: Option<String>,
    action: ScratchpadAction,
) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let code = scratchpad_on(&host.handler, session, action).await;
    host.close().await;
    code
}

async fn scratchpad_on(
    h: &ChatSessionHandler,
    session: Option<String>,
    action: ScratchpadAction,
) -> ExitCode {
    let sid = match session {
        Some(s) => s,
        None => match h.list_sessions().await {
            Ok(list) => match list.into_iter().next() {
                Some(s) => s.id,
                None => {
                    return fail(
                        2,
                        "no sessions yet; name one or start one with `skald chat`",
                    );
                }
            },
            Err(e) => return fail(1, &e.to_string()),
        },
    };
    let result = match &action {
        ScratchpadAction::Show => Ok(()),
        ScratchpadAction::Set { key, value } => h.set_scratchpad_entry(&sid, key, value).await,
        ScratchpadAction::Remove { key } => match h.remove_scratchpad_entry(&sid, key).await {
            Ok(true) => Ok(()),
            Ok(false) => return fail(2, &format!("the scratchpad of {sid} has no `{key}`")),
            Err(e) => Err(e),
        },
    };
    if let Err(e) = result {
        return match e.code() {
            skald_protocol::ErrorCode::Storage | skald_protocol::ErrorCode::Internal => {
                fail(1, &e.to_string())
            }
            _ => fail(2, &e.to_string()),
        };
    }
    match action {
        ScratchpadAction::Show => {}
        ScratchpadAction::Set { key, .. } => eprintln!("skald: {sid}: `{key}` saved"),
        ScratchpadAction::Remove { key } => eprintln!("skald: {sid}: `{key}` removed"),
    }
    let entries = match h.scratchpad(&sid).await {
        Ok(e) => e,
        Err(e) => return fail(2, &e.to_string()),
    };
    if entries.is_empty() {
        eprintln!("skald: the scratchpad of {sid} is empty");
        return ExitCode::SUCCESS;
    }
    let text: Vec<String> = entries
        .iter()
        .map(|e| format!("## {}\n{}", e.key, e.value.trim_end()))
        .collect();
    print_out(&text.join("\n\n"));
    ExitCode::SUCCESS
}

/// `skald answer ID TEXT`: answers a waiting question; its turn goes on in
/// the process that asked, or here when none runs it any more.
pub async fn answer(data_dir: &Path, id: &str, text: &str) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let code = answer_on(&host, id, text).await;
    host.close().await;
    code
}

async fn answer_on(host: &Host, id: &str, text: &str) -> ExitCode {
    let h = &host.handler;
    let session = match h.pending_questions().await {
        Ok(list) => list
            .into_iter()
            .find(|q| q.tool_call_id == id)
            .map(|q| q.session_id),
        Err(e) => return fail(1, &e.to_string()),
    };
    if let Err(e) = h.answer_question(id, text).await {
        return fail(2, &e.to_string());
    }
    eprintln!("skald: answered {id}");
    let Some(session) = session else {
        return ExitCode::SUCCESS;
    };
    // If no process waits on the question any more (it was killed), the
    // interrupted turn continues here with the answer.
    let sink = PrintSink::new();
    let resumed = h.resume_session(&session, None, &sink).await;
    sink.end_line();
    match resumed {
        Ok(None) => {
            eprintln!("skald: the session's own process continues its turn");
            ExitCode::SUCCESS
        }
        Ok(Some(_)) => ExitCode::SUCCESS,
        Err(e) => fail(1, &e.to_string()),
    }
}

/// The questions lines of `skald inbox`.
pub fn question_lines(questions: &[PendingQuestionView]) -> Vec<String> {
    questions
        .iter()
        .map(|q| {
            let mut line = format!(
                "{}  {}  question: {} — {}",
                q.tool_call_id,
                q.session_id,
                q.title,
                one_line(&q.question)
            );
            if !q.suggested_answers.is_empty() {
                line.push_str(&format!("  [{}]", q.suggested_answers.join(" | ")));
            }
            if let Some(url) = &q.url {
                line.push_str(&format!(
                    "  open {url}, then answer done | decline | cancel"
                ));
            }
            line
        })
        .collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// While `skald chat` runs a turn: asks each new question of its session
/// on the terminal (stderr) and answers with the line read from stdin; a
/// number picks a suggestion. Without a terminal, says once per question
/// that it waits in the Inbox.
pub fn ask_on_terminal(h: &ChatSessionHandler, session_id: &str) -> tokio::task::JoinHandle<()> {
    let (h, sid) = (h.clone(), session_id.to_string());
    let terminal = std::io::stdin().is_terminal();
    tokio::spawn(async move {
        let mut seen: HashSet<String> = HashSet::new();
        loop {
            if let Ok(list) = h.pending_questions().await {
                for q in list.into_iter().filter(|q| q.session_id == sid) {
                    if !seen.insert(q.tool_call_id.clone()) {
                        continue;
                    }
                    if !terminal {
                        eprintln!(
                            "\nskald: question {id} waits in the Inbox: {title}\n  answer with `skald answer {id} \"…\"` (or in the app)",
                            id = q.tool_call_id,
                            title = q.title
                        );
                        continue;
                    }
                    if let Some(text) = read_answer(q.clone()).await
                        && let Err(e) = h.answer_question(&q.tool_call_id, &text).await
                    {
                        eprintln!("skald: {e}");
                    }
                }
            }
            tokio::time::sleep(QUESTION_POLL).await;
        }
    })
}

async fn read_answer(q: PendingQuestionView) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "\n? {}\n{}", q.title, q.question.trim());
        if let Some(url) = &q.url {
            let _ = writeln!(
                err,
                "  open {url} in your browser, then answer done, decline or cancel"
            );
        }
        for (i, s) in q.suggested_answers.iter().enumerate() {
            let _ = writeln!(err, "  {}) {s}", i + 1);
        }
        let _ = write!(err, "answer> ");
        let _ = err.flush();
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).ok()?;
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        let picked = line
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| q.suggested_answers.get(i).cloned());
        Some(picked.unwrap_or_else(|| line.to_string()))
    })
    .await
    .ok()
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(url: Option<&str>) -> PendingQuestionView {
        PendingQuestionView {
            tool_call_id: "c1".into(),
            session_id: "s1".into(),
            session_title: "Chat".into(),
            agent_id: "mcp:everything".into(),
            title: "everything asks".into(),
            question: "Link your\naccount".into(),
            suggested_answers: Vec::new(),
            schema: None,
            server: Some("everything".into()),
            property_order: None,
            url: url.map(str::to_string),
            created_at: 0,
        }
    }

    #[test]
    fn the_inbox_line_of_a_page_says_to_open_it_and_how_to_answer() {
        let lines = question_lines(&[
            question(Some("https://example.com/connect")),
            question(None),
        ]);
        assert_eq!(
            lines[0],
            "c1  s1  question: everything asks — Link your account  open https://example.com/connect, then answer done | decline | cancel"
        );
        assert!(!lines[1].contains("open "), "{}", lines[1]);
    }
}
