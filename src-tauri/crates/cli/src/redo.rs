//! `skald retry SESSION`, `skald regenerate SESSION`, `skald edit SESSION
//! TEXT`: the chat's Retry, regenerate and edit-and-resend from a terminal,
//! printed as `skald chat` prints a turn, with the same exit codes (2 when
//! there is nothing to do: no failed turn, no message yet).
//!
//! `--model` asks another model for this redo only, as `--model` does for
//! `skald chat`: a flag acts on the command it is given to (as `claude
//! --model` and `codex exec -m` do for one run), and the chat's own model
//! stays what the person last chose with `skald sessions model` or the
//! app's switcher — so a one-off comparison does not silently move every
//! later turn to the other model.

use std::path::Path;
use std::process::ExitCode;

use skald_session::TurnOptions;

use crate::approve::ApproveMode;
use crate::chat::{Action, Host, close_after_turn, outcome_code, run_turn, start_error};
use crate::fail;

pub async fn redo(
    data_dir: &Path,
    session: &str,
    action: Action,
    model: Option<String>,
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
            match run_turn(&host, session, action, TurnOptions { model }, approve).await {
                Ok(outcome) => outcome_code(&outcome),
                Err(e) => start_error(&e),
            }
        }
    };
    close_after_turn(host, code).await
}
