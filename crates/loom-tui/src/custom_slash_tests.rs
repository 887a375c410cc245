//! Custom slash commands in the popup and how they run, and the keys of the message box's
//! history search (`Ctrl+R`) and editor (`Ctrl+G`), with snapshots of what they show.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::App;
use super::snapshot_tests::{app, ev, text};
use crate::protocol::custom_command::{CommandScope, CustomCommandInfo, PastPrompt};
use crate::protocol::events::{AgentEvent, UserOp};

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::from(code));
}

fn ctrl(app: &mut App, c: char) {
    app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn command(
    name: &str,
    description: &str,
    hint: Option<&str>,
    scope: CommandScope,
) -> CustomCommandInfo {
    CustomCommandInfo {
        name: name.into(),
        description: description.into(),
        argument_hint: hint.map(str::to_string),
        scope,
        file: format!(".loom/commands/{name}.md"),
    }
}

fn listed(app: &mut App) {
    ev(
        app,
        AgentEvent::CustomCommands {
            commands: vec![
                command("help", "my own help", None, CommandScope::Project),
                command(
                    "recheck",
                    "Review a file for bugs",
                    Some("[file]"),
                    CommandScope::Project,
                ),
                command(
                    "frontend:component",
                    "Make a component",
                    Some("NAME"),
                    CommandScope::User,
                ),
                command("release", "Cut a release", None, CommandScope::User),
            ],
            warnings: vec![
                ".loom/commands/odd.md: unknown frontmatter key `colour`; ignored".into(),
            ],
        },
    );
}

fn sent(rx: &mut tokio::sync::mpsc::UnboundedReceiver<UserOp>) -> Vec<UserOp> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

/// The popup lists the custom commands after the built-ins, with their argument hints and
/// descriptions; a custom `/help` is hidden (the built-in wins) and said once.
#[test]
fn custom_commands_follow_the_built_ins_in_the_popup() {
    let (mut app, _rx) = app("dark");
    listed(&mut app);
    listed(&mut app);
    key(&mut app, KeyCode::Char('/'));
    typed(&mut app, "re");
    let screen = text(&mut app, 100, 30);
    insta::assert_snapshot!("custom_commands_popup", screen);
    let hidden = screen.matches("the built-in /help wins").count();
    assert_eq!(
        hidden, 1,
        "the hidden command is warned about once:\n{screen}"
    );
    let said = screen.matches("unknown frontmatter key").count();
    assert_eq!(said, 1, "a file's warning is said once:\n{screen}");
    let lines: Vec<&str> = screen.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap();
    assert!(
        at("/redo") < at("/recheck [file]"),
        "built-ins first:\n{screen}"
    );
}

/// Enter on a custom command asks the agent to run it with what follows its name; a
/// partly typed name runs the highlighted one; a built-in's name runs the built-in.
#[test]
fn a_custom_command_is_run_by_the_agent() {
    let (mut app, mut rx) = app("dark");
    listed(&mut app);
    sent(&mut rx);
    app.composer.set_text("/recheck src/a.rs  twice");
    key(&mut app, KeyCode::Enter);
    app.composer.set_text("/frontend:comp");
    key(&mut app, KeyCode::Enter);
    app.composer.set_text("/help");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        sent(&mut rx),
        vec![
            UserOp::RunCustomCommand {
                name: "recheck".into(),
                arguments: "src/a.rs  twice".into()
            },
            UserOp::RunCustomCommand {
                name: "frontend:component".into(),
                arguments: String::new()
            },
        ]
    );
    assert!(!app.layers.is_empty(), "the built-in /help opened");
}

/// `/commands` asks for the list again and shows it when it comes.
#[test]
fn slash_commands_reloads_and_lists() {
    let (mut app, mut rx) = app("dark");
    app.composer.set_text("/commands");
    key(&mut app, KeyCode::Enter);
    assert_eq!(sent(&mut rx), vec![UserOp::ListCustomCommands]);
    listed(&mut app);
    let screen = text(&mut app, 120, 30);
    assert!(screen.contains("3 custom command(s)"), "{screen}");
    assert!(
        screen.contains("/recheck [file] — Review a file for bugs"),
        "{screen}"
    );
}

