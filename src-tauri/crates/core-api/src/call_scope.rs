//! The id of the tool call being run, visible to the tool's code while the
//! session drives it: a question keyed by its call, an MCP server's
//! elicitation routed to the call that caused it.

use std::future::Future;

tokio::task_local! {
    static CURRENT_CALL: String;
}

/// Runs `fut` as the execution of call `id`.
pub async fn scope_call<F: Future>(id: String, fut: F) -> F::Output {
    CURRENT_CALL.scope(id, fut).await
}

/// The id of the tool call whose execution is being polled (`chat_llm_tools.id`).
/// `None` outside a session's driver.
pub fn current_call_id() -> Option<String> {
    CURRENT_CALL.try_with(Clone::clone).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_id_is_seen_inside_the_scope_only() {
        assert_eq!(current_call_id(), None);
        let seen = scope_call("c1".into(), async { current_call_id() }).await;
        assert_eq!(seen.as_deref(), Some("c1"));
    }
}
