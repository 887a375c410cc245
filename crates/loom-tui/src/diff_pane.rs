//! A scrollable unified diff inside an overlay (`/diff`, the undo confirmation).
//!
//! A session's diff can be megabytes long, so it is coloured and wrapped once per width —
//! never on every frame — and scrolling stops at its last screen instead of running off
//! into blank space.

use std::cell::RefCell;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use super::scroll::Scroll;
use super::theme::Theme;
use super::wrap::{StyledLine, wrap};

/// Unified diff text with warnings above it, and where it is scrolled to.
#[derive(Debug)]
pub struct DiffPane {
    warnings: Vec<String>,
    text: String,
    scroll: Scroll,
    /// Coloured, wrapped lines and the width they were wrapped for. The overlay owns the
    /// keyboard while open, so the theme cannot change under it; width is the only key.
    wrapped: RefCell<Option<(u16, Vec<Line<'static>>)>>,
}

impl DiffPane {
    /// A pane showing `warnings` (in the error colour, each marked `!`) above `text`.
    pub fn new(warnings: Vec<String>, text: String) -> DiffPane {
        DiffPane {
            warnings,
            text,
            scroll: Scroll::default(),
            wrapped: RefCell::new(None),
        }
    }

    /// Scroll for ↑↓ j k PgUp PgDn Space; true when the key was a scrolling key.
    pub fn scroll_key(&mut self, key: &KeyEvent) -> bool {
        self.scroll.key(key)
    }

    /// Draw the visible part into `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let mut cache = self.wrapped.borrow_mut();
        let lines = match &mut *cache {
            Some((width, lines)) if *width == area.width => lines,
            slot => &mut slot.insert((area.width, self.lines(area.width, theme))).1,
        };
        let visible = lines
            .iter()
            .skip(self.scroll.first(lines.len(), area.height));
        for (y, line) in (area.y..area.bottom()).zip(visible) {
            buf.set_line(area.x, y, line, area.width);
        }
    }

    fn lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        for w in &self.warnings {
            let warning = StyledLine::plain(format!("! {w}"), Style::default().fg(theme.error));
            lines.extend(wrap(&warning, width));
        }
        for l in self.text.lines() {
            let header = l.starts_with("+++") || l.starts_with("---");
            let color = if header {
                theme.text
            } else if l.starts_with('+') {
                theme.diff.added
            } else if l.starts_with('-') {
                theme.diff.removed
            } else if l.starts_with("@@") {
                theme.accent
            } else {
                theme.dim
            };
            let mut style = Style::default().fg(color);
            if header {
                style = style.add_modifier(Modifier::BOLD);
            }
            lines.extend(wrap(&StyledLine::plain(l.to_string(), style), width));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorDepth;
    use crossterm::event::KeyCode;

    fn rows(pane: &DiffPane, height: u16) -> Vec<String> {
        let area = Rect::new(0, 0, 20, height);
        let mut buf = Buffer::empty(area);
        pane.render(area, &mut buf, &Theme::fallback(ColorDepth::TrueColor));
        (0..height)
            .map(|y| (0..20).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .map(|r| r.trim_end().to_string())
            .collect()
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::from(code)
    }

    #[test]
    fn scrolling_stops_at_the_last_screen_and_comes_back_at_once() {
        let text: String = (0..10).map(|i| format!("+line {i}\n")).collect();
        let mut pane = DiffPane::new(vec!["changed since".into()], text);
        assert_eq!(rows(&pane, 4)[0], "! changed since");
        for _ in 0..50 {
            pane.scroll_key(&key(KeyCode::PageDown));
        }
        assert_eq!(rows(&pane, 4), ["+line 6", "+line 7", "+line 8", "+line 9"]);
        assert!(pane.scroll_key(&key(KeyCode::Up)));
        assert_eq!(rows(&pane, 4)[3], "+line 8", "one Up moves one line back");
        assert!(!pane.scroll_key(&key(KeyCode::Char('x'))));
    }

    #[test]
    fn lines_are_wrapped_once_per_width() {
        let pane = DiffPane::new(Vec::new(), "-a\n+b\n".into());
        rows(&pane, 3);
        let first = pane.wrapped.borrow().as_ref().map(|(_, l)| l.as_ptr());
        rows(&pane, 3);
        let second = pane.wrapped.borrow().as_ref().map(|(_, l)| l.as_ptr());
        assert_eq!(
            first, second,
            "a second frame at the same width reuses the lines"
        );
    }
}
