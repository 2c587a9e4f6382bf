//! `skald compact SESSION`: the person's "compact" — every turn but the last
//! summarised by the session's model; later requests send the summary instead.

use std::path::Path;
use std::process::ExitCode;

use skald_session::SessionError;

use crate::chat::Host;
use crate::{fail, print_out};

pub async fn compact(data_dir: &Path, session: &str, model: Option<&str>) -> ExitCode {
    let host = match Host::open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(1, &e),
    };
    let result = host.handler.compact_with(session, model).await;
    host.close().await;
    match result {
        Ok(summary) => {
            eprintln!(
                "skald: summarised {} messages (~{} tokens); later requests send this instead:",
                summary.message_count, summary.covered_tokens
            );
            print_out(&summary.content);
            ExitCode::SUCCESS
        }
        Err(e @ (SessionError::NothingToDo(_) | SessionError::SessionNotFound(_))) => {
            fail(2, &e.to_string())
        }
        Err(e) => fail(1, &e.to_string()),
    }
}
