//! The resume picker (issue 25), at 60×20, 80×24 and 120×40: the sessions with their titles,
//! ages and counts; filtered by typing; the box at start (Esc starts a new session).

use crossterm::event::{KeyCode, KeyEvent};

use super::app::App;
use super::layers::resume_picker::{ResumePicker, SessionItem};
use super::snapshot_tests::{app, text};

fn sessions() -> Vec<SessionItem> {
    let item = |id: &str, title: &str, age: &str, messages, changes| SessionItem {
        id: id.into(),
        title: title.into(),
        age: age.into(),
        messages,
        changes,
        workspace: None,
    };
    vec![
        item(
            "20261122-091500-a1b2",
            "fix the flaky retry test in the HTTP client",
            "just now",
            12,
            3,
        ),
        item(
            "20261121-174210-c3d4",
            "add a --verbose flag that prints every request",
            "15h ago",
            48,
            7,
        ),
        item(
            "20261120-101010-e5f6",
            "why does cargo build take so long here?",
            "2d ago",
            6,
            0,
        ),
        item("20261118-080000-0a0b", "/init", "4d ago", 4, 1),
        item(
            "20261101-120000-9c9d",
            "rename Config::load to Config::read everywhere",
            "21d ago",
            1,
            1,
        ),
    ]
}

fn picking(at_start: bool) -> App {
    let (mut app, _rx) = app("dark");
    app.layers
        .push(Box::new(ResumePicker::with_items(sessions(), at_start)));
    app
}

#[test]
fn resume_picker_at_60x20() {
    let mut app = picking(true);
    insta::assert_snapshot!(text(&mut app, 60, 20));
}

#[test]
fn resume_picker_at_80x24() {
    let mut app = picking(true);
    insta::assert_snapshot!(text(&mut app, 80, 24));
}

#[test]
fn resume_picker_at_120x40() {
    let mut app = picking(false);
    insta::assert_snapshot!(text(&mut app, 120, 40));
}

/// Typing filters: "verb" leaves the session about the flag, highlighted for Enter.
#[test]
fn resume_picker_filtered_at_80x24() {
    let mut app = picking(false);
    for c in "verb".chars() {
        app.on_key(KeyEvent::from(KeyCode::Char(c)));
    }
    let screen = text(&mut app, 80, 24);
    assert!(screen.contains("› add a --verbose flag"), "{screen}");
    assert!(!screen.contains("flaky retry"), "{screen}");
    insta::assert_snapshot!(screen);
}
