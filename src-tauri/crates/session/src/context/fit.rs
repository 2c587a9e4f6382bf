//! One round's request, made to fit: the frame's summary in place of the
//! turns it covers, then old tool results trimmed, then (still too big) a new
//! summary of the oldest turns, else the turn fails — never a silent cut.

use skald_core_api::CancellationToken;
use skald_llm::ChatRequest;
use skald_protocol::SessionEvent;
use skald_store::{MessageRow, SummaryRow};

use super::calibrate::{calibrated, correction, shifted};
use super::summary::{self, Summarise, allowance, cut_points};
use super::{budget, overflow, request_tokens, trim_tool_results, window_for};
use crate::error::SessionError;
use crate::provider::ResolvedModel;
use crate::turn::{Draft, Turn, draft};

/// The rows a summary does not cover.
pub(crate) fn after<'r>(rows: &'r [MessageRow], summary: Option<&SummaryRow>) -> &'r [MessageRow] {
    let from = summary.map_or(0, |s| {
        rows.iter()
            .position(|r| r.id > s.last_message_id)
            .unwrap_or(rows.len())
    });
    &rows[from..]
}

/// The request with `rows` after `summary`, trimmed to `budget`: how many
/// results were trimmed, and the request.
fn trimmed(
    d: &Draft,
    rows: &[MessageRow],
    summary: Option<&str>,
    budget: u32,
) -> (u32, ChatRequest) {
    let mut req = d.build(rows, summary);
    let n = trim_tool_results(&mut req, budget);
    (n, req)
}

/// This round's request, within the model's context window.
pub(crate) async fn fitted(
    t: &Turn<'_>,
    model: &ResolvedModel,
    cancel: CancellationToken,
) -> Result<ChatRequest, SessionError> {
    let store = &t.inner.store;
    let d = draft(t, model).await?;
    let mut summary = store.summaries().latest_for_frame(t.frame_id).await?;
    let window = window_for(t.inner, model).await;
    let mut summarised = false;
    loop {
        let rows = after(&d.rows, summary.as_ref());
        let text = summary.as_ref().map(|s| s.content.as_str());
        // The estimate is held to the budget shifted by how far off it was
        // for the part the provider already counted.
        let fix = correction(&d, rows, summary.as_ref(), budget(window));
        let limit = shifted(budget(window), fix);
        let (trimmed_results, req) = trimmed(&d, rows, text, limit);
        let estimated = request_tokens(&req);
        if estimated <= limit {
            t.emit(SessionEvent::ContextUsage {
                session_id: t.session_id().to_string(),
                estimated_tokens: calibrated(estimated, fix),
                context_window: window,
                trimmed_tool_results: trimmed_results,
                model: Some(model.model.clone()),
            });
            return Ok(req);
        }
        // Cut at the first of the person's messages that leaves the rest
        // (with room for the summary) within budget; at worst just before
        // the last one, which is never summarised away.
        let points = cut_points(rows);
        if summarised || points.is_empty() {
            return Err(overflow(&req, window));
        }
        let room = "x".repeat(allowance(window) as usize * 4);
        let fits = |i: usize| {
            let (_, req) = trimmed(&d, &rows[i..], Some(&room), limit);
            (request_tokens(&req) <= limit, req)
        };
        let Some(cut) = points.iter().copied().find(|&i| fits(i).0) else {
            // Not even the last turn alone fits: summarising would not help.
            let last = points.last().copied().unwrap_or(0);
            return Err(overflow(&fits(last).1, window));
        };
        let row = summary::summarise(
            Summarise {
                store,
                session_id: t.session_id(),
                frame_id: t.frame_id,
                model,
                window: Some(window),
                previous: summary.as_ref(),
                rows: &rows[..cut],
                manual: false,
            },
            cancel.clone(),
        )
        .await?;
        t.emit(SessionEvent::ContextSummarized {
            session_id: t.session_id().to_string(),
            summary: summary::view(&row),
        });
        summary = Some(row);
        summarised = true;
    }
}
