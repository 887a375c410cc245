//! The keys of the message box's reverse search (`Ctrl+R`, see `history_search.rs`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{App, Focus};
use crate::history_search::HistorySearch;
use crate::protocol::custom_command::PastPrompt;
use crate::protocol::events::UserOp;

impl App {
    /// `Ctrl+R`: open the search over this session's prompts; earlier sessions' are asked
    /// of the agent and join when they come.
    pub(crate) fn start_search(&mut self) {
        let search = HistorySearch::new(self.composer.history(), self.composer.text());
        self.draft.search = Some(search);
        self.draft.popup_selected = 0;
        self.send(UserOp::PromptHistory);
    }

    /// Earlier sessions' prompts arrived.
    pub(crate) fn on_prompt_history(&mut self, prompts: Vec<PastPrompt>) {
        if let Some(search) = &mut self.draft.search {
            search.add(prompts);
            self.show_match();
        }
    }

    /// A key while the search is open; false when it is not open, or the key ended it and
    /// is to be handled as usual.
    pub(crate) fn search_key(&mut self, key: KeyEvent) -> bool {
        if self.focus != Focus::Composer {
            return false;
        }
        let Some(search) = &mut self.draft.search else {
            return false;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('r') if ctrl => search.selected += 1,
            KeyCode::Up => search.selected += 1,
            KeyCode::Char('s') if ctrl => search.selected = search.selected.saturating_sub(1),
            KeyCode::Down => search.selected = search.selected.saturating_sub(1),
            KeyCode::Char('g' | 'c') if ctrl => {
                let original = std::mem::take(&mut search.original);
                self.composer.set_text(&original);
                self.draft.search = None;
                return true;
            }
            KeyCode::Backspace => {
                search.query.pop();
                search.selected = 0;
            }
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                search.query.push(c);
                search.selected = 0;
            }
            KeyCode::Esc => {
                self.draft.search = None;
                return true;
            }
            KeyCode::Enter => {
                self.draft.search = None;
                let text = self.composer.take();
                if !text.trim().is_empty() {
                    self.submit(&text);
                }
                return true;
            }
            _ => {
                self.draft.search = None;
                return false;
            }
        }
        let n = search.matches().len();
        search.selected = search.selected.min(n.saturating_sub(1));
        self.show_match();
        true
    }

    /// The chosen match in the message box (what was typed, when nothing matches).
    fn show_match(&mut self) {
        let Some(search) = &self.draft.search else {
            return;
        };
        let text = search.current().unwrap_or_else(|| search.original.clone());
        self.draft.popup_selected = search.selected;
        self.composer.set_text(&text);
    }
}
