//! The approval of a scheduled job: the box shows what would run, when and in which mode,
//! and offers no "for this session" (every job change asks again).

use serde_json::json;

use super::snapshot_tests::{app, ev, text};
use crate::protocol::events::ApprovalAnswer;
use crate::protocol::events::{AgentEvent, ApprovalPreview, Phase, UserOp};
use crate::protocol::{autonomy::Autonomy, intent::ScheduleIntent};

#[test]
fn cron_add_approval() {
    let (mut app, mut rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: Phase::AwaitingApproval,
        },
    );
    let arguments = json!({"schedule": "0 3 * * *", "prompt": "run the tests and fix what fails", "approval": "supervised"});
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "c1".into(),
            name: "cron_add".into(),
            arguments,
            intent: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ApprovalRequested {
            id: "c1".into(),
            name: "cron_add".into(),
            reason: "scheduled jobs change only with your approval: schedules a job (0 3 * * *) \
                     that runs headless in supervised mode with nobody at the keyboard: run the \
                     tests and fix what fails"
                .into(),
            preview: ApprovalPreview::Schedule {
                change: ScheduleIntent::Add {
                    schedule: "0 3 * * *".into(),
                    prompt: "run the tests and fix what fails".into(),
                    approval: Autonomy::Supervised,
                },
            },
        },
    );
    let screen = text(&mut app, 120, 30);
    assert!(screen.contains("Schedule this job?"), "{screen}");
    assert!(
        screen.contains("runs in supervised mode, headless"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
    super::snapshot_tests::answer_key(&mut app, 'a');
    assert!(
        std::iter::from_fn(|| rx.try_recv().ok()).all(|op| !matches!(op, UserOp::Approve { .. })),
        "no session grant for job changes"
    );
    super::snapshot_tests::answer_key(&mut app, 'y');
    let sent = std::iter::from_fn(|| rx.try_recv().ok()).collect::<Vec<_>>();
    assert!(
        sent.contains(&UserOp::Approve {
            id: "c1".into(),
            answer: ApprovalAnswer::Approve
        }),
        "{sent:?}"
    );
}