fn searching() -> (App, tokio::sync::mpsc::UnboundedReceiver<UserOp>) {
    let (mut app, mut rx) = app("dark");
    for p in [
        "cargo test -p core",
        "explain the parser",
        "fix the failing test",
    ] {
        app.composer.remember(p);
    }
    app.composer.set_text("half typed");
    ctrl(&mut app, 'r');
    assert_eq!(sent(&mut rx), vec![UserOp::PromptHistory]);
    ev(
        &mut app,
        AgentEvent::PromptHistory {
            prompts: vec![
                PastPrompt {
                    text: "fix the failing test".into(),
                    here: true,
                },
                PastPrompt {
                    text: "write a test\nfor the lexer".into(),
                    here: true,
                },
                PastPrompt {
                    text: "test the other repo".into(),
                    here: false,
                },
            ],
        },
    );
    (app, rx)
}

/// `Ctrl+R` lists the earlier prompts that contain what is typed, newest first (this
/// session's, this workspace's, then others'), the chosen one standing in the box.
#[test]
fn ctrl_r_searches_earlier_prompts_as_you_type() {
    let (mut app, _rx) = searching();
    typed(&mut app, "test");
    insta::assert_snapshot!("history_search_matches", text(&mut app, 100, 24));
    assert_eq!(app.composer.text(), "fix the failing test");
    ctrl(&mut app, 'r');
    assert_eq!(app.composer.text(), "cargo test -p core");
    ctrl(&mut app, 'r');
    ctrl(&mut app, 'r');
    ctrl(&mut app, 'r');
    ctrl(&mut app, 'r');
    assert_eq!(
        app.composer.text(),
        "test the other repo",
        "it stops at the oldest"
    );
    typed(&mut app, "zzz");
    insta::assert_snapshot!("history_search_no_match", text(&mut app, 100, 24));
    assert_eq!(
        app.composer.text(),
        "half typed",
        "no match shows what was typed"
    );
}

/// Enter sends the match; Esc leaves it to edit; Ctrl+G gives up and puts back what was
/// typed; an editing key ends the search and edits the match.
#[test]
fn the_search_ends_as_in_readline() {
    let (mut app, mut rx) = searching();
    typed(&mut app, "parser");
    key(&mut app, KeyCode::Enter);
    let ops = sent(&mut rx);
    assert!(
        matches!(&ops[..], [UserOp::Submit { text, .. }] if text == "explain the parser"),
        "{ops:?}"
    );
    assert!(app.draft.search.is_none() && app.composer.is_empty());

    let (mut app, mut rx) = searching();
    typed(&mut app, "lexer");
    key(&mut app, KeyCode::Esc);
    assert!(app.draft.search.is_none());
    assert_eq!(app.composer.text(), "write a test\nfor the lexer");
    assert!(sent(&mut rx).is_empty(), "Esc sends nothing");

    let (mut app, _rx) = searching();
    typed(&mut app, "cargo");
    ctrl(&mut app, 'g');
    assert!(app.draft.search.is_none());
    assert_eq!(app.composer.text(), "half typed");
    assert!(
        app.outbox.edit_message.is_none(),
        "Ctrl+G in a search opens no editor"
    );

    let (mut app, _rx) = searching();
    typed(&mut app, "cargo");
    key(&mut app, KeyCode::Left);
    typed(&mut app, "X");
    assert_eq!(app.composer.text(), "cargo test -p corXe");
}

/// `Ctrl+G` hands the message to the event loop, which opens the editor.
#[test]
fn ctrl_g_asks_for_the_editor_with_the_message() {
    let (mut app, _rx) = app("dark");
    app.composer.set_text("draft\nsecond line");
    ctrl(&mut app, 'g');
    assert_eq!(
        app.outbox.edit_message.as_deref(),
        Some("draft\nsecond line")
    );
}

/// Before the agent's list has come (it is sent as the agent starts), a `/name` that is no
/// built-in goes to the agent, which knows its commands: typing one at once is not lost.
#[test]
fn a_custom_command_typed_before_the_list_comes_goes_to_the_agent() {
    let (mut app, mut rx) = app("dark");
    app.draft.custom = Default::default();
    app.composer.set_text("/early now");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        sent(&mut rx),
        vec![UserOp::RunCustomCommand {
            name: "early".into(),
            arguments: "now".into()
        }]
    );
    listed(&mut app);
    app.composer.set_text("/early");
    key(&mut app, KeyCode::Enter);
    assert!(sent(&mut rx).is_empty());
    assert!(text(&mut app, 100, 30).contains("unknown command /early"));
}
