//! The rewind confirmation (issue 28): the prompt the conversation goes back to, and the
//! diff that puts the files back as they were before it, with `y`/`n` (`f` when files
//! changed since Loom wrote them).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::diff_pane::DiffPane;

/// A planned rewind to just before prompt `prompt`, to confirm.
pub struct RewindConfirm {
    prompt: usize,
    text: String,
    /// Some files changed since Loom wrote them: applying needs `f` (force).
    conflicted: bool,
    pane: DiffPane,
}

impl RewindConfirm {
    /// Confirm the rewind to just before prompt `prompt` (`text`), which restores `files`
    /// by `diff`; `conflicts` make it need forcing.
    pub fn new(
        prompt: usize,
        text: String,
        diff: String,
        files: Vec<String>,
        conflicts: Vec<String>,
    ) -> RewindConfirm {
        let conflicted = !conflicts.is_empty();
        let mut notes = conflicts;
        notes.push(if files.is_empty() {
            "No file changed since this prompt: only the conversation is cut.".to_string()
        } else {
            format!("Files restored: {}", files.join(", "))
        });
        notes.push(
            "The conversation is cut just before this prompt, and the prompt comes back to \
             the message box; the part cut stays in the session file."
                .into(),
        );
        RewindConfirm {
            prompt,
            text,
            conflicted,
            pane: DiffPane::new(notes, diff),
        }
    }
}

impl Layer for RewindConfirm {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        let op = |force: bool| {
            Action::Send(UserOp::Rewind {
                prompt: self.prompt,
                apply: true,
                force,
            })
        };
        match key.code {
            KeyCode::Char('y') | KeyCode::Enter if !self.conflicted => {
                Outcome::close(vec![op(false)])
            }
            KeyCode::Char('f') if self.conflicted => Outcome::close(vec![op(true)]),
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
        let first = self.text.lines().next().unwrap_or("");
        let title = format!("Rewind to before prompt {}: {first}", self.prompt);
        let inner = frame(rect, buf, &title, theme.warning);
        self.pane.render(body(inner), buf, theme);
        footer(inner, buf, &self.hints(), theme);
    }

    fn hints(&self) -> String {
        if self.conflicted {
            "f rewind and overwrite · n cancel · ↑↓ scroll".into()
        } else {
            "y rewind · n cancel · ↑↓ scroll".into()
        }
    }
}
