//! The undo (or redo) confirmation: the diff it would apply, and `f` when files changed
//! since Loom wrote them.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::diff_pane::DiffPane;
use crate::protocol::changes::Scope;

/// The diff an undo or redo would apply, with its confirmation.
pub struct UndoConfirm {
    redo: bool,
    scope: Scope,
    files: Vec<String>,
    /// Some files changed since Loom wrote them: applying needs `f` (force).
    conflicted: bool,
    pane: DiffPane,
}

impl UndoConfirm {
    /// Confirm the planned undo (or redo) of `scope` touching `files`, showing `diff` and
    /// the `conflicts` that make it need forcing.
    pub fn new(
        redo: bool,
        scope: Scope,
        diff: String,
        files: Vec<String>,
        conflicts: Vec<String>,
    ) -> UndoConfirm {
        UndoConfirm {
            redo,
            scope,
            files,
            conflicted: !conflicts.is_empty(),
            pane: DiffPane::new(conflicts, diff),
        }
    }
}

impl Layer for UndoConfirm {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        let op = |force: bool| {
            if self.redo {
                UserOp::Redo { apply: true, force }
            } else {
                UserOp::Undo {
                    scope: self.scope,
                    apply: true,
                    force,
                }
            }
        };
        match key.code {
            KeyCode::Char('y') | KeyCode::Enter if !self.conflicted => {
                Outcome::close(vec![Action::Send(op(false))])
            }
            KeyCode::Char('f') if self.conflicted => Outcome::close(vec![Action::Send(op(true))]),
            KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => Outcome::close(Vec::new()),
            _ => {
                self.pane.scroll_key(&key);
                Outcome::consumed()
            }
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let rect = centered(
            area,
            area.width.saturating_sub(2).min(110),
            area.height.saturating_sub(2),
        );
        let what = if self.redo { "Redo" } else { "Undo" };
        let inner = frame(
            rect,
            buf,
            &format!("{what}: {}", self.files.join(", ")),
            theme.warning,
        );
        self.pane.render(body(inner), buf, theme);
        let keys = if self.conflicted {
            "f overwrite anyway · n cancel · ↑↓ scroll".to_string()
        } else {
            format!("y {} · n cancel · ↑↓ scroll", what.to_lowercase())
        };
        footer(inner, buf, &keys, theme);
    }

    fn hints(&self) -> String {
        if self.conflicted {
            "f overwrite anyway · n cancel".into()
        } else if self.redo {
            "y redo · n cancel".into()
        } else {
            "y undo · n cancel".into()
        }
    }
}
