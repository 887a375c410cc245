//! `loom cron run`: the foreground scheduler. It holds the workspace's scheduler lock,
//! reads the jobs file every tick (so jobs added or removed by other processes are seen),
//! and runs due jobs one at a time; missed runs are reported and recorded, never replayed
//! (see [`super::plan`]). After each run the job records when it ran, how it ended and
//! the session it ran as.
//!
//! How a job runs is the caller's: the command line passes a runner that starts a
//! headless session through the same path as `loom exec` (`crate::commands::cron`). This
//! loop knows no agent. Cancelling `stop` (SIGINT, SIGTERM) ends the loop between runs at
//! once, and during a run as soon as the runner has stopped it and its outcome is recorded.

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, Local, Utc};
use tokio_util::sync::CancellationToken;

use super::plan::{self, Step};
use super::schedule::Schedule;
use super::store::{Job, JobStore, LastRun, StoreError, next_run};

/// How often the jobs file is read when nothing else wakes the scheduler.
pub const DEFAULT_TICK: Duration = Duration::from_secs(1);

/// The tick, from the hidden `LOOM_CRON_TICK_MS` (for tests: a shorter tick keeps them
/// fast; clamped to 20 ms – 60 s), else [`DEFAULT_TICK`].
pub fn tick_from_env(env: &dyn Fn(&str) -> Option<String>) -> Duration {
    env("LOOM_CRON_TICK_MS")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|ms| Duration::from_millis(ms.clamp(20, 60_000)))
        .unwrap_or(DEFAULT_TICK)
}

/// How one run ended, as the runner reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// `done`, `failed: …`, `interrupted`, … (recorded on the job and printed).
    pub outcome: String,
    /// The session the run was recorded as, when one started.
    pub session_id: Option<String>,
}

/// A time for people: local, to the second.
pub fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// Run `store`'s due jobs with `run_job` until `stop` is cancelled, reading the jobs
/// file every `tick`; `say` gets each line for the person (stderr). Refused with
/// [`StoreError::Busy`] when another scheduler runs this workspace's jobs.
pub async fn run<F, Fut>(
    store: &JobStore,
    stop: &CancellationToken,
    tick: Duration,
    mut run_job: F,
    mut say: impl FnMut(&str),
) -> Result<(), StoreError>
where
    F: FnMut(Job) -> Fut,
    Fut: Future<Output = RunReport>,
{
    let _lock = store.lock_scheduler()?;
    let started = Utc::now();
    let count = store.list().map(|j| j.len()).unwrap_or(0);
    say(&format!(
        "loom cron: running the jobs of {} ({count} now); stop with Ctrl+C or SIGTERM",
        store.workspace().display()
    ));
    let mut unreadable: Option<String> = None;
    let mut bad_schedules: Vec<String> = Vec::new();
    while !stop.is_cancelled() {
        let jobs = read_jobs(store, &mut unreadable, &mut say);
        // After a run the file is read again at once: a run can take long, and the other
        // jobs may have changed meanwhile.
        let mut ran = false;
        for job in jobs {
            if stop.is_cancelled() {
                break;
            }
            let schedule = match Schedule::parse(&job.schedule) {
                Ok(s) => s,
                Err(e) => {
                    if !bad_schedules.contains(&job.id) {
                        say(&format!("loom cron: job {} is skipped: {e}", job.id));
                        bad_schedules.push(job.id.clone());
                    }
                    continue;
                }
            };
            match plan::step(&job, &schedule, Utc::now(), started) {
                Step::Wait => {}
                Step::Missed {
                    count,
                    last_due,
                    next,
                } => missed(store, &job.id, (count, last_due), next, &mut say),
                Step::Run => {
                    let due = job.next_run.unwrap_or_else(Utc::now);
                    let id = job.id.clone();
                    say(&format!(
                        "loom cron: job {id} ({}, {} mode) starts: {}",
                        job.schedule,
                        job.approval,
                        job.prompt.lines().next().unwrap_or("")
                    ));
                    let at = Utc::now();
                    let report = run_job(job).await;
                    ran_job(store, &id, &schedule, (due, at), &report, &mut say);
                    ran = true;
                    break;
                }
            }
        }
        if ran {
            continue;
        }
        tokio::select! {
            _ = tokio::time::sleep(tick) => {}
            _ = stop.cancelled() => {}
        }
    }
    say("loom cron: stopped");
    Ok(())
}

