//! Keys for the details pane: scrolling a call's output or diff, and reviewing a pending
//! file change (whose keys reach it from any pane but the message box).

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::{App, Focus};
use crate::protocol::events::{ApprovalAnswer, UserOp};

impl App {
    /// Whether the details area shows a diff (rather than tool output).
    pub(crate) fn diff_visible(&self) -> bool {
        self.details
            .visible(self.tools.current().map(|r| r.id.as_str()))
    }

    /// Keys while a file change waits for review: they go to the review whatever pane had
    /// focus (only the composer, reached on purpose with Tab, types instead).
    pub(super) fn review_key(&mut self, key: KeyEvent) {
        if let Some(id) = self.details.view.reviewing.clone() {
            let answer = |a: ApprovalAnswer| UserOp::Approve {
                id: id.clone(),
                answer: a,
            };
            match key.code {
                KeyCode::Char('?') => self
                    .layers
                    .push(Box::new(crate::layers::review_keys::ReviewKeys)),
                KeyCode::Char('y') => {
                    self.resolve_review(&id);
                    self.send(answer(ApprovalAnswer::Approve));
                }
                KeyCode::Char('a') => {
                    self.status.edits_allowed = true;
                    self.resolve_review(&id);
                    self.send(answer(ApprovalAnswer::ApproveForSession));
                }
                KeyCode::Char('n') => self.run_action(crate::layers::Action::AskReason(id.clone())),
                KeyCode::Enter => {
                    let hunks = self.details.view.selected.clone();
                    self.resolve_review(&id);
                    if hunks.iter().all(|h| *h) {
                        self.send(answer(ApprovalAnswer::Approve));
                    } else {
                        self.send(answer(ApprovalAnswer::ApproveHunks { hunks }));
                    }
                }
                KeyCode::Char(' ') => self.details.view.toggle(),
                KeyCode::Char('f') => self.details.view.toggle_file(),
                KeyCode::Down | KeyCode::Char('j') => self.details.view.move_hunk(1),
                KeyCode::Up | KeyCode::Char('k') => self.details.view.move_hunk(-1),
                _ => {}
            }
        }
    }

    /// A key while the details pane has focus.
    pub(super) fn details_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.scroll_focused(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_focused(1),
            KeyCode::Left => self.focus = Focus::Tools,
            KeyCode::Char(_) | KeyCode::Enter => {
                self.focus = Focus::Composer;
                self.on_key(key);
            }
            _ => {}
        }
    }
}
