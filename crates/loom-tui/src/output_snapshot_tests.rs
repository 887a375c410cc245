//! Finished commands' output under their rows in the chat (issue 25): the last lines with
//! the exit code and time, whole with Ctrl+O, at 60×20, 80×24 and 120×40.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

use super::app::App;
use super::snapshot_tests::{app, ev, text};
use crate::protocol::events::{AgentEvent, Phase, TurnEnd};
use crate::protocol::tool_result::ToolResult;
use crate::protocol::usage::Usage;

fn bash(app: &mut App, id: &str, command: &str, stdout: &str, stderr: &str, code: i64) {
    ev(
        app,
        AgentEvent::ToolCall {
            id: id.into(),
            name: "bash".into(),
            arguments: json!({ "command": command }),
            intent: None,
        },
    );
    ev(app, AgentEvent::ToolStarted { id: id.into() });
    let mut result = ToolResult::ok(format!("exit code {code}")).with_data(json!({
        "exit_code": code, "stdout": stdout, "stderr": stderr,
        "timed_out": false, "truncated": false, "duration_ms": 1840,
    }));
    result.success = code == 0;
    ev(
        app,
        AgentEvent::ToolResult {
            id: id.into(),
            name: "bash".into(),
            result,
            duration_ms: 1840,
        },
    );
}

/// A turn that ran the tests (twelve lines, coloured, the first a header) and a failing
/// one-line command, then answered.
fn commands_ran(app: &mut App) {
    ev(
        app,
        AgentEvent::UserMessage {
            text: "run the tests".into(),
            queued: false,
        },
    );
    ev(
        app,
        AgentEvent::StateChanged {
            phase: Phase::ExecutingTools,
        },
    );
    let mut tests = String::from("\x1b[1mrunning 10 tests\x1b[0m\n");
    for i in 1..=10 {
        tests.push_str(&format!("test case_{i} ... \x1b[32mok\x1b[0m\n"));
    }
    tests.push_str("\x1b[2J\x1b]0;title\x07test result: \x1b[32mok\x1b[0m. 10 passed\n");
    bash(app, "b1", "cargo test", &tests, "", 0);
    bash(
        app,
        "b2",
        "cat missing.txt",
        "",
        "cat: missing.txt: No such file\n",
        1,
    );
    ev(
        app,
        AgentEvent::TextDelta {
            text: "All 10 tests pass.".into(),
        },
    );
    ev(
        app,
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Done,
            unsent: vec![],
            unsent_images: Vec::new(),
        },
    );
    ev(app, AgentEvent::StateChanged { phase: Phase::Idle });
}

#[test]
fn command_output_at_60x20() {
    let (mut app, _rx) = app("dark");
    commands_ran(&mut app);
    insta::assert_snapshot!(text(&mut app, 60, 20));
}

#[test]
fn command_output_at_80x24() {
    let (mut app, _rx) = app("dark");
    commands_ran(&mut app);
    insta::assert_snapshot!(text(&mut app, 80, 24));
}

#[test]
fn command_output_at_120x40() {
    let (mut app, _rx) = app("dark");
    commands_ran(&mut app);
    insta::assert_snapshot!(text(&mut app, 120, 40));
}

/// Ctrl+O shows every line in place, the first included; again, the last lines only.
#[test]
fn command_output_expanded_at_120x40() {
    let (mut app, _rx) = app("dark");
    commands_ran(&mut app);
    let ctrl_o = KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL);
    app.on_key(ctrl_o);
    let screen = text(&mut app, 120, 40);
    assert!(screen.contains("│ running 10 tests"), "{screen}");
    insta::assert_snapshot!(screen);
    app.on_key(ctrl_o);
    assert!(!text(&mut app, 120, 40).contains("│ running 10 tests"));
}
