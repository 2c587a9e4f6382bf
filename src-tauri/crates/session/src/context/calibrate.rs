//! The estimate, calibrated by what the provider counted. An assistant
//! message stores the usage of the request that produced it: its prompt
//! tokens are the truth for everything before it. The request about to be
//! sent is that prefix plus what came since, so its size is the reported
//! count plus the estimate of only the new part. Expressed as a correction
//! of the whole estimate — reported minus the estimate of that prefix built
//! again now — which shifts the budget the estimate is held to.

use skald_store::{MessageRow, Role, SummaryRow};

use super::{request_tokens, trim_tool_results};
use crate::turn::Draft;

/// Reported/estimated ratios outside this band are not trusted: a provider
/// that counts only the tokens it did not have cached (Ollama's
/// `prompt_eval_count` after a prefix is reused) reports far too few.
const LOWEST_RATIO: f64 = 0.5;
const HIGHEST_RATIO: f64 = 4.0;

/// The newest message among `rows` whose request the provider counted, sent
/// with the same stand-in as now (made after `summary`): its index and the
/// prompt tokens reported.
fn anchor(rows: &[MessageRow], summary: Option<&SummaryRow>) -> Option<(usize, u32)> {
    let (at, row) = rows
        .iter()
        .enumerate()
        .rev()
        .find(|(_, r)| r.role == Role::Assistant && reported(r).is_some())?;
    if summary.is_some_and(|s| row.created_at <= s.created_at) {
        return None;
    }
    Some((at, reported(row)?))
}

fn reported(r: &MessageRow) -> Option<u32> {
    let n = r.extras.usage.as_ref()?.input_tokens;
    u32::try_from(n).ok().filter(|n| *n > 0)
}

/// How many tokens the provider counted beyond the estimate (negative:
/// fewer) for the part of this request already sent once; 0 when nothing
/// was reported or the report is not to be trusted.
pub(crate) fn correction(
    d: &Draft<'_>,
    rows: &[MessageRow],
    summary: Option<&SummaryRow>,
    budget: u32,
) -> i64 {
    let Some((at, reported)) = anchor(rows, summary) else {
        return 0;
    };
    // That request as it was: the rows before the answer, trimmed as a
    // request over budget would have been.
    let mut prefix = d.build(&rows[..at], summary.map(|s| s.content.as_str()));
    trim_tool_results(&mut prefix, budget);
    let estimated = request_tokens(&prefix);
    if estimated == 0 {
        return 0;
    }
    let ratio = f64::from(reported) / f64::from(estimated);
    if !(LOWEST_RATIO..=HIGHEST_RATIO).contains(&ratio) {
        tracing::debug!(reported, estimated, "reported prompt tokens not trusted");
        return 0;
    }
    i64::from(reported) - i64::from(estimated)
}

/// The budget for the estimate: `budget` less the correction (so that
/// estimate + correction stays within `budget`).
pub(crate) fn shifted(budget: u32, correction: i64) -> u32 {
    u32::try_from((i64::from(budget) - correction).max(0)).unwrap_or(u32::MAX)
}

/// The calibrated size of a request estimated at `estimated`.
pub(crate) fn calibrated(estimated: u32, correction: i64) -> u32 {
    u32::try_from((i64::from(estimated) + correction).max(0)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_moves_against_the_correction() {
        assert_eq!(shifted(1000, 300), 700);
        assert_eq!(shifted(1000, -300), 1300);
        assert_eq!(shifted(100, 300), 0);
        assert_eq!(calibrated(700, 300), 1000);
        assert_eq!(calibrated(100, -300), 0);
    }
}
