//! Hooks on the screen (issue 28): a prompt a `UserPromptSubmit` hook blocked is not sent;
//! the person sees why, and the text is back in the message box to edit.

use crossterm::event::{KeyCode, KeyEvent};

use super::snapshot_tests::{ev, text};
use super::test_support::app;
use crate::protocol::events::{AgentEvent, TurnEnd, UserOp};
use crate::protocol::usage::Usage;

/// What the agent sends for a prompt a hook blocked between turns (the core's
/// `on_prompt_blocked`): the reason as an error, then a turn that never started ending
/// with the prompt unsent.
fn blocked(app: &mut super::app::App, prompt: &str, reason: &str) {
    ev(
        app,
        AgentEvent::Error {
            message: format!(
                "your message was not sent: a UserPromptSubmit hook blocked it: {reason}"
            ),
        },
    );
    ev(
        app,
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Failed,
            unsent: vec![prompt.into()],
            unsent_images: Vec::new(),
        },
    );
}

#[test]
fn a_prompt_a_hook_blocked_shows_why_and_comes_back_to_the_message_box() {
    let (mut app, mut rx) = app("dark");
    let prompt = "deploy with password hunter2";
    for c in prompt.chars() {
        app.on_key(KeyEvent::from(KeyCode::Char(c)));
    }
    app.on_key(KeyEvent::from(KeyCode::Enter));
    assert!(
        matches!(rx.try_recv(), Ok(UserOp::Submit { text, .. }) if text == prompt),
        "the prompt went to the agent"
    );
    assert_eq!(app.composer.text(), "", "sent, the box empties");
    blocked(
        &mut app,
        prompt,
        "no secrets in prompts (scripts/no-secrets.sh)",
    );
    assert_eq!(app.composer.text(), prompt, "back in the box to edit");
    let screen = text(&mut app, 100, 20);
    assert!(screen.contains("no secrets in prompts"), "{screen}");
    assert!(
        !screen.contains(&format!("› {prompt}")),
        "never shown as sent: {screen}"
    );
    insta::assert_snapshot!(screen);
}
