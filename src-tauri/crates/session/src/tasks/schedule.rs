//! Cron expressions and time: parsing with a clear error, evaluation in the
//! person's IANA time zone (`croner` resolves DST gaps and overlaps as
//! Vixie cron does), and the clock the scheduler reads — a fake one in tests.

use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds};

/// What the scheduler asks for the time.
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that moves only when told (tests, benchmarks).
#[derive(Debug, Clone)]
pub struct FakeClock(Arc<Mutex<DateTime<Utc>>>);

impl FakeClock {
    pub fn at(t: DateTime<Utc>) -> Self {
        Self(Arc::new(Mutex::new(t)))
    }

    pub fn set(&self, t: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = t;
    }

    pub fn advance(&self, by: chrono::Duration) {
        let mut t = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *t += by;
    }
}

impl Clock for FakeClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The example every cron error shows.
pub const CRON_EXAMPLE: &str = "five fields — minute hour day-of-month month day-of-week — e.g. \
     \"0 9 * * 1-5\" (09:00 on weekdays) or \"*/30 * * * *\" (every 30 minutes)";

/// A cron expression bound to a time zone.
#[derive(Debug, Clone)]
pub struct Schedule {
    cron: Cron,
    tz: Tz,
}

impl Schedule {
    /// Parses `expr` (five fields, or an alias such as `@daily`) for `tz`.
    pub fn parse(expr: &str, tz: &str) -> Result<Self, String> {
        let tz = parse_time_zone(tz)?;
        let cron = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .build()
            .parse(expr)
            .map_err(|e| format!("invalid cron expression {expr:?} ({e}); use {CRON_EXAMPLE}"))?;
        Ok(Self { cron, tz })
    }

    /// The first run strictly after `t`, in UTC; `None` when it never runs again.
    pub fn next_after(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = t.with_timezone(&self.tz);
        self.cron
            .find_next_occurrence(&local, false)
            .ok()
            .map(|n| n.with_timezone(&Utc))
    }

    /// The expression in words ("At 09:00 on Monday through Friday").
    pub fn describe(&self) -> String {
        self.cron.describe()
    }

    pub fn time_zone(&self) -> Tz {
        self.tz
    }
}

/// An IANA time zone name, or a clear error.
pub fn parse_time_zone(name: &str) -> Result<Tz, String> {
    name.parse::<Tz>().map_err(|_| {
        format!("unknown time zone {name:?}; use an IANA name such as \"Europe/Berlin\" or \"UTC\"")
    })
}

/// The system's time zone (IANA name), else UTC.
pub fn system_time_zone() -> String {
    iana_time_zone::get_timezone()
        .ok()
        .filter(|n| parse_time_zone(n).is_ok())
        .unwrap_or_else(|| "UTC".to_string())
}

/// `ms` (UTC) as local time in `tz`, for people: `2026-03-30 09:00 CEST`.
pub fn local_label(ms: i64, tz: &str) -> String {
    let Ok(zone) = parse_time_zone(tz) else {
        return utc_label(ms);
    };
    match Utc.timestamp_millis_opt(ms).single() {
        Some(t) => t
            .with_timezone(&zone)
            .format("%Y-%m-%d %H:%M %Z")
            .to_string(),
        None => ms.to_string(),
    }
}

/// `ms` as RFC 3339 UTC.
pub fn utc_label(ms: i64) -> String {
    match Utc.timestamp_millis_opt(ms).single() {
        Some(t) => t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        None => ms.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn nine_every_weekday_stays_nine_local_across_the_spring_dst_change() {
        // Europe/Berlin moves from CET (+1) to CEST (+2) on 2026-03-29.
        let s = Schedule::parse("0 9 * * *", "Europe/Berlin").unwrap();
        let mut t = utc("2026-03-27T12:00:00Z");
        let mut runs = Vec::new();
        for _ in 0..4 {
            t = s.next_after(t).unwrap();
            runs.push(t.to_rfc3339());
        }
        assert_eq!(
            runs,
            [
                "2026-03-28T08:00:00+00:00",
                "2026-03-29T07:00:00+00:00",
                "2026-03-30T07:00:00+00:00",
                "2026-03-31T07:00:00+00:00",
            ]
        );
    }

    #[test]
    fn a_time_inside_the_skipped_hour_runs_once_that_day_and_an_autumn_repeat_once() {
        let s = Schedule::parse("30 2 * * *", "Europe/Berlin").unwrap();
        // 02:30 does not exist on 2026-03-29 (02:00 → 03:00): it runs once
        // that day, right after the gap, and at 02:30 CEST the next day.
        let first = s.next_after(utc("2026-03-28T12:00:00Z")).unwrap();
        assert_eq!(first, utc("2026-03-29T01:00:00Z"), "03:00 CEST");
        let second = s.next_after(first).unwrap();
        assert_eq!(second, utc("2026-03-30T00:30:00Z"));
        // 02:30 happens twice on 2026-10-25 (03:00 CEST → 02:00 CET): once.
        let a = s.next_after(utc("2026-10-24T12:00:00Z")).unwrap();
        let b = s.next_after(a).unwrap();
        assert_eq!(a.date_naive(), utc("2026-10-25T00:00:00Z").date_naive());
        assert_eq!(b.date_naive(), utc("2026-10-26T00:00:00Z").date_naive());
    }

    #[test]
    fn bad_expressions_and_zones_are_clear_errors_with_an_example() {
        let e = Schedule::parse("every morning", "UTC").unwrap_err();
        assert!(e.contains("invalid cron expression"), "{e}");
        assert!(e.contains("\"0 9 * * 1-5\""), "{e}");
        let e = Schedule::parse("0 0 9 * * *", "UTC").unwrap_err();
        assert!(e.contains("invalid cron expression"), "six fields: {e}");
        let e = Schedule::parse("0 9 * * *", "Mars/Olympus").unwrap_err();
        assert!(e.contains("unknown time zone"), "{e}");
        assert!(Schedule::parse("@daily", "UTC").is_ok());
    }

    #[test]
    fn labels_show_local_and_utc_time() {
        let ms = utc("2026-03-30T07:00:00Z").timestamp_millis();
        assert_eq!(local_label(ms, "Europe/Berlin"), "2026-03-30 09:00 CEST");
        assert_eq!(utc_label(ms), "2026-03-30T07:00:00Z");
    }
}
