//! Questions are answered only on purpose (issue 25), for every kind of question: a command,
//! a network call, an MCP tool, a scheduled job, the trust prompt and the diff review. Keys
//! typed in the 500 ms before one appears, or while the message box has the keys, never
//! answer it; Tab moves between it and the message box.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use super::app::{App, Focus};
use super::approvals::ANSWER_HOLD;
use super::snapshot_tests::{app, awaiting_diff, ev, text};
use crate::protocol::events::{AgentEvent, ApprovalPreview, UserOp};
use crate::protocol::{autonomy::Autonomy, intent::ScheduleIntent};

fn ask(app: &mut App, preview: ApprovalPreview) {
    ev(
        app,
        AgentEvent::ToolCall {
            id: "q1".into(),
            name: "tool".into(),
            arguments: json!({}),
            intent: None,
        },
    );
    ev(
        app,
        AgentEvent::ApprovalRequested {
            id: "q1".into(),
            name: "tool".into(),
            reason: "asked".into(),
            preview,
        },
    );
}

fn command(app: &mut App) {
    ask(
        app,
        ApprovalPreview::Command {
            command: "mkdir out && python3 gen.py".into(),
            cwd: ".".into(),
            risk: crate::protocol::risk::Risk::Medium,
            risk_reason: "creates files".into(),
            grant_offered: true,
            grant_prefix: Some("mkdir".into()),
            network: false,
            outside_sandbox: false,
        },
    );
}

fn network(app: &mut App) {
    ask(
        app,
        ApprovalPreview::Network {
            method: "GET".into(),
            url: "https://docs.rs/".into(),
            domain: "docs.rs".into(),
            risk: crate::protocol::risk::Risk::Low,
            risk_reason: "reads a page".into(),
        },
    );
}

fn mcp(app: &mut App) {
    ask(
        app,
        ApprovalPreview::McpTool {
            server: "files".into(),
            tool: "write".into(),
            arguments: "{}".into(),
            read_only_hint: false,
            grant_offered: true,
        },
    );
}

fn cron(app: &mut App) {
    ask(
        app,
        ApprovalPreview::Schedule {
            change: ScheduleIntent::Add {
                schedule: "@daily".into(),
                prompt: "run the tests".into(),
                approval: Autonomy::ReadOnly,
            },
        },
    );
}

fn trust(app: &mut App) {
    app.push_question(Box::new(super::layers::trust_prompt::TrustPrompt::new(
        ".loom/config.toml",
        Vec::new(),
    )));
}

/// A name and how to reach it.
type Scene = (&'static str, fn(&mut App));

/// Every kind of question box, by name.
const QUESTIONS: &[Scene] = &[
    ("command", command),
    ("network", network),
    ("mcp", mcp),
    ("cron", cron),
    ("trust", trust),
];

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(KeyEvent::from(KeyCode::Char(c)));
    }
}

/// Let a held `y` or `a` be given: the event loop's passes after [`ANSWER_HOLD`] with no
/// key.
fn let_hold_pass(app: &mut App) {
    app.give_held_answer(Instant::now() + ANSWER_HOLD);
}

fn answers(rx: &mut UnboundedReceiver<UserOp>) -> Vec<UserOp> {
    std::iter::from_fn(|| rx.try_recv().ok())
        .filter(|op| matches!(op, UserOp::Approve { .. }))
        .collect()
}

/// Regression (issue 25): "also add a test" typed as a command box appeared allowed the
/// command for the session (`a`) and ran it. Typing just before a box appears leaves the
/// keys with the message box, for every kind of question.
#[test]
fn a_question_that_appears_while_someone_types_answers_nothing() {
    for (name, question) in QUESTIONS {
        let (mut app, mut rx) = app("dark");
        typed(&mut app, "al");
        question(&mut app);
        typed(&mut app, "so add a test yes now");
        let sent = answers(&mut rx);
        assert!(sent.is_empty(), "{name}: answered {sent:?}");
        assert!(app.outbox.trust_answer.is_none(), "{name}: trust answered");
        assert_eq!(app.layers.len(), 1, "{name}: the box is still there");
        assert_eq!(app.composer.text(), "also add a test yes now", "{name}");
        let screen = text(&mut app, 120, 30);
        assert!(screen.contains("(waiting)"), "{name}:\n{screen}");
        assert!(screen.contains("Tab answers this"), "{name}:\n{screen}");
    }
}

/// Tab brings the keys to the box; `n` then answers it; Tab again gives them back, and
/// what is typed there stays there.
#[test]
fn tab_moves_between_a_question_and_the_message_box() {
    for (name, question) in QUESTIONS {
        let (mut app, mut rx) = app("dark");
        question(&mut app);
        assert!(
            !app.question_waits(),
            "{name}: nobody typed, the box has the keys"
        );
        app.on_key(KeyEvent::from(KeyCode::Tab));
        assert!(app.question_waits(), "{name}");
        assert_eq!(app.focus, Focus::Composer);
        typed(&mut app, "yan");
        assert!(
            answers(&mut rx).is_empty(),
            "{name}: answered from the message box"
        );
        assert_eq!(app.composer.text(), "yan", "{name}");
        app.on_key(KeyEvent::from(KeyCode::Tab));
        assert!(!app.question_waits(), "{name}");
        typed(&mut app, "n");
        let answered = app.outbox.trust_answer.is_some()
            || app
                .layers
                .iter()
                .any(|l| l.cursor(ratatui::layout::Rect::new(0, 0, 80, 24)).is_some());
        assert!(answered, "{name}: n refused (and asks why)");
    }
}

