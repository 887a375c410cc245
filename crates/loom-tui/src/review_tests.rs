//! Screens and keys of `/review`: the command's op, the findings list, an opened finding.

use crossterm::event::{KeyCode, KeyEvent};

use super::*;
use crate::protocol::events::AgentEvent;
use crate::protocol::review::Severity;
use crate::snapshot_tests::{app, ev, text};

fn sent(rx: &mut tokio::sync::mpsc::UnboundedReceiver<UserOp>) -> Vec<UserOp> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

fn finding(path: &str, line: u32, severity: Severity, text: &str) -> ReviewFinding {
    ReviewFinding {
        path: path.into(),
        line,
        severity,
        text: text.into(),
    }
}

fn findings() -> Vec<ReviewFinding> {
    vec![
        finding(
            "src/db.rs",
            4,
            Severity::Critical,
            "query built from user input",
        ),
        finding(
            "src/main.rs",
            2,
            Severity::Medium,
            "unwrap on a user-given path",
        ),
        finding("README.md", 1, Severity::Info, "typo in the title"),
    ]
}

#[test]
fn the_arguments_name_the_changes_and_the_rest_is_the_focus() {
    assert_eq!(
        parse_review_args(""),
        Ok((ReviewTarget::Uncommitted, String::new()))
    );
    assert_eq!(
        parse_review_args("--base main error handling"),
        Ok((ReviewTarget::Base("main".into()), "error handling".into()))
    );
    assert_eq!(
        parse_review_args("security --commit a1b2c3"),
        Ok((ReviewTarget::Commit("a1b2c3".into()), "security".into()))
    );
    assert!(parse_review_args("--commit").is_err());
    assert!(parse_review_args("--base --output=x").is_err());
    assert!(parse_review_args("--base a --commit b").is_err());
}

#[test]
fn slash_review_asks_the_agent_and_a_bad_one_says_how() {
    let (mut app, mut rx) = app("dark");
    app.command("review --commit HEAD look at errors");
    assert_eq!(
        sent(&mut rx),
        vec![UserOp::Review {
            target: ReviewTarget::Commit("HEAD".into()),
            focus: "look at errors".into()
        }]
    );
    app.command("review --base");
    assert!(sent(&mut rx).is_empty());
    let screen = text(&mut app, 100, 20);
    assert!(
        screen.contains("--base needs a branch or commit after it; usage:"),
        "{screen}"
    );
}

#[test]
fn findings_are_listed_and_one_opens_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/main.rs"),
        "fn main() {\n    let p = std::env::args().nth(1).unwrap();\n    run(&p);\n}\n",
    )
    .unwrap();
    let (mut app, _rx) = app("dark");
    app.draft.workspace_root = Some(dir.path().to_path_buf());
    ev(
        &mut app,
        AgentEvent::ReviewFindings {
            findings: findings(),
        },
    );
    let list = text(&mut app, 100, 20);
    assert!(list.contains("Review findings (3)"), "{list}");
    assert!(list.contains("› critical src/db.rs:4"), "{list}");
    insta::assert_snapshot!("review_findings_list", list);
    app.on_key(KeyEvent::from(KeyCode::Down));
    app.on_key(KeyEvent::from(KeyCode::Enter));
    let opened = text(&mut app, 100, 20);
    assert!(opened.contains("src/main.rs:2"), "{opened}");
    assert!(
        opened.contains("›    2     let p = std::env::args()"),
        "{opened}"
    );
    assert!(opened.contains("unwrap on a user-given path"), "{opened}");
    insta::assert_snapshot!("review_finding_opened", opened);
    app.on_key(KeyEvent::from(KeyCode::Esc));
    let back = text(&mut app, 100, 20);
    assert!(back.contains("› medium   src/main.rs:2  unwrap"), "{back}");
    app.on_key(KeyEvent::from(KeyCode::Esc));
    let closed = text(&mut app, 100, 20);
    assert!(!closed.contains("Review findings"), "{closed}");
    assert!(closed.contains("Review: 3 findings"), "{closed}");
}

#[test]
fn a_finding_outside_the_workspace_or_missing_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _rx) = app("dark");
    app.draft.workspace_root = Some(dir.path().to_path_buf());
    let list = vec![
        finding("../secret.txt", 1, Severity::High, "outside"),
        finding("gone.rs", 3, Severity::Low, "missing"),
    ];
    ev(&mut app, AgentEvent::ReviewFindings { findings: list });
    app.on_key(KeyEvent::from(KeyCode::Enter));
    let outside = text(&mut app, 100, 20);
    assert!(outside.contains("../secret.txt:"), "{outside}");
    app.on_key(KeyEvent::from(KeyCode::Esc));
    app.on_key(KeyEvent::from(KeyCode::Down));
    app.on_key(KeyEvent::from(KeyCode::Enter));
    let missing = text(&mut app, 100, 20);
    assert!(missing.contains("gone.rs does not exist"), "{missing}");
}

#[test]
fn no_findings_is_a_line_and_no_list() {
    let (mut app, _rx) = app("dark");
    ev(&mut app, AgentEvent::ReviewFindings { findings: vec![] });
    let screen = text(&mut app, 100, 20);
    assert!(screen.contains("Review: no findings"), "{screen}");
    assert!(!screen.contains("Review findings"), "{screen}");
}

/// Regression (issue 28): a review in plan mode ends with its findings, not with the
/// Plan ready box (the review's answer is no plan to run); the next turn offers its plan
/// again.
#[test]
fn a_review_in_plan_mode_offers_no_plan() {
    use crate::protocol::autonomy::Autonomy;
    use crate::protocol::events::{Phase, TurnEnd};
    use crate::protocol::usage::Usage;
    let (mut app, _rx) = app("dark");
    app.status.autonomy = Autonomy::Plan;
    let turn = |app: &mut App, review: bool| {
        ev(
            app,
            AgentEvent::StateChanged {
                phase: Phase::CallingLlm,
            },
        );
        if review {
            ev(
                app,
                AgentEvent::ReviewFindings {
                    findings: findings(),
                },
            );
        }
        ev(app, AgentEvent::StateChanged { phase: Phase::Idle });
        ev(
            app,
            AgentEvent::TurnComplete {
                usage: Usage::default(),
                end: TurnEnd::Done,
                unsent: Vec::new(),
                unsent_images: Vec::new(),
            },
        );
    };
    turn(&mut app, true);
    let screen = text(&mut app, 100, 24);
    assert!(screen.contains("Review findings (3)"), "{screen}");
    assert!(!screen.contains("Plan ready"), "{screen}");
    app.on_key(KeyEvent::from(KeyCode::Esc));
    let screen = text(&mut app, 100, 24);
    assert!(!screen.contains("Plan ready"), "{screen}");
    assert!(
        !screen.contains("Review findings"),
        "Esc closed the list: {screen}"
    );
    turn(&mut app, false);
    let screen = text(&mut app, 100, 24);
    assert!(screen.contains("Plan ready"), "{screen}");
}
