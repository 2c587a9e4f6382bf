//! Live progress of a running execution: the tail of its output so far and
//! an optional progress message. An execution that reports progress hands
//! out a [`ProgressWatch`] from [`ToolExecution::progress`]; the tool's work
//! writes through a [`ProgressReporter`]. The channel keeps only the latest
//! snapshot, so a slow reader coalesces updates instead of queueing them and
//! a tool never waits for its card.
//!
//! [`ToolExecution::progress`]: crate::ToolExecution::progress

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::{ExecutionOutcome, ToolExecution, drive_execution};

/// How much of the output a snapshot keeps (its end).
pub const PROGRESS_TAIL_BYTES: usize = 4 * 1024;
/// At most one progress update per this interval reaches the driver.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// A running call's progress as its card shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolProgress {
    /// The last [`PROGRESS_TAIL_BYTES`] of the output so far, cut on a
    /// character boundary.
    pub output: String,
    /// How many bytes of output there were in all.
    pub output_bytes: u64,
    /// What the tool says it is doing (an MCP progress message).
    pub message: Option<String>,
    /// Progress so far, in the tool's units (an MCP `progress`).
    pub progress: Option<f64>,
    /// The expected end, when known (an MCP `total`).
    pub total: Option<f64>,
}

/// The reading end: the latest [`ToolProgress`].
pub type ProgressWatch = watch::Receiver<ToolProgress>;

/// The writing end a tool's work reports through. Cheap to clone; reports
/// never block and never fail (nobody listening is fine).
#[derive(Clone)]
pub struct ProgressReporter {
    tx: Arc<watch::Sender<ToolProgress>>,
}

impl ProgressReporter {
    /// A reporter and the watch its execution hands out.
    pub fn channel() -> (Self, ProgressWatch) {
        let (tx, rx) = watch::channel(ToolProgress::default());
        (Self { tx: Arc::new(tx) }, rx)
    }

    /// Appends output as it was produced (bytes: a chunk may end inside a
    /// character; the snapshot is decoded lossily).
    pub fn output(&self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        self.tx.send_modify(|p| {
            p.output_bytes += chunk.len() as u64;
            p.output.push_str(&String::from_utf8_lossy(chunk));
            if p.output.len() > PROGRESS_TAIL_BYTES {
                let mut cut = p.output.len() - PROGRESS_TAIL_BYTES;
                while !p.output.is_char_boundary(cut) {
                    cut += 1;
                }
                p.output.drain(..cut);
            }
        });
    }

    /// Sets the progress message and figures (MCP `notifications/progress`).
    pub fn status(&self, message: Option<String>, progress: Option<f64>, total: Option<f64>) {
        self.tx.send_modify(|p| {
            if message.is_some() {
                p.message = message;
            }
            p.progress = progress;
            p.total = total;
        });
    }
}

/// [`drive_execution`], passing the execution's progress to `on_progress`
/// while it runs: at most one snapshot per [`PROGRESS_INTERVAL`], the latest
/// one (the ones in between are skipped, not queued). The outcome is exactly
/// what `drive_execution` gives.
pub async fn drive_with_progress(
    exec: &dyn ToolExecution,
    cancel: CancellationToken,
    mut on_progress: impl FnMut(&ToolProgress),
) -> ExecutionOutcome {
    let Some(mut rx) = exec.progress() else {
        return drive_execution(exec, cancel).await;
    };
    let drive = drive_execution(exec, cancel);
    tokio::pin!(drive);
    loop {
        tokio::select! {
            biased;
            outcome = &mut drive => return outcome,
            changed = rx.changed() => {
                if changed.is_err() {
                    return drive.await;
                }
                let snapshot = rx.borrow_and_update().clone();
                on_progress(&snapshot);
                tokio::select! {
                    biased;
                    outcome = &mut drive => return outcome,
                    () = tokio::time::sleep(PROGRESS_INTERVAL) => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SimpleExecution, ToolOutput};

    #[test]
    fn the_tail_is_bounded_and_counts_every_byte() {
        let (p, rx) = ProgressReporter::channel();
        for _ in 0..1000 {
            p.output("é12345678\n".as_bytes());
        }
        let s = rx.borrow().clone();
        assert_eq!(s.output_bytes, 11_000);
        assert!(s.output.len() <= PROGRESS_TAIL_BYTES, "{}", s.output.len());
        assert!(s.output.ends_with("é12345678\n"));
        p.status(Some("step 2".into()), Some(2.0), Some(5.0));
        p.status(None, Some(3.0), Some(5.0));
        let s = rx.borrow().clone();
        assert_eq!(
            (s.message.as_deref(), s.progress, s.total),
            (Some("step 2"), Some(3.0), Some(5.0))
        );
    }

    #[tokio::test]
    async fn updates_are_throttled_and_the_outcome_is_unchanged() {
        let exec = SimpleExecution::with_progress(|p| {
            Box::pin(async move {
                for i in 0..50u32 {
                    p.output(format!("{i}\n").as_bytes());
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Ok::<_, crate::ToolError>("done".to_string())
            })
        });
        let mut seen = Vec::new();
        let started = std::time::Instant::now();
        let outcome = drive_with_progress(&exec, CancellationToken::new(), |p| {
            seen.push(p.output_bytes)
        })
        .await;
        let took = started.elapsed();
        assert_eq!(
            outcome,
            ExecutionOutcome::Completed(ToolOutput::text("done"))
        );
        // 50 reports over ≥ 500 ms of work, one update per 100 ms at most (a
        // loaded machine stretches the work, not the rate).
        let most = took.as_millis() / PROGRESS_INTERVAL.as_millis() + 1;
        assert!(seen.len() >= 2, "{seen:?}");
        assert!(
            seen.len() as u128 <= most,
            "{} updates in {took:?}: {seen:?}",
            seen.len()
        );
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    }
}
