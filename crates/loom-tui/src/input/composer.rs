//! Keys for the message box: editing, sending, and completing slash commands.

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::App;
use crate::composer::ComposerOutcome;
use crate::protocol::events::UserOp;
use crate::transcript::NoticeLevel;

impl App {
    /// A key while the message box has focus.
    pub(super) fn composer_key(&mut self, key: KeyEvent) {
        let plain = key.modifiers.is_empty();
        let ctrl = key.modifiers == crossterm::event::KeyModifiers::CONTROL;
        match key.code {
            KeyCode::Char('r') if ctrl => return self.start_search(),
            KeyCode::Char('g') if ctrl => {
                self.outbox.edit_message = Some(self.composer.text());
                return;
            }
            KeyCode::Up if plain && self.popup_move(-1) => return,
            KeyCode::Down if plain && self.popup_move(1) => return,
            // Enter picks a file only once something follows the `@` (a lone `@` in a
            // sentence is sent as it is).
            KeyCode::Enter
                if plain
                    && (self.mention_query().is_some_and(|q| !q.is_empty())
                        && self.pick_mention()
                        || self.accept_popup()) =>
            {
                return;
            }
            KeyCode::Backspace
                if self.composer.is_empty() && !self.draft.attachments.is_empty() =>
            {
                self.draft.attachments.pop();
                return;
            }
            _ => {}
        }
        let before = self.composer.text();
        let outcome = self.composer.handle_key(key);
        if self.composer.text() != before {
            self.draft.popup_selected = 0;
            self.load_files_for_mention();
        }
        match outcome {
            ComposerOutcome::Submit(text) => self.submit(&text),
            ComposerOutcome::Ignored => match key.code {
                KeyCode::Up => self.transcript.scroll_up(1),
                KeyCode::Down => self.transcript.scroll_down(1),
                _ => {}
            },
            ComposerOutcome::Consumed => {}
        }
    }

    /// Tab in a message box holding the start of a slash command completes it to the
    /// popup's highlighted line (or picks the highlighted file of an `@` mention); true
    /// when it did.
    pub(super) fn complete_command(&mut self) -> bool {
        if self.pick_mention() {
            return true;
        }
        let Some(choice) = self.popup_choice() else {
            return false;
        };
        let with_space = if choice.line.contains(' ') {
            choice.line
        } else {
            format!("{} ", choice.line)
        };
        self.composer.set_text(&with_space);
        self.draft.popup_selected = 0;
        true
    }

    /// Enter on `/th` (no command by that name) runs the popup's highlighted command
    /// instead of reporting an unknown one; true when it did.
    fn accept_popup(&mut self) -> bool {
        let text = self.composer.text();
        if !text.starts_with('/') || self.mention_query().is_some() {
            return false;
        }
        let typed = text.trim().trim_start_matches('/');
        if typed.contains(' ')
            || crate::slash::find(typed).is_some()
            || self.draft.custom.find(typed).is_some()
        {
            return false;
        }
        let Some(choice) = self.popup_choice() else {
            return false;
        };
        self.composer.set_text(&choice.line);
        let line = self.composer.take();
        self.draft.popup_selected = 0;
        self.submit(&line);
        true
    }

    /// A message or a slash command from the composer.
    pub fn submit(&mut self, text: &str) {
        // A sent message ends the typing: a question the model asks right after it takes
        // the keys (keys typed after this still hold it back).
        self.layers.last_key = None;
        let trimmed = text.trim();
        if let Some(command) = trimmed.strip_prefix('/')
            && !command.starts_with('/')
            && !command.contains('\n')
        {
            self.command(command);
            return;
        }
        if let Some(command) = trimmed.strip_prefix('!')
            && !command.trim().is_empty()
        {
            if self.busy() {
                let msg = "a !command runs between turns: wait for this one or stop it (Esc)";
                self.transcript.push_notice(NoticeLevel::Error, msg);
                self.composer.set_text(text);
                return;
            }
            self.transcript.scroll_end();
            self.send(UserOp::Shell {
                command: command.trim().to_string(),
            });
            return;
        }
        self.transcript.scroll_end();
        let attachments = std::mem::take(&mut self.draft.attachments);
        let images = std::mem::take(&mut self.draft.images);
        self.send(UserOp::Submit {
            text: crate::attachments::compose(text, &attachments),
            images,
        });
    }
}
