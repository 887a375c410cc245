//! Deciding about changes to scheduled jobs (`cron_add`, `cron_remove`).
//!
//! A scheduled job is work that will run later, again and again, with nobody at the
//! keyboard. So these calls are their own class, with two rules:
//!
//! 1. Adding or removing a job always needs the person's approval: wherever someone can
//!    answer it asks, in every mode, full-auto included (a recurring job outlives the
//!    session, so a prompt injected into one turn must not install it silently), and never
//!    with a "for this session" grant. In `loom exec` (nobody to ask) it is refused unless
//!    the run is full-auto, where the person said up front that nothing asks.
//! 2. A job never runs with more autonomy than the person approved: the mode a job asks
//!    for must be at most the session's own. Asking for more is refused in every mode,
//!    full-auto's budget and the person's approval notwithstanding (the person can add
//!    such a job themselves with `loom cron add --approval MODE`).
//!
//! The scheduler then runs each job headless in exactly its stored mode (see
//! `crate::cron`), so what would ask is refused there, as in `loom exec`.

use super::call::{Assessment, CallIntent, ScheduleIntent};
use super::commands::Risk;
use super::{Autonomy, Decision};

/// How much a mode allows, for comparing modes: read-only and plan < supervised < full-auto.
pub fn rank(mode: Autonomy) -> u8 {
    match mode {
        Autonomy::ReadOnly | Autonomy::Plan => 0,
        Autonomy::Supervised => 1,
        Autonomy::FullAuto => 2,
    }
}

/// Decide about the call `name` that changes scheduled jobs as `intent` says, in a session
/// at `autonomy` where someone can (`interactive`) or cannot answer.
pub fn decide(
    name: &str,
    intent: &CallIntent,
    autonomy: Autonomy,
    interactive: bool,
) -> (Decision, Assessment) {
    if autonomy == Autonomy::Plan {
        let reason = super::plan_mode_refusal(name, "no scheduled job may be added or removed");
        return (
            Decision::Deny {
                reason: reason.clone(),
            },
            Assessment::plain(Risk::Medium, reason),
        );
    }
    let Some(schedule) = intent.as_schedule() else {
        let reason = format!("{name} changes scheduled jobs but did not say which");
        return (
            Decision::Deny {
                reason: reason.clone(),
            },
            Assessment::plain(Risk::High, reason),
        );
    };
    let assessment = match schedule {
        ScheduleIntent::Add {
            schedule,
            prompt,
            approval,
        } => {
            if rank(*approval) > rank(autonomy) {
                let reason = format!(
                    "{name} asks for a job that runs in {approval} mode, more autonomy than \
                     this session has ({autonomy}): a job never runs with more autonomy than \
                     the person approved. Ask for {autonomy} or less; the person can add it \
                     themselves with `loom cron add --approval {approval}`"
                );
                return (
                    Decision::Deny {
                        reason: reason.clone(),
                    },
                    Assessment::plain(Risk::High, reason),
                );
            }
            Assessment::plain(
                Risk::High,
                format!(
                    "schedules a job ({schedule}) that runs headless in {approval} mode with \
                     nobody at the keyboard: {}",
                    one_line(prompt)
                ),
            )
        }
        ScheduleIntent::Remove { id, job } => Assessment::plain(
            Risk::Medium,
            format!("removes the scheduled job {id} ({})", one_line(job)),
        ),
    };
    let decision = match autonomy {
        Autonomy::FullAuto if !interactive => Decision::Allow,
        _ => Decision::Ask {
            reason: format!(
                "scheduled jobs change only with your approval: {}",
                assessment.reason
            ),
        },
    };
    (decision, assessment)
}

