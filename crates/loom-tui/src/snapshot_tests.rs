//! Screen states as insta snapshots of the rendered buffer: every state a person can reach
//! that the issue names, at fixed sizes, with a fixed clock and paths.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tokio::sync::mpsc;

use super::app::App;
use crate::base::diff::FileDiff;
use crate::protocol::events::{AgentEvent, ApprovalPreview, Phase, TurnEnd, UserOp};
use crate::protocol::tool_result::ToolResult;
use crate::protocol::usage::Usage;

/// The app the snapshots are taken of (shared with other modules' tests).
pub(super) use super::test_support::app;

/// The screen's text, one line per row, trailing spaces trimmed.
pub(super) fn text(app: &mut App, w: u16, h: u16) -> String {
    let now = app.now;
    app.tick(now);
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    let buf = term.backend().buffer().clone();
    (0..h)
        .map(|y| {
            let mut row = String::new();
            let mut x = 0;
            while x < w {
                let symbol = buf[(x, y)].symbol();
                row.push_str(symbol);
                // A wide character's second cell is covered by the character itself.
                x += unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
            }
            row.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The full buffer, styles included (for theme snapshots).
fn styled(app: &mut App, w: u16, h: u16) -> String {
    let now = app.now;
    app.tick(now);
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    format!("{:?}", term.backend().buffer())
}

pub(super) fn ev(app: &mut App, e: AgentEvent) {
    app.on_agent_event(e);
}

fn conversation_with_code(app: &mut App) {
    ev(
        app,
        AgentEvent::UserMessage {
            text: "Add a greeting function".into(),
            queued: false,
        },
    );
    ev(
        app,
        AgentEvent::StateChanged {
            phase: Phase::CallingLlm,
        },
    );
    for piece in [
        "## Plan\n\nI'll add `greet` to ",
        "**src/lib.rs**:\n\n```rust\npub fn greet(name: &str) -> String {\n",
        "    format!(\"Hello, {name}!\")\n}\n```\n\nThen run the te",
    ] {
        ev(app, AgentEvent::TextDelta { text: piece.into() });
    }
}

#[test]
fn empty_session() {
    let (mut app, _rx) = app("dark");
    insta::assert_snapshot!(text(&mut app, 120, 30));
}

#[test]
fn empty_session_without_a_provider() {
    let (mut app, _rx) = app("dark");
    app.status.model = String::new();
    app.provider.welcome = Some(crate::test_support::how_to_configure());
    insta::assert_snapshot!(text(&mut app, 120, 30));
}

#[test]
fn streaming_answer_with_a_code_block() {
    let (mut app, _rx) = app("dark");
    conversation_with_code(&mut app);
    insta::assert_snapshot!(text(&mut app, 120, 30));
}

#[test]
fn tool_running() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::UserMessage {
            text: "run the tests".into(),
            queued: false,
        },
    );
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: Phase::ExecutingTools,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "Cargo.toml"}),
            intent: None,
        },
    );
    ev(&mut app, AgentEvent::ToolStarted { id: "c1".into() });
    ev(
        &mut app,
        AgentEvent::ToolResult {
            id: "c1".into(),
            name: "read_file".into(),
            result: ToolResult::ok("     1\t[package]\n"),
            duration_ms: 4,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "c2".into(),
            name: "bash".into(),
            arguments: json!({"command": "cargo test --all"}),
            intent: None,
        },
    );
    let start = app.now;
    ev(&mut app, AgentEvent::ToolStarted { id: "c2".into() });
    app.now = start + Duration::from_millis(2300);
    insta::assert_snapshot!(text(&mut app, 120, 24));
}

pub(super) fn awaiting_diff(app: &mut App) {
    let old: String = (1..=30)
        .map(|i| format!("    let value_{i} = {i};\n"))
        .collect();
    let new = old
        .replace("value_3 = 3", "value_3 = 300")
        .replace("value_25 = 25", "value_25 = compute(25)");
    let diff = FileDiff::compute(&old, &new);
    ev(
        app,
        AgentEvent::UserMessage {
            text: "tweak the values".into(),
            queued: false,
        },
    );
    ev(
        app,
        AgentEvent::StateChanged {
            phase: Phase::AwaitingApproval,
        },
    );
    ev(
        app,
        AgentEvent::ToolCall {
            id: "e1".into(),
            name: "edit_file".into(),
            arguments: json!({"path": "src/values.rs", "edits": [{}, {}]}),
            intent: None,
        },
    );
    ev(
        app,
        AgentEvent::ApprovalRequested {
            id: "e1".into(),
            name: "edit_file".into(),
            reason: "file changes are reviewed before they are written".into(),
            preview: ApprovalPreview::FileChange {
                path: "src/values.rs".into(),
                unified: diff.unified("a/src/values.rs", "b/src/values.rs"),
                diff,
                creates: false,
                notes: vec![],
            },
        },
    );
}