/// A key well before the box (more than 500 ms) does not hold it back.
#[test]
fn keys_long_before_a_question_do_not_hold_it_back() {
    let (mut app, mut rx) = app("dark");
    typed(&mut app, "hello");
    app.layers.last_key = Some(Instant::now() - Duration::from_millis(600));
    command(&mut app);
    assert!(!app.question_waits());
    typed(&mut app, "y");
    let_hold_pass(&mut app);
    assert_eq!(answers(&mut rx).len(), 1);
}

/// The diff review too: typing as it appears leaves the keys in the message box (its `a`
/// would allow every edit for the session); Tab reaches it.
#[test]
fn a_review_that_appears_while_someone_types_answers_nothing() {
    let (mut app, mut rx) = app("dark");
    typed(&mut app, "al");
    awaiting_diff(&mut app);
    typed(&mut app, "so add a test");
    assert!(answers(&mut rx).is_empty());
    assert!(!app.status.edits_allowed);
    assert_eq!(app.composer.text(), "also add a test");
    app.on_key(KeyEvent::from(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Details);
    typed(&mut app, "y");
    let_hold_pass(&mut app);
    assert_eq!(answers(&mut rx).len(), 1);
}

/// Keys typed ahead while Loom starts, with the trust prompt up from the first frame, go
/// to the message box (a `t` must not trust a project's config).
#[test]
fn keys_typed_ahead_at_start_do_not_answer_the_trust_prompt() {
    let (mut app, _rx) = app("dark");
    trust(&mut app);
    app.layers.typeahead_until = Some(Instant::now() + Duration::from_millis(500));
    typed(&mut app, "try this");
    assert!(app.outbox.trust_answer.is_none());
    assert_eq!(app.composer.text(), "try this");
    assert!(app.question_waits());
}

/// Regression (found by a helper trying Loom): a box that appeared while the person was
/// idle took the first letter of the message they then typed as its answer: "and also"
/// allowed every edit for the session (`a`), "you know" ran the command (`y`). A `y` or
/// `a` followed by more letters is the start of a message now: every letter goes to the
/// message box and the box waits, for every kind of question.
#[test]
fn a_message_begun_after_an_idle_question_appeared_answers_nothing() {
    for (name, question) in QUESTIONS {
        for message in ["and also", "you know"] {
            let (mut app, mut rx) = app("dark");
            question(&mut app);
            assert!(!app.question_waits(), "{name}: idle, the box has the keys");
            typed(&mut app, message);
            let_hold_pass(&mut app);
            let sent = answers(&mut rx);
            assert!(sent.is_empty(), "{name} {message:?}: answered {sent:?}");
            assert!(app.outbox.trust_answer.is_none(), "{name}: trust answered");
            assert_eq!(app.layers.len(), 1, "{name}: the box is still there");
            assert_eq!(app.composer.text(), message, "{name}");
            assert!(app.question_waits(), "{name}: the box waits");
        }
    }
}

/// A lone `y` (or `a`) still answers, once the hold has passed with no letter after it;
/// before that, nothing is given.
#[test]
fn a_lone_answer_is_given_when_no_letter_follows() {
    for (name, question) in QUESTIONS {
        let (mut app, mut rx) = app("dark");
        question(&mut app);
        typed(&mut app, "y");
        assert!(answers(&mut rx).is_empty(), "{name}: given at once");
        assert!(
            app.animating(),
            "{name}: the event loop keeps passing to give it"
        );
        let_hold_pass(&mut app);
        let given = !answers(&mut rx).is_empty() || app.outbox.trust_answer.is_some();
        assert!(given, "{name}: not given after the hold");
        assert!(app.composer.text().is_empty(), "{name}");
    }
    // `a` followed by a non-letter key (the arrow of someone reading the box) is given.
    let (mut app, mut rx) = app("dark");
    command(&mut app);
    typed(&mut app, "a");
    app.on_key(KeyEvent::from(KeyCode::Down));
    assert_eq!(answers(&mut rx).len(), 1);
}

/// The diff review the same way: "and also" typed into an idle review leaves it waiting
/// with every edit still asked about; a lone `a` allows them.
#[test]
fn a_message_begun_in_an_idle_review_answers_nothing() {
    let (mut app, mut rx) = app("dark");
    awaiting_diff(&mut app);
    assert_eq!(app.focus, Focus::Details);
    typed(&mut app, "and also");
    let_hold_pass(&mut app);
    assert!(answers(&mut rx).is_empty());
    assert!(!app.status.edits_allowed);
    assert_eq!(app.composer.text(), "and also");
    assert_eq!(app.focus, Focus::Composer);
    app.on_key(KeyEvent::from(KeyCode::Tab));
    typed(&mut app, "a");
    let_hold_pass(&mut app);
    assert_eq!(answers(&mut rx).len(), 1);
}
