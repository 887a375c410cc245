//! What the scheduler does about one job at one moment: nothing yet, run it, or report
//! the runs it missed. Pure: the clock and the scheduler's start time come in as values.
//!
//! The rules. A run due before the scheduler started (by more than [`GRACE`]) was missed:
//! the scheduler was not running. It is reported (a line on stderr, a count on the job),
//! never replayed, and the job waits for its next time. A run due while the scheduler
//! runs is run, once, even if late (another job was running, the machine slept); the
//! occurrences that passed meanwhile are counted as missed.

use chrono::{DateTime, Duration, Utc};

use super::schedule::Schedule;
use super::store::{Job, next_run};

/// How long before the scheduler started a run may have been due and still run: a
/// scheduler restarted a moment late (a service restart) does not skip what just came due.
pub const GRACE: Duration = Duration::seconds(60);

/// The most missed occurrences counted at once (an every-minute job unattended for a year
/// need not be walked minute by minute).
const MAX_COUNTED: u64 = 10_000;

/// What to do about a job now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Not due yet (or never again).
    Wait,
    /// Run it now.
    Run,
    /// Its due runs were missed: record them and wait for `next`.
    Missed {
        /// How many occurrences were missed (at least 1).
        count: u64,
        /// When the last missed one was due.
        last_due: DateTime<Utc>,
        /// When it runs next.
        next: Option<DateTime<Utc>>,
    },
}

/// What to do about `job` (whose schedule is `schedule`) at `now`, for a scheduler that
/// started at `started`.
pub fn step(job: &Job, schedule: &Schedule, now: DateTime<Utc>, started: DateTime<Utc>) -> Step {
    let Some(due) = job.next_run else {
        return Step::Wait;
    };
    if due > now {
        return Step::Wait;
    }
    if due >= started - GRACE {
        return Step::Run;
    }
    let (count, last_due) = occurrences(schedule, due, now);
    Step::Missed {
        count,
        last_due,
        next: next_run(schedule, now),
    }
}

/// The occurrences from `first` (one, included) up to `until`: how many, and the last.
pub fn occurrences(
    schedule: &Schedule,
    first: DateTime<Utc>,
    until: DateTime<Utc>,
) -> (u64, DateTime<Utc>) {
    let (mut count, mut last) = (1, first);
    while count < MAX_COUNTED {
        match next_run(schedule, last) {
            Some(t) if t <= until => {
                count += 1;
                last = t;
            }
            _ => break,
        }
    }
    (count, last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Autonomy;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn job(next: Option<&str>) -> Job {
        Job {
            id: "j".into(),
            schedule: "* * * * *".into(),
            prompt: "p".into(),
            approval: Autonomy::ReadOnly,
            created_at: at("2026-01-01T00:00:00Z"),
            added_by: "t".into(),
            next_run: next.map(at),
            last_run: None,
            missed: 0,
            last_missed: None,
        }
    }

    #[test]
    fn not_due_waits_and_due_runs() {
        let s = Schedule::parse("* * * * *").unwrap();
        let started = at("2026-11-20T10:00:00Z");
        let j = job(Some("2026-11-20T10:05:00Z"));
        assert_eq!(
            step(&j, &s, at("2026-11-20T10:04:59Z"), started),
            Step::Wait
        );
        assert_eq!(step(&j, &s, at("2026-11-20T10:05:00Z"), started), Step::Run);
        assert_eq!(
            step(&job(None), &s, at("2026-11-20T10:05:00Z"), started),
            Step::Wait
        );
    }

    /// Due while the scheduler ran (it was busy or asleep): late, but run once.
    #[test]
    fn a_late_run_due_since_the_start_still_runs() {
        let s = Schedule::parse("* * * * *").unwrap();
        let started = at("2026-11-20T10:00:00Z");
        let j = job(Some("2026-11-20T10:01:00Z"));
        assert_eq!(step(&j, &s, at("2026-11-20T13:00:00Z"), started), Step::Run);
        let j = job(Some("2026-11-20T09:59:30Z"));
        assert_eq!(
            step(&j, &s, started, started),
            Step::Run,
            "within the grace"
        );
    }

    /// Due before the scheduler started: reported with how many were missed, not run.
    /// (Every minute, so the local time zone the scheduler reads schedules in does not
    /// matter here.)
    #[test]
    fn runs_due_before_the_start_are_missed_not_replayed() {
        let s = Schedule::parse("* * * * *").unwrap();
        let now = at("2026-11-20T10:00:30Z");
        let j = job(Some("2026-11-20T09:57:00Z"));
        assert_eq!(
            step(&j, &s, now, now),
            Step::Missed {
                count: 4,
                last_due: at("2026-11-20T10:00:00Z"),
                next: Some(at("2026-11-20T10:01:00Z")),
            }
        );
    }

    #[test]
    fn counting_is_bounded() {
        let s = Schedule::parse("* * * * *").unwrap();
        let (count, _) = occurrences(&s, at("2000-01-01T00:00:00Z"), at("2026-01-01T00:00:00Z"));
        assert_eq!(count, MAX_COUNTED);
    }
}