#[test]
fn diff_awaiting_approval_with_a_hunk_deselected() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    app.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char('j'),
    ));
    app.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char(' '),
    ));
    insta::assert_snapshot!(text(&mut app, 140, 36));
}

#[test]
fn refusal_asks_why() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    app.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char('n'),
    ));
    for c in "keep them".chars() {
        app.on_key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Char(c),
        ));
    }
    insta::assert_snapshot!(text(&mut app, 120, 30));
}

#[test]
fn session_diff_overlay() {
    let (mut app, _rx) = app("dark");
    let diff = FileDiff::compute("fn main() {}\n", "fn main() {\n    greet();\n}\n");
    ev(
        &mut app,
        AgentEvent::ChangeApplied {
            id: "w1".into(),
            path: "src/main.rs".into(),
            hunks: std::sync::Arc::new(diff.hunks),
            creates: false,
            deleted: false,
            moved_from: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolResult {
            id: "w1".into(),
            name: "edit_file".into(),
            result: ToolResult::ok("edited src/main.rs").with_files(vec!["src/main.rs".into()]),
            duration_ms: 4,
        },
    );
    app.submit("/diff");
    insta::assert_snapshot!(text(&mut app, 100, 20));
}

#[test]
fn undo_confirmation_with_a_conflict() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::UndoPlanned {
            redo: false,
            diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,1 @@\n pub mod a;\n-pub mod b;\n"
                .into(),
            files: vec!["src/lib.rs".into()],
            conflicts: vec!["src/lib.rs changed since Loom wrote it".into()],
        },
    );
    insta::assert_snapshot!(text(&mut app, 100, 20));
}

#[test]
fn command_approval_for_a_high_risk_command() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::UserMessage {
            text: "clean the build".into(),
            queued: false,
        },
    );
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: Phase::AwaitingApproval,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "b1".into(),
            name: "bash".into(),
            arguments: json!({"command": "rm -rf target && curl -o x.tgz https://example.com/x.tgz"}),
            intent: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ApprovalRequested {
            id: "b1".into(),
            name: "bash".into(),
            reason: "high risk".into(),
            preview: ApprovalPreview::Command {
                command: "rm -rf target && curl -o x.tgz https://example.com/x.tgz".into(),
                cwd: ".".into(),
                risk: crate::protocol::risk::Risk::High,
                risk_reason: "rm -r deletes the directory tree target".into(),
                grant_offered: false,
                grant_prefix: None,
                network: true,
                outside_sandbox: false,
            },
        },
    );
    insta::assert_snapshot!(text(&mut app, 120, 30));
}

#[test]
fn network_approval_for_a_fetch_with_a_finished_web_row() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "w0".into(),
            name: "web_search".into(),
            arguments: json!({"query": "serde derive"}),
            intent: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolResult {
            id: "w0".into(),
            name: "web_search".into(),
            result: crate::protocol::tool_result::ToolResult::ok("1. serde\n   https://serde.rs").with_data(
                json!({"results": [{"title": "serde", "url": "https://serde.rs", "snippet": ""}]}),
            ),
            duration_ms: 310,
        },
    );
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: Phase::AwaitingApproval,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "w1".into(),
            name: "web_fetch".into(),
            arguments: json!({"url": "https://serde.rs/derive.html?token=****"}),
            intent: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ApprovalRequested {
            id: "w1".into(),
            name: "web_fetch".into(),
            reason: "web_fetch to serde.rs is approved first, once per domain".into(),
            preview: ApprovalPreview::Network {
                method: "GET".into(),
                url: "https://serde.rs/derive.html?token=****".into(),
                domain: "serde.rs".into(),
                risk: crate::protocol::risk::Risk::Low,
                risk_reason: "reads https://serde.rs/derive.html?token=****".into(),
            },
        },
    );
    insta::assert_snapshot!(text(&mut app, 120, 30));
}

#[test]
fn error_and_retry_notices() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::UserMessage {
            text: "hello".into(),
            queued: false,
        },
    );
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: Phase::Error,
        },
    );
    ev(
        &mut app,
        AgentEvent::Retry {
            attempt: 2,
            max_attempts: 5,
            reason: "the model server answered 429: slow down".into(),
            wait_ms: 1500,
        },
    );
    ev(
        &mut app,
        AgentEvent::Error {
            message: "the model server answered 400: model not found: nope".into(),
        },
    );
    ev(
        &mut app,
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Failed,
            unsent: vec![],
            unsent_images: Vec::new(),
        },
    );
    ev(&mut app, AgentEvent::StateChanged { phase: Phase::Idle });
    insta::assert_snapshot!(text(&mut app, 110, 20));
}

