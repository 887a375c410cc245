//! Keys for the chat pane: scrolling the conversation; typing goes to the message box.

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::{App, Focus};

impl App {
    /// A key while the chat has focus.
    pub(super) fn chat_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.transcript.scroll_up(1),
            KeyCode::Down | KeyCode::Char('j') => self.transcript.scroll_down(1),
            KeyCode::Char(_) | KeyCode::Enter => {
                self.focus = Focus::Composer;
                self.on_key(key);
            }
            _ => {}
        }
    }

    /// Whether plain Home/End go to the chat rather than the message box's text.
    pub(super) fn scrolls_chat(&self) -> bool {
        self.focus == Focus::Chat || (self.focus == Focus::Composer && self.composer.is_empty())
    }
}