/// The jobs in the store now; none when the file cannot be read, which is said once per
/// different failure (`unreadable` is the last one said).
fn read_jobs(
    store: &JobStore,
    unreadable: &mut Option<String>,
    say: &mut impl FnMut(&str),
) -> Vec<Job> {
    match store.list() {
        Ok(jobs) => {
            *unreadable = None;
            jobs
        }
        Err(e) => {
            let message = e.to_string();
            if unreadable.as_ref() != Some(&message) {
                say(&format!("loom cron: {message}"));
                *unreadable = Some(message);
            }
            Vec::new()
        }
    }
}

/// Say and record that job `id` missed `count` runs, the last due at `last_due`, while no
/// scheduler ran (they are not replayed; the next is at `next`).
fn missed(
    store: &JobStore,
    id: &str,
    (count, last_due): (u64, DateTime<Utc>),
    next: Option<DateTime<Utc>>,
    say: &mut impl FnMut(&str),
) {
    say(&format!(
        "loom cron: job {id} missed {count} run(s) (the last due {}) while no \
         scheduler ran; not replayed, next run {}",
        local(last_due),
        next.map(local).unwrap_or_else(|| "never".into())
    ));
    record(store, id, say, |j| {
        j.missed += count;
        j.last_missed = Some(last_due);
        j.next_run = next;
    });
}

/// Say and record how job `id` ran (due at `due`, started at `at`) and when it runs next;
/// occurrences that came due while it ran were missed.
fn ran_job(
    store: &JobStore,
    id: &str,
    schedule: &Schedule,
    (due, at): (DateTime<Utc>, DateTime<Utc>),
    report: &RunReport,
    say: &mut impl FnMut(&str),
) {
    let finished = Utc::now();
    let next = next_run(schedule, finished);
    let skipped = next_run(schedule, due)
        .filter(|first| *first <= finished)
        .map(|first| plan::occurrences(schedule, first, finished));
    say(&format!(
        "loom cron: job {id} {}{}; next run {}",
        report.outcome,
        report
            .session_id
            .as_ref()
            .map(|s| format!(" (session {s})"))
            .unwrap_or_default(),
        next.map(local).unwrap_or_else(|| "never".into())
    ));
    if let Some((count, last)) = skipped {
        say(&format!(
            "loom cron: job {id} missed {count} run(s) while it ran (the last \
             due {}); not replayed",
            local(last)
        ));
    }
    record(store, id, say, |j| {
        j.last_run = Some(LastRun {
            at,
            outcome: report.outcome.clone(),
            session_id: report.session_id.clone(),
        });
        j.next_run = next;
        if let Some((count, last)) = skipped {
            j.missed += count;
            j.last_missed = Some(last);
        }
    });
}

/// Change job `id` in the store; a job removed meanwhile is only reported.
fn record(store: &JobStore, id: &str, say: &mut impl FnMut(&str), change: impl FnOnce(&mut Job)) {
    let done = store.update(|jobs| Ok(jobs.iter_mut().find(|j| j.id == id).map(change).is_some()));
    match done {
        Ok(true) => {}
        Ok(false) => say(&format!(
            "loom cron: job {id} was removed meanwhile; nothing recorded"
        )),
        Err(e) => say(&format!("loom cron: cannot record job {id}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tick_comes_from_the_hidden_variable_within_bounds() {
        assert_eq!(tick_from_env(&|_| None), DEFAULT_TICK);
        let env =
            |v: &'static str| move |k: &str| (k == "LOOM_CRON_TICK_MS").then(|| v.to_string());
        assert_eq!(tick_from_env(&env("200")), Duration::from_millis(200));
        assert_eq!(tick_from_env(&env("0")), Duration::from_millis(20));
        assert_eq!(tick_from_env(&env("x")), DEFAULT_TICK);
    }
}