#[test]
fn narrow_layout() {
    let (mut app, _rx) = app("dark");
    conversation_with_code(&mut app);
    insta::assert_snapshot!("narrow_chat", text(&mut app, 60, 20));
    app.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Tab,
    ));
    app.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Tab,
    ));
    insta::assert_snapshot!("narrow_tools", text(&mut app, 60, 20));
}

#[test]
fn wide_layout() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    insta::assert_snapshot!(text(&mut app, 200, 50));
}

#[test]
fn light_and_dark_themes() {
    for theme in ["light", "dark", "high-contrast"] {
        let (mut app, _rx) = app(theme);
        conversation_with_code(&mut app);
        insta::assert_snapshot!(format!("theme_{theme}"), styled(&mut app, 80, 16));
    }
}

#[test]
fn cjk_and_emoji() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::UserMessage {
            text: "日本語で説明して 🎉".into(),
            queued: false,
        },
    );
    ev(&mut app, AgentEvent::TextDelta { text: "これは**テスト**です。絵文字も大丈夫 👍🏽 and 中文字符 mixed with ASCII to wrap across the narrow pane.\n".into() });
    ev(
        &mut app,
        AgentEvent::AssistantMessage {
            text: String::new(),
        },
    );
    app.composer.insert("入力中 ✍️");
    insta::assert_snapshot!(text(&mut app, 70, 16));
}

#[test]
fn help_overlay() {
    let (mut app, _rx) = app("dark");
    app.submit("/help");
    insta::assert_snapshot!(text(&mut app, 110, 32));
}

#[test]
fn autocommit_switches_the_hook_and_rejects_other_words() {
    let (mut app, mut rx) = app("dark");
    app.submit("/autocommit on");
    assert_eq!(rx.try_recv().ok(), Some(UserOp::SetAutoCommit { on: true }));
    app.submit("/autocommit off");
    assert_eq!(
        rx.try_recv().ok(),
        Some(UserOp::SetAutoCommit { on: false })
    );
    app.submit("/autocommit maybe");
    assert!(
        rx.try_recv().is_err(),
        "nothing is sent for a word it does not know"
    );
    assert!(text(&mut app, 100, 20).contains("usage: /autocommit [on|off]"));
}

/// Regression (issue 25): at 60×20 `/help` left the descriptions 12 columns and broke
/// their words; on a narrow screen each description goes under its name, whole lines.
#[test]
fn help_at_60x20_puts_descriptions_under_the_names() {
    let (mut app, _rx) = app("dark");
    app.submit("/help");
    let screen = text(&mut app, 60, 20);
    assert!(
        screen.contains("      start a new conversation"),
        "{screen}"
    );
    assert!(
        screen.contains("      shrink the conversation now: cut big tool"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn help_scrolls_to_its_end_on_a_small_screen() {
    let (mut app, _rx) = app("dark");
    app.submit("/help");
    // A page is the rows the box shows: draw once so it knows them.
    text(&mut app, 60, 20);
    for _ in 0..14 {
        app.on_key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::PageDown,
        ));
    }
    let screen = text(&mut app, 60, 20);
    assert!(screen.contains("Ctrl+C twice"), "the last key is reachable");
    insta::assert_snapshot!(screen);
}

/// Every value a command offers for completion is one it accepts (completion, parsing and
/// `/help` come from one table).
#[test]
fn every_offered_value_is_accepted() {
    for command in super::slash::COMMANDS {
        let (probe, _rx) = app("dark");
        for value in (command.values)(&probe) {
            let (mut app, _rx) = app("dark");
            app.submit(&format!("/{} {value}", command.name));
            let screen = text(&mut app, 120, 40);
            assert!(
                !screen.contains("usage:") && !screen.contains("unknown command"),
                "/{} {value}: {screen}",
                command.name
            );
        }
    }
    let (mut app, _rx) = app("dark");
    app.submit("/nonsense");
    assert!(text(&mut app, 120, 30).contains("unknown command /nonsense"));
}

/// Regression (issue 11): `/approval` and `/autocommit` without an argument were usage
/// errors; they show the current value and the choices.
#[test]
fn approval_and_autocommit_without_an_argument_show_the_current_value() {
    let (mut app, _rx) = app("dark");
    app.submit("/approval");
    app.submit("/autocommit");
    let screen = text(&mut app, 220, 30);
    assert!(
        screen.contains(
            "approval mode: supervised (choices: read-only, supervised, full-auto, plan)"
        ),
        "{screen}"
    );
    assert!(screen.contains("auto-commit is off"), "{screen}");
    assert!(!screen.contains("usage:"), "{screen}");
}

/// Regression (issue 11): after `a` in a review the status bar still said "supervised",
/// as if edits would still be asked about.
#[test]
fn approving_edits_for_the_session_shows_on_the_status_line() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    answer_key(&mut app, 'a');
    let screen = text(&mut app, 140, 30);
    let status = screen.lines().last().unwrap();
    assert!(status.contains("supervised · edits allowed"), "{status}");
    app.submit("/approval");
    assert!(text(&mut app, 220, 30).contains("file edits are allowed without asking"));
}

