//! Screens and keys of rewind and fork: the prompt list, the confirmation's diff, the
//! prompt back in the message box, `Esc Esc` between turns, `/fork`.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};

use super::*;
use crate::snapshot_tests::{app, ev, text};

fn prompts() -> Vec<PromptEntry> {
    vec![
        PromptEntry {
            n: 1,
            text: "add a greeting to hello.txt".into(),
            changes: 3,
        },
        PromptEntry {
            n: 2,
            text: "now make the build script print it\n\nand log it".into(),
            changes: 1,
        },
        PromptEntry {
            n: 3,
            text: "explain what you did".into(),
            changes: 0,
        },
    ]
}

fn sent(rx: &mut tokio::sync::mpsc::UnboundedReceiver<UserOp>) -> Vec<UserOp> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

#[test]
fn rewind_list_picks_a_prompt_and_asks_for_its_plan() {
    let (mut app, mut rx) = app("dark");
    app.command("rewind");
    assert_eq!(sent(&mut rx), vec![UserOp::RewindList]);
    ev(&mut app, AgentEvent::RewindPrompts { prompts: prompts() });
    let screen = text(&mut app, 100, 20);
    assert!(screen.contains("› 3. explain what you did"), "{screen}");
    insta::assert_snapshot!(screen);
    app.on_key(KeyEvent::from(KeyCode::Up));
    app.on_key(KeyEvent::from(KeyCode::Enter));
    assert_eq!(
        sent(&mut rx),
        vec![UserOp::Rewind {
            prompt: 2,
            apply: false,
            force: false
        }]
    );
}

#[test]
fn rewind_confirm_shows_the_diff_and_y_rewinds() {
    let (mut app, mut rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::RewindPlanned {
            prompt: 1,
            text: "add a greeting to hello.txt".into(),
            diff: "--- a/hello.txt\n+++ b/hello.txt\n@@ -1,2 +1 @@\n old\n-hello\n--- a/out.log\n+++ /dev/null\n@@ -1 +0,0 @@\n-built\n".into(),
            files: vec!["hello.txt".into(), "out.log".into()],
            conflicts: Vec::new(),
        },
    );
    let screen = text(&mut app, 100, 24);
    assert!(screen.contains("Rewind to before prompt 1"), "{screen}");
    assert!(screen.contains("-hello"), "{screen}");
    insta::assert_snapshot!(screen);
    app.on_key(KeyEvent::from(KeyCode::Char('y')));
    assert_eq!(
        sent(&mut rx),
        vec![UserOp::Rewind {
            prompt: 1,
            apply: true,
            force: false
        }]
    );
}

#[test]
fn a_conflicted_rewind_needs_f_and_n_cancels() {
    let (mut app, mut rx) = app("dark");
    let planned = || AgentEvent::RewindPlanned {
        prompt: 2,
        text: "x".into(),
        diff: String::new(),
        files: vec!["a.txt".into()],
        conflicts: vec!["a.txt changed since Loom wrote it".into()],
    };
    ev(&mut app, planned());
    app.on_key(KeyEvent::from(KeyCode::Char('y')));
    assert!(sent(&mut rx).is_empty(), "y does not overwrite");
    app.on_key(KeyEvent::from(KeyCode::Char('f')));
    assert_eq!(
        sent(&mut rx),
        vec![UserOp::Rewind {
            prompt: 2,
            apply: true,
            force: true
        }]
    );
    ev(&mut app, planned());
    app.on_key(KeyEvent::from(KeyCode::Char('n')));
    assert!(sent(&mut rx).is_empty());
    assert!(app.layers.last().is_none(), "closed");
}

#[test]
fn a_rewind_puts_the_prompt_back_in_the_message_box() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::Rewound {
            prompt: 2,
            text: "now make the build script print it".into(),
            files: vec!["build.sh".into()],
        },
    );
    assert_eq!(app.composer.text(), "now make the build script print it");
    let screen = text(&mut app, 100, 20);
    assert!(
        screen.contains("Rewound to just before prompt 2"),
        "{screen}"
    );
    assert!(screen.contains("restored build.sh"), "{screen}");
}

/// Regression (found by a helper): a rewind put its prompt in the message box over what
/// was being typed, which was lost. The draft now goes into the history, and ↑ brings it
/// back.
#[test]
fn a_rewind_keeps_the_draft_it_replaces_in_the_history() {
    let (mut app, _rx) = app("dark");
    app.composer.set_text("my precious draft");
    ev(
        &mut app,
        AgentEvent::Rewound {
            prompt: 2,
            text: "now make the build script print it".into(),
            files: Vec::new(),
        },
    );
    assert_eq!(app.composer.text(), "now make the build script print it");
    let screen = text(&mut app, 120, 20);
    assert!(
        screen.contains("What you were typing is in the history"),
        "{screen}"
    );
    app.on_key(KeyEvent::from(KeyCode::Up));
    assert_eq!(app.composer.text(), "my precious draft");
}

#[test]
fn esc_esc_between_turns_opens_the_list_but_not_when_slow() {
    let (mut app, mut rx) = app("dark");
    let t = Instant::now();
    assert!(!app.idle_esc(t));
    assert!(
        !app.idle_esc(t + DOUBLE_ESC + Duration::from_millis(1)),
        "too slow"
    );
    assert!(sent(&mut rx).is_empty());
    assert!(app.idle_esc(t + DOUBLE_ESC + Duration::from_millis(300)));
    assert_eq!(sent(&mut rx), vec![UserOp::RewindList]);
    // Through the keys: two Escs in a row between turns; another key between resets.
    app.on_key(KeyEvent::from(KeyCode::Esc));
    app.on_key(KeyEvent::from(KeyCode::Char('x')));
    app.on_key(KeyEvent::from(KeyCode::Esc));
    assert!(sent(&mut rx).is_empty(), "a key between the Escs");
    app.on_key(KeyEvent::from(KeyCode::Esc));
    assert_eq!(sent(&mut rx), vec![UserOp::RewindList]);
}

#[test]
fn esc_during_a_turn_stops_it_and_opens_nothing() {
    let (mut app, mut rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: crate::protocol::events::Phase::CallingLlm,
        },
    );
    app.on_key(KeyEvent::from(KeyCode::Esc));
    app.on_key(KeyEvent::from(KeyCode::Esc));
    assert_eq!(sent(&mut rx), vec![UserOp::Interrupt, UserOp::Interrupt]);
}

#[test]
fn fork_and_rewind_arguments() {
    let (mut app, mut rx) = app("dark");
    app.command("fork");
    app.command("fork 2");
    app.command("rewind 3");
    assert_eq!(
        sent(&mut rx),
        vec![
            UserOp::Fork { prompt: None },
            UserOp::Fork { prompt: Some(2) },
            UserOp::Rewind {
                prompt: 3,
                apply: false,
                force: false
            }
        ]
    );
    app.command("fork two");
    app.command("rewind 0");
    assert!(sent(&mut rx).is_empty());
    ev(
        &mut app,
        AgentEvent::Forked {
            id: "20260101-000000-abcd".into(),
            prompt: Some(2),
        },
    );
    ev(&mut app, AgentEvent::RewindPrompts { prompts: vec![] });
    let screen = text(&mut app, 240, 20);
    assert!(screen.contains("usage: /fork [N]"), "{screen}");
    assert!(screen.contains("usage: /rewind [N]"), "{screen}");
    assert!(
        screen.contains("Forked session 20260101-000000-abcd"),
        "{screen}"
    );
    assert!(screen.contains("continues the fork"), "{screen}");
    assert!(screen.contains("No prompt to rewind to"), "{screen}");
}
