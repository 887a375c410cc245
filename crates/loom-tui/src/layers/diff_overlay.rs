//! `/diff`: every change of the session, scrollable.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::diff_pane::DiffPane;

/// A read-only, scrollable view of diffs (`/diff`).
pub struct DiffOverlay {
    title: String,
    pane: DiffPane,
}

impl DiffOverlay {
    /// Show the unified `diff` under `title`.
    pub fn new(title: String, diff: String) -> DiffOverlay {
        DiffOverlay {
            title,
            pane: DiffPane::new(Vec::new(), diff),
        }
    }
}

impl Layer for DiffOverlay {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter => Outcome::close(Vec::new()),
            _ if self.pane.scroll_key(&key) => Outcome::consumed(),
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            _ => Outcome::consumed(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let rect = centered(
            area,
            area.width.saturating_sub(2),
            area.height.saturating_sub(1),
        );
        let inner = frame(rect, buf, &self.title, theme.accent);
        self.pane.render(body(inner), buf, theme);
        footer(inner, buf, "↑↓ PgUp/PgDn scroll · Esc close", theme);
    }

    fn hints(&self) -> String {
        "↑↓ scroll · Esc close".into()
    }
}
