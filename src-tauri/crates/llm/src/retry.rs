//! `RetryPolicy`: how often and how long to wait before retrying a retriable failure.
//!
//! Only the delay arithmetic lives here; the transport decides when a retry is allowed (never
//! after an event has been yielded to the caller).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Exponential backoff with a cap; a provider's `Retry-After` is honoured up to the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// The delay before the first retry; doubled for each further one.
    pub base_delay: Duration,
    /// No wait is ever longer than this, whatever the backoff or `Retry-After` say.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// `max_retries` retries starting at `base_delay` (handy for tests with millisecond delays).
    pub fn new(max_retries: u32, base_delay: Duration) -> Self {
        RetryPolicy {
            max_retries,
            base_delay,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (0-based): the provider's `retry_after` when it
    /// gave one, otherwise `base_delay * 2^retry` with ±10% jitter; both capped at `max_delay`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let wait = match retry_after {
            Some(d) => d,
            None => {
                let exp = self
                    .base_delay
                    .saturating_mul(2u32.saturating_pow(retry.min(20)));
                jitter(exp)
            }
        };
        wait.min(self.max_delay)
    }
}

/// ±10% jitter from the clock's nanoseconds: enough to de-synchronise concurrent agents
/// hitting the same rate limit, without a random-number dependency.
fn jitter(d: Duration) -> Duration {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|t| t.subsec_nanos())
        .unwrap_or(0);
    let factor = 0.9 + f64::from(nanos % 1000) / 5000.0;
    d.mul_f64(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = RetryPolicy {
            max_retries: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        let d0 = p.delay(0, None);
        let d2 = p.delay(2, None);
        assert!(d0 >= Duration::from_millis(90) && d0 <= Duration::from_millis(110));
        assert!(d2 >= Duration::from_millis(360) && d2 <= Duration::from_millis(440));
        assert_eq!(p.delay(9, None), Duration::from_secs(1));
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let p = RetryPolicy::new(3, Duration::from_millis(10));
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(3600))),
            Duration::from_secs(30)
        );
    }
}