/// The first line of `text`, cut to 120 columns.
fn one_line(text: &str) -> String {
    loom_base::text::truncate(text.lines().next().unwrap_or(""), 120)
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::super::{Policy, ToolKind};
    use super::*;

    fn add(approval: Autonomy) -> CallIntent {
        CallIntent::schedules(ScheduleIntent::Add {
            schedule: "0 3 * * *".into(),
            prompt: "run the tests and fix what fails".into(),
            approval,
        })
    }

    fn remove() -> CallIntent {
        CallIntent::schedules(ScheduleIntent::Remove {
            id: "a1b2c3".into(),
            job: "0 3 * * *: run the tests".into(),
        })
    }

    fn decide(p: &Policy, name: &str, intent: &CallIntent) -> Decision {
        p.decide(name, intent, None, Instant::now()).decision
    }

    const MODES: [Autonomy; 3] = [Autonomy::ReadOnly, Autonomy::Supervised, Autonomy::FullAuto];

    /// Rule 1: in read-only and supervised mode, adding a job asks, and the reason says
    /// what would run, when and how.
    #[test]
    fn schedule_add_asks_in_read_only_and_supervised() {
        for mode in [Autonomy::ReadOnly, Autonomy::Supervised] {
            let p = Policy::new(mode);
            match decide(&p, "cron_add", &add(Autonomy::ReadOnly)) {
                Decision::Ask { reason } => {
                    assert!(reason.contains("only with your approval"), "{reason}");
                    assert!(reason.contains("0 3 * * *"), "{reason}");
                    assert!(reason.contains("read-only mode"), "{reason}");
                    assert!(reason.contains("run the tests"), "{reason}");
                }
                other => panic!("{mode}: {other:?}"),
            }
        }
    }

    /// Rule 1: removing a job asks the same way.
    #[test]
    fn schedule_remove_asks_in_read_only_and_supervised() {
        for mode in [Autonomy::ReadOnly, Autonomy::Supervised] {
            match decide(&Policy::new(mode), "cron_remove", &remove()) {
                Decision::Ask { reason } => assert!(reason.contains("a1b2c3"), "{reason}"),
                other => panic!("{mode}: {other:?}"),
            }
        }
    }

    /// Rule 1: full-auto adds and removes without asking.
    #[test]
    fn schedule_changes_ask_in_full_auto_and_run_in_full_auto_exec() {
        let p = Policy::new(Autonomy::FullAuto);
        for (name, intent) in [
            ("cron_add", add(Autonomy::FullAuto)),
            ("cron_remove", remove()),
        ] {
            assert!(
                matches!(decide(&p, name, &intent), Decision::Ask { .. }),
                "{name}: someone can answer, so even full-auto asks"
            );
        }
        let headless = Policy::new(Autonomy::FullAuto).headless();
        assert_eq!(
            decide(&headless, "cron_add", &add(Autonomy::FullAuto)),
            Decision::Allow
        );
        assert_eq!(decide(&headless, "cron_remove", &remove()), Decision::Allow);
    }

    /// Rule 1, headless: nobody can approve, so every mode but full-auto refuses.
    #[test]
    fn schedule_changes_are_denied_headless_unless_full_auto() {
        for mode in [Autonomy::ReadOnly, Autonomy::Supervised] {
            let p = Policy::new(mode).headless();
            for (name, intent) in [
                ("cron_add", add(Autonomy::ReadOnly)),
                ("cron_remove", remove()),
            ] {
                match decide(&p, name, &intent) {
                    Decision::Deny { reason } => assert!(reason.contains("headless"), "{reason}"),
                    other => panic!("{mode} {name}: {other:?}"),
                }
            }
        }
        let p = Policy::new(Autonomy::FullAuto).headless();
        assert_eq!(
            decide(&p, "cron_add", &add(Autonomy::Supervised)),
            Decision::Allow
        );
    }

    /// Rule 2: a job asking for more autonomy than the session has is refused in every
    /// mode, before anyone is asked; as much or less is not.
    #[test]
    fn schedule_add_with_more_autonomy_than_the_session_is_refused() {
        for session in MODES {
            for job in MODES {
                let d = decide(&Policy::new(session), "cron_add", &add(job));
                if rank(job) > rank(session) {
                    match d {
                        Decision::Deny { reason } => {
                            assert!(reason.contains("more autonomy than"), "{reason}");
                            assert!(
                                reason.contains(&format!("loom cron add --approval {job}")),
                                "{reason}"
                            );
                        }
                        other => panic!("session {session}, job {job}: {other:?}"),
                    }
                } else {
                    assert!(
                        !matches!(d, Decision::Deny { .. }),
                        "session {session}, job {job}: {d:?}"
                    );
                }
            }
        }
    }

    /// Rule 1: "for this session" never covers job changes: the next one asks again.
    #[test]
    fn schedule_changes_get_no_session_grant() {
        let mut p = Policy::new(Autonomy::Supervised);
        let ruling = p.decide("cron_add", &add(Autonomy::ReadOnly), None, Instant::now());
        assert!(ruling.assessment.grant.is_none());
        let said = p.grant(ToolKind::Schedule, &ruling.assessment);
        assert_eq!(said, "Approved once.");
        assert!(matches!(
            decide(&p, "cron_add", &add(Autonomy::ReadOnly)),
            Decision::Ask { .. }
        ));
    }

    /// A schedule call that does not say what it schedules is refused: since the intent
    /// is an enum (issue 27) it cannot be built, and its JSON is refused as it is read.
    #[test]
    fn a_schedule_call_without_its_schedule_part_is_refused() {
        let err = serde_json::from_value::<CallIntent>(serde_json::json!({"kind": "schedule"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("a schedule call without `schedule`"), "{err}");
    }

    /// Job changes count against the hourly action budget, like writes and commands.
    #[test]
    fn schedule_changes_count_against_the_hourly_budget() {
        let mut p = Policy::new(Autonomy::FullAuto).with_budget(1);
        let now = Instant::now();
        p.record_action(ToolKind::Schedule, now);
        assert!(matches!(
            p.decide("cron_add", &add(Autonomy::ReadOnly), None, now)
                .decision,
            Decision::Ask { .. }
        ));
    }
}