fn trust_prompt() -> super::layers::trust_prompt::TrustPrompt {
    use crate::protocol::trust::Loosening;
    let l = |key: &str, what: &str| Loosening {
        key: key.into(),
        what: what.into(),
    };
    super::layers::trust_prompt::TrustPrompt::new(
        ".loom/config.toml",
        vec![
            l("sandbox", "switches the command sandbox off"),
            l(
                "approval.mode",
                "sets the approval mode to full-auto, which asks less",
            ),
            l("tools.env", "passes AWS_SECRET_ACCESS_KEY to every command"),
            l("hooks.post_tools", "runs `make deploy` after every change"),
        ],
    )
}

#[test]
fn trust_prompt_for_an_untrusted_project_config() {
    let (mut app, _rx) = app("dark");
    app.layers.push(Box::new(trust_prompt()));
    insta::assert_snapshot!(text(&mut app, 100, 30));
}

#[test]
fn trust_prompt_answers_with_t_or_n_and_swallows_other_keys() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let key = |c: char| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    let (mut app, _rx) = app("dark");
    app.layers.push(Box::new(trust_prompt()));
    app.on_key(key('x'));
    assert_eq!(app.outbox.trust_answer, None);
    assert_eq!(app.composer.text(), "", "the prompt swallows typing");
    answer_key(&mut app, 't');
    assert_eq!(app.outbox.trust_answer, Some(true));
    assert!(app.layers.is_empty());
    let (mut app, _rx) = app_with_prompt();
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert_eq!(app.outbox.trust_answer, Some(false));
}

fn app_with_prompt() -> (App, mpsc::UnboundedReceiver<UserOp>) {
    let (mut app, rx) = app("dark");
    app.layers.push(Box::new(trust_prompt()));
    (app, rx)
}

fn press(app: &mut App, code: crossterm::event::KeyCode) {
    app.on_key(crossterm::event::KeyEvent::from(code));
}

/// Press the answer `c` (`y`, `a`, `t`) and let the frames after its hold pass with no
/// other key, so it is given (see `approvals.rs`).
pub(crate) fn answer_key(app: &mut App, c: char) {
    app.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char(c),
    ));
    app.give_held_answer(std::time::Instant::now() + super::approvals::ANSWER_HOLD);
}

/// Regression (issue 11): during a diff review, after one Tab, `y` was typed into the
/// message box and the file stayed unchanged. Review keys now reach the review whatever
/// pane had focus; only the message box, reached on purpose, types.
#[test]
fn review_keys_reach_the_review_whatever_pane_had_focus() {
    for focus in [super::app::Focus::Chat, super::app::Focus::Tools] {
        let (mut app, mut rx) = app("dark");
        awaiting_diff(&mut app);
        app.focus = focus;
        answer_key(&mut app, 'y');
        assert!(
            matches!(
                rx.try_recv(),
                Ok(UserOp::Approve {
                    answer: crate::protocol::events::ApprovalAnswer::Approve,
                    ..
                })
            ),
            "{focus:?}"
        );
        assert_eq!(app.composer.text(), "");
    }
}

#[test]
fn tab_leaves_a_review_on_purpose_and_returns_to_it() {
    use crossterm::event::KeyCode;
    let (mut app, mut rx) = app("dark");
    awaiting_diff(&mut app);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, super::app::Focus::Composer);
    press(&mut app, KeyCode::Char('y'));
    assert_eq!(
        app.composer.text(),
        "y",
        "typing in the message box is deliberate"
    );
    assert!(rx.try_recv().is_err(), "nothing was approved");
    let screen = text(&mut app, 120, 40);
    assert!(
        screen.contains("a change waits for your review"),
        "{screen}"
    );
    press(&mut app, KeyCode::Tab);
    answer_key(&mut app, 'y');
    assert!(matches!(rx.try_recv(), Ok(UserOp::Approve { .. })));
}

#[test]
fn review_at_60x20() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    insta::assert_snapshot!(text(&mut app, 60, 20));
}

#[test]
fn review_at_80x24() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    insta::assert_snapshot!(text(&mut app, 80, 24));
}

#[test]
fn review_at_120x40() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    insta::assert_snapshot!(text(&mut app, 120, 40));
}

#[test]
fn review_at_200x50() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    insta::assert_snapshot!(text(&mut app, 200, 50));
}

#[test]
fn review_keys_overlay() {
    let (mut app, _rx) = app("dark");
    awaiting_diff(&mut app);
    press(&mut app, crossterm::event::KeyCode::Char('?'));
    insta::assert_snapshot!(text(&mut app, 80, 24));
}
