//! Keys for the tool-call list: choosing a call; Enter opens its details.

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::{App, Focus};

impl App {
    /// A key while the tool list has focus.
    pub(super) fn tools_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => {
                self.tools.select(-1);
                self.sync_details();
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.tools.select(1);
                self.sync_details();
            }
            KeyCode::Enter | KeyCode::Right => self.focus = Focus::Details,
            _ => {}
        }
    }
}
