//! Keys for the message box: editing, sending, and completing slash commands.

use crossterm::event::{KeyCode, KeyEvent};

use crate::agent::UserOp;
use crate::tui::app::App;
use crate::tui::composer::ComposerOutcome;

impl App {
    /// A key while the message box has focus.
    pub(super) fn composer_key(&mut self, key: KeyEvent) {
        match self.composer.handle_key(key) {
            ComposerOutcome::Submit(text) => self.submit(&text),
            ComposerOutcome::Ignored => match key.code {
                KeyCode::Up => self.transcript.scroll_up(1),
                KeyCode::Down => self.transcript.scroll_down(1),
                _ => {}
            },
            ComposerOutcome::Consumed => {}
        }
    }

    /// Tab in a message box holding the start of a slash command completes it when there
    /// is exactly one way to; true when it did.
    pub(super) fn complete_command(&mut self) -> bool {
        let text = self.composer.text();
        if !text.starts_with('/') || text.contains('\n') {
            return false;
        }
        match crate::tui::slash::complete(&text).as_slice() {
            [only] => {
                let with_space = if only.contains(' ') {
                    only.clone()
                } else {
                    format!("{only} ")
                };
                self.composer.set_text(&with_space);
                true
            }
            _ => false,
        }
    }

    /// A message or a slash command from the composer.
    pub fn submit(&mut self, text: &str) {
        let trimmed = text.trim();
        if let Some(command) = trimmed.strip_prefix('/')
            && !command.starts_with('/')
            && !command.contains('\n')
        {
            self.command(command);
            return;
        }
        self.transcript.scroll_end();
        self.send(UserOp::Submit {
            text: text.to_string(),
        });
    }
}
