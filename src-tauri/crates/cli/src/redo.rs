//! `skald retry SESSION`, `skald regenerate SESSION`, `skald edit SESSION
//! TEXT`: the chat's Retry, regenerate and edit-and-resend from a terminal,
//! printed as `skald chat` prints a turn, with the same exit codes (2 when
//! there is nothing to do: no failed turn, no message yet).

use std::path::Path;
use std::process::ExitCode;

use crate::approve::ApproveMode;
use crate::chat::{Action, Host, close_after_turn, outcome_code, run_turn, start_error};
use crate::fail;

pub async fn redo(
    data_dir: &Path,
    session: &str,
    action: Action,
    approve: ApproveMode,
) -> ExitCode {
    if let Action::Edit(text) = &action
        && text.trim().is_empty()
    {
        return fail(2, "the new message is empty; say what you want done");
    }
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let code = match host.handler.open_session(session).await {
        Err(e) => start_error(&e),
        Ok(_) => {
            eprintln!("skald: session {session}");
            match run_turn(&host, session, action, approve).await {
                Ok(outcome) => outcome_code(&outcome),
                Err(e) => start_error(&e),
            }
        }
    };
    close_after_turn(host, code).await
}
