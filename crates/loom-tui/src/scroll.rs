//! The scroll position of an overlay's text: moved by keys, clamped to the last screen.
//!
//! Overlays are drawn through `&self`, so the largest useful offset and the height of the
//! view are learned while drawing (`Cell`s) and applied on the next key: scrolling down past
//! the end stops there, one key up always moves the view, and a page key moves by the rows
//! the view shows.

use std::cell::Cell;

use crossterm::event::{KeyCode, KeyEvent};

/// Lines a page key scrolls before the view was drawn once.
const PAGE: usize = 20;

/// An offset into some lines.
#[derive(Debug)]
pub struct Scroll {
    offset: usize,
    max: Cell<usize>,
    /// The rows the view showed when last drawn (0: not drawn yet).
    height: Cell<usize>,
}

impl Default for Scroll {
    fn default() -> Scroll {
        Scroll {
            offset: 0,
            max: Cell::new(usize::MAX),
            height: Cell::new(0),
        }
    }
}

impl Scroll {
    /// Move for ↑↓ j k PgUp PgDn Space; true when the key was a scrolling key.
    pub fn key(&mut self, key: &KeyEvent) -> bool {
        let page = match self.height.get() {
            0 => PAGE,
            rows => rows,
        };
        let offset = match key.code {
            KeyCode::Down | KeyCode::Char('j') => self.offset.saturating_add(1),
            KeyCode::Up | KeyCode::Char('k') => self.offset.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.offset.saturating_add(page),
            KeyCode::PageUp => self.offset.saturating_sub(page),
            _ => return false,
        };
        self.offset = offset.min(self.max.get());
        true
    }

    /// The first of `total` lines to draw in `height` rows (and remember the limit).
    pub fn first(&self, total: usize, height: u16) -> usize {
        let max = total.saturating_sub(height as usize);
        self.max.set(max);
        self.height.set(height as usize);
        self.offset.min(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Invariant: whatever keys come, the first drawn line leaves no blank rows below the text
    // (when the text is longer than the view), and one Up after any Downs moves the view.
    #[test]
    fn scrolling_stops_at_the_last_screen_and_comes_back_at_once() {
        let mut s = Scroll::default();
        assert_eq!(s.first(30, 10), 0);
        for _ in 0..50 {
            assert!(s.key(&KeyEvent::from(KeyCode::PageDown)));
        }
        assert_eq!(s.first(30, 10), 20);
        s.key(&KeyEvent::from(KeyCode::Up));
        assert_eq!(s.first(30, 10), 19);
        assert_eq!(s.first(5, 10), 0, "short text never scrolls");
        assert!(!s.key(&KeyEvent::from(KeyCode::Char('x'))));
    }

    /// Regression (issue 25): a page key moved overlays by 20 lines whatever their height.
    #[test]
    fn a_page_is_the_rows_the_view_shows() {
        let mut s = Scroll::default();
        assert_eq!(s.first(100, 7), 0);
        s.key(&KeyEvent::from(KeyCode::PageDown));
        assert_eq!(s.first(100, 7), 7);
        s.key(&KeyEvent::from(KeyCode::PageDown));
        assert_eq!(s.first(100, 7), 14);
        s.key(&KeyEvent::from(KeyCode::PageUp));
        assert_eq!(s.first(100, 7), 7);
        assert!(!s.key(&KeyEvent::from(KeyCode::Char('x'))));
    }
}
