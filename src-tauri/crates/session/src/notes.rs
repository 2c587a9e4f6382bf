//! What the model reads when a call did not simply succeed. One place, so the
//! live loop, crash resume and the snapshots agree word for word.

/// A call stopped by `/stop` while it ran (or waited for approval).
pub const CANCELLED: &str = "Cancelled: the user stopped this call before it finished.";

/// A later call of a response the user stopped: it never ran.
pub const CANCELLED_BEFORE_START: &str =
    "Cancelled: the user stopped the turn before this call ran; it was not run.";

/// A side-effecting call a crash cut short: not re-run.
pub const INTERRUPTED: &str = "Interrupted by a restart before it finished; it was not re-run. \
     Ask the user before running it again.";

/// A call the model made but Skald never started before a crash.
pub const NOT_STARTED: &str =
    "Not run: Skald stopped before this call started. Call it again if it is still needed.";

/// A call with no recorded result at all (only ever seen in a damaged history).
pub const NO_RESULT: &str = "Error: no result was recorded for this call.";

/// The tool message for an error.
pub fn error(message: &str) -> String {
    format!("Error: {message}")
}

/// The tool message for a call the gate rejected.
pub fn rejected(reason: &str) -> String {
    format!("Rejected: {reason}. The call was not run.")
}

/// What the model reads when the person rejected a call: exactly
/// "User rejected this tool call." plus " Reason: <note>" when given.
pub fn user_rejected(note: Option<&str>) -> String {
    match note.map(str::trim).filter(|n| !n.is_empty()) {
        Some(note) => format!("User rejected this tool call. Reason: {note}"),
        None => "User rejected this tool call.".to_string(),
    }
}

/// A call still waiting for the person's approval (the row is `pending`).
pub const AWAITING_APPROVAL: &str =
    "Waiting for the user's approval; not run yet. Its result arrives once they decide.";

/// The error for a tool name the model made up.
pub fn unknown_tool(name: &str, available: &[String]) -> String {
    format!(
        "unknown tool `{name}`. Available tools: {}",
        if available.is_empty() {
            "none".to_string()
        } else {
            available.join(", ")
        }
    )
}

/// The error for arguments that are not JSON.
pub fn malformed_arguments(name: &str, parse_error: &str) -> String {
    format!(
        "the arguments for `{name}` were not valid JSON ({parse_error}); nothing was run. \
         Send the arguments as one JSON object."
    )
}

/// What replaces an old tool result in a request that would not fit the
/// model's context window (the stored result is untouched).
pub fn trimmed_result(chars: usize) -> String {
    format!(
        "[Old tool result trimmed to fit the context window ({chars} characters). \
         Call the tool again if you need it.]"
    )
}

/// What follows an answer whose stream was cut, when it goes back to the
/// model: it must not read it as a finished answer.
pub const INCOMPLETE_ANSWER: &str =
    "[This answer was cut off before it finished (the connection to the model broke).]";

/// What follows an answer the person stopped while it streamed.
pub const STOPPED_ANSWER: &str =
    "[This answer was cut off before it finished: the user stopped it.]";

/// The person-facing line of a retry: "rate limited, retrying in 3 s,
/// attempt 2 of 5".
pub fn retry_line(reason: &str, delay_ms: u64, attempt: u32, max_attempts: u32) -> String {
    let wait = if delay_ms >= 1000 {
        format!("{} s", delay_ms.div_ceil(1000))
    } else {
        format!("{delay_ms} ms")
    };
    format!("{reason}, retrying in {wait}, attempt {attempt} of {max_attempts}")
}
