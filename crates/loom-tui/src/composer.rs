//! The composer: where the person writes. Multi-line, readline keys, prompt history, and
//! pastes inserted whole (never sent at their first newline).
//!
//! Enter sends; Shift+Enter, Alt+Enter and Ctrl+J insert a newline (terminals without the
//! kitty keyboard protocol cannot tell Shift+Enter from Enter, hence the fallbacks).
//! Display wraps hard at the width by grapheme, so the cursor maps to a screen cell exactly.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerOutcome {
    /// The key edited or moved.
    Consumed,
    /// The person sent this text.
    Submit(String),
    /// Not a composer key.
    Ignored,
}

/// The input editor.
#[derive(Debug, Clone)]
pub struct Composer {
    lines: Vec<String>,
    row: usize,
    /// Cursor position in graphemes within the line.
    col: usize,
    history: Vec<String>,
    history_pos: Option<usize>,
    draft: Option<String>,
}

impl Default for Composer {
    fn default() -> Self {
        Composer::new()
    }
}

fn graphemes(s: &str) -> Vec<&str> {
    s.graphemes(true).collect()
}

fn byte_at(s: &str, grapheme: usize) -> usize {
    s.grapheme_indices(true)
        .nth(grapheme)
        .map(|(i, _)| i)
        .unwrap_or(s.len())
}

/// Remove terminal escapes and control characters from pasted text, keeping newlines and
/// tabs; CRLF and lone CR become LF.
pub fn sanitize_paste(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // Skip a CSI/OSC sequence's parameters and final byte.
            if chars.peek() == Some(&'[') {
                chars.next();
                for n in chars.by_ref() {
                    if ('@'..='~').contains(&n) {
                        break;
                    }
                }
            }
            continue;
        }
        if c == '\n' || c == '\t' || !c.is_control() {
            out.push(c);
        }
    }
    out
}

impl Composer {
    /// An empty composer.
    pub fn new() -> Composer {
        Composer {
            lines: vec![String::new()],
            row: 0,
            col: 0,
            history: Vec::new(),
            history_pos: None,
            draft: None,
        }
    }

    /// The text.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Whether nothing is written.
    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    /// Replace the text (cursor at the end).
    pub fn set_text(&mut self, text: &str) {
        self.lines = text.split('\n').map(str::to_string).collect();
        if self.lines.is_empty() {
            self.lines.push(String::new());
        }
        self.row = self.lines.len() - 1;
        self.col = graphemes(&self.lines[self.row]).len();
    }

    /// Earlier prompts, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Remember a prompt in the history.
    pub fn remember(&mut self, text: &str) {
        if !text.trim().is_empty() && self.history.last().map(String::as_str) != Some(text) {
            self.history.push(text.to_string());
        }
    }

    /// Take the text, clearing the composer and recording it in the history.
    pub fn take(&mut self) -> String {
        let text = self.text();
        self.remember(&text);
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.history_pos = None;
        self.draft = None;
        text
    }

    /// Insert text at the cursor (typed or pasted).
    pub fn insert(&mut self, text: &str) {
        for (i, part) in text.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            let line = &mut self.lines[self.row];
            let at = byte_at(line, self.col);
            line.insert_str(at, part);
            // Count graphemes up to the end of the insertion: a combining mark joins the
            // grapheme before it instead of adding one.
            self.col = line[..at + part.len()].graphemes(true).count();
        }
    }

    /// The word the cursor ends (from the last space before it on its line), "" when the
    /// cursor follows a space or starts a line.
    pub fn word_at_cursor(&self) -> String {
        let g = graphemes(&self.lines[self.row]);
        let mut i = self.col;
        while i > 0 && !g[i - 1].trim().is_empty() {
            i -= 1;
        }
        g[i..self.col].concat()
    }

    /// Replace the word the cursor ends with `with` (cursor after it).
    pub fn replace_word_at_cursor(&mut self, with: &str) {
        let n = graphemes(&self.word_at_cursor()).len();
        let line = &mut self.lines[self.row];
        let start = byte_at(line, self.col - n);
        let end = byte_at(line, self.col);
        line.replace_range(start..end, with);
        self.col = line[..start + with.len()].graphemes(true).count();
    }

    fn newline(&mut self) {
        let line = &mut self.lines[self.row];
        let at = byte_at(line, self.col);
        let rest = line.split_off(at);
        self.lines.insert(self.row + 1, rest);
        self.row += 1;
        self.col = 0;
    }

    fn line_len(&self) -> usize {
        graphemes(&self.lines[self.row]).len()
    }

    fn backspace(&mut self) {
        if self.col > 0 {
            let line = &mut self.lines[self.row];
            let start = byte_at(line, self.col - 1);
            let end = byte_at(line, self.col);
            line.replace_range(start..end, "");
            self.col -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.line_len();
            self.lines[self.row].push_str(&line);
        }
    }

    fn delete(&mut self) {
        if self.col < self.line_len() {
            let line = &mut self.lines[self.row];
            let start = byte_at(line, self.col);
            let end = byte_at(line, self.col + 1);
            line.replace_range(start..end, "");
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
    }

    fn word_left(&self) -> usize {
        let g = graphemes(&self.lines[self.row]);
        let mut i = self.col;
        while i > 0 && g[i - 1].trim().is_empty() {
            i -= 1;
        }
        while i > 0 && !g[i - 1].trim().is_empty() {
            i -= 1;
        }
        i
    }

    fn word_right(&self) -> usize {
        let g = graphemes(&self.lines[self.row]);
        let mut i = self.col;
        while i < g.len() && g[i].trim().is_empty() {
            i += 1;
        }
        while i < g.len() && !g[i].trim().is_empty() {
            i += 1;
        }
        i
    }

    fn kill(&mut self, from: usize, to: usize) {
        let line = &mut self.lines[self.row];
        let (a, b) = (byte_at(line, from), byte_at(line, to));
        line.replace_range(a..b, "");
        self.col = from;
    }

    fn recall(&mut self, older: bool) -> bool {
        if self.history.is_empty() {
            return false;
        }
        let next = match (self.history_pos, older) {
            (None, true) => {
                self.draft = Some(self.text());
                Some(self.history.len() - 1)
            }
            (None, false) => return false,
            (Some(0), true) => Some(0),
            (Some(i), true) => Some(i - 1),
            (Some(i), false) if i + 1 < self.history.len() => Some(i + 1),
            (Some(_), false) => None,
        };
        self.history_pos = next;
        let text = match next {
            Some(i) => self.history[i].clone(),
            None => self.draft.take().unwrap_or_default(),
        };
        self.set_text(&text);
        true
    }

    /// Handle a key.
    pub fn handle_key(&mut self, key: KeyEvent) -> ComposerOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Enter if shift || alt => self.newline(),
            KeyCode::Char('j') if ctrl => self.newline(),
            KeyCode::Enter => {
                if self.text().trim().is_empty() {
                    return ComposerOutcome::Consumed;
                }
                return ComposerOutcome::Submit(self.take());
            }
            KeyCode::Char('a') if ctrl => self.col = 0,
            KeyCode::Char('e') if ctrl => self.col = self.line_len(),
            KeyCode::Char('b') if ctrl => self.col = self.col.saturating_sub(1),
            KeyCode::Char('f') if ctrl => self.col = (self.col + 1).min(self.line_len()),
            KeyCode::Char('k') if ctrl => {
                if self.col == self.line_len() {
                    self.delete();
                } else {
                    let end = self.line_len();
                    self.kill(self.col, end);
                }
            }
            KeyCode::Char('u') if ctrl => self.kill(0, self.col),
            KeyCode::Char('w') if ctrl => {
                let from = self.word_left();
                self.kill(from, self.col);
            }
            KeyCode::Char('h') if ctrl => self.backspace(),
            KeyCode::Char('d') if ctrl => self.delete(),
            KeyCode::Char('b') if alt => self.col = self.word_left(),
            KeyCode::Char('f') if alt => self.col = self.word_right(),
            KeyCode::Char('d') if alt => {
                let to = self.word_right();
                let from = self.col;
                self.kill(from, to);
            }
            KeyCode::Backspace if alt || ctrl => {
                let from = self.word_left();
                self.kill(from, self.col);
            }
            KeyCode::Char(c) if !ctrl => self.insert(&c.to_string()),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            KeyCode::Left if ctrl || alt => self.col = self.word_left(),
            KeyCode::Right if ctrl || alt => self.col = self.word_right(),
            KeyCode::Left => self.left(),
            KeyCode::Right => self.right(),
            KeyCode::Home => self.col = 0,
            KeyCode::End => self.col = self.line_len(),
            KeyCode::Up => return self.up_or_recall(),
            KeyCode::Down => return self.down_or_recall(),
            _ => return ComposerOutcome::Ignored,
        }
        ComposerOutcome::Consumed
    }

    /// One grapheme left, to the end of the line above at the start of a line.
    fn left(&mut self) {
        if self.col > 0 {
            self.col -= 1;
        } else if self.row > 0 {
            self.row -= 1;
            self.col = self.line_len();
        }
    }

    /// One grapheme right, to the start of the line below at the end of a line.
    fn right(&mut self) {
        if self.col < self.line_len() {
            self.col += 1;
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = 0;
        }
    }

    /// One line up; on the first line, the previous message of the history (ignored when
    /// there is none).
    fn up_or_recall(&mut self) -> ComposerOutcome {
        if self.row > 0 {
            self.row -= 1;
            self.col = self.col.min(self.line_len());
        } else if !self.recall(true) {
            return ComposerOutcome::Ignored;
        }
        ComposerOutcome::Consumed
    }

    /// One line down; on the last line, the next message of the history (ignored when
    /// there is none).
    fn down_or_recall(&mut self) -> ComposerOutcome {
        if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = self.col.min(self.line_len());
        } else if !self.recall(false) {
            return ComposerOutcome::Ignored;
        }
        ComposerOutcome::Consumed
    }

    /// Screen rows the text takes at `width` (wrapped hard at the width).
    pub fn rows(&self, width: u16) -> usize {
        let w = width.max(1) as usize;
        self.lines
            .iter()
            .map(|l| UnicodeWidthStr::width(l.as_str()).max(1).div_ceil(w).max(1))
            .sum()
    }

    /// Draw into `area` (scrolled so the cursor is visible); returns the cursor's cell.
    /// The placeholder, shown while the box is empty, comes with its own style: a colour
    /// the theme checks for contrast, not the terminal's faint attribute, which it cannot.
    pub fn render(
        &self,
        area: Rect,
        buf: &mut Buffer,
        style: Style,
        placeholder: Option<(&str, Style)>,
    ) -> Position {
        let w = area.width.max(1) as usize;
        let mut rows: Vec<(Vec<&str>, Option<usize>)> = Vec::new();
        let mut cursor_row = 0;
        let mut cursor_x = 0;
        for (li, line) in self.lines.iter().enumerate() {
            let g = graphemes(line);
            let mut row: Vec<&str> = Vec::new();
            let mut used = 0;
            for (gi, piece) in g.iter().enumerate() {
                let pw = piece.width().max(usize::from(*piece == "\t"));
                if used + pw > w && used > 0 {
                    rows.push((std::mem::take(&mut row), None));
                    used = 0;
                }
                if li == self.row && gi == self.col {
                    cursor_row = rows.len();
                    cursor_x = used;
                }
                row.push(piece);
                used += pw;
            }
            if li == self.row && self.col >= g.len() {
                if used >= w {
                    rows.push((std::mem::take(&mut row), None));
                    used = 0;
                }
                cursor_row = rows.len();
                cursor_x = used;
            }
            rows.push((row, Some(li)));
        }
        let height = area.height as usize;
        let first = (cursor_row + 1).saturating_sub(height);
        if self.is_empty()
            && let Some((p, p_style)) = placeholder
        {
            buf.set_stringn(area.x, area.y, p, w, p_style);
        }
        for (i, (row, _)) in rows.iter().enumerate().skip(first).take(height) {
            let y = area.y + (i - first) as u16;
            let text: String = row
                .iter()
                .map(|g| if *g == "\t" { " " } else { g })
                .collect();
            buf.set_stringn(area.x, y, &text, w, style);
        }
        Position::new(
            area.x + cursor_x as u16,
            area.y + (cursor_row - first) as u16,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }
    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }
    fn alt(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
    }
    fn typed(c: &mut Composer, s: &str) {
        for ch in s.chars() {
            c.handle_key(key(KeyCode::Char(ch)));
        }
    }

    #[test]
    fn enter_sends_and_newline_keys_do_not() {
        let mut c = Composer::new();
        typed(&mut c, "one");
        c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
        typed(&mut c, "two");
        c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT));
        c.handle_key(ctrl('j'));
        typed(&mut c, "three");
        assert_eq!(
            c.handle_key(key(KeyCode::Enter)),
            ComposerOutcome::Submit("one\ntwo\n\nthree".into())
        );
        assert!(c.is_empty());
        assert_eq!(
            c.handle_key(key(KeyCode::Enter)),
            ComposerOutcome::Consumed,
            "empty is not sent"
        );
    }

    #[test]
    fn readline_keys() {
        let mut c = Composer::new();
        typed(&mut c, "hello big world");
        c.handle_key(ctrl('w'));
        assert_eq!(c.text(), "hello big ");
        c.handle_key(ctrl('a'));
        c.handle_key(alt('f'));
        c.handle_key(ctrl('k'));
        assert_eq!(c.text(), "hello");
        c.handle_key(ctrl('e'));
        typed(&mut c, " there");
        c.handle_key(alt('b'));
        c.handle_key(ctrl('u'));
        assert_eq!(c.text(), "there");
    }

    #[test]
    fn history_recall_keeps_the_draft() {
        let mut c = Composer::new();
        typed(&mut c, "first");
        c.handle_key(key(KeyCode::Enter));
        typed(&mut c, "second");
        c.handle_key(key(KeyCode::Enter));
        typed(&mut c, "draft");
        c.handle_key(key(KeyCode::Up));
        assert_eq!(c.text(), "second");
        c.handle_key(key(KeyCode::Up));
        assert_eq!(c.text(), "first");
        c.handle_key(key(KeyCode::Down));
        c.handle_key(key(KeyCode::Down));
        assert_eq!(c.text(), "draft");
    }

    #[test]
    fn pastes_are_inserted_whole_and_cleaned() {
        let mut c = Composer::new();
        c.insert(&sanitize_paste("line1\r\nline2\x1b[31m red\x07\n"));
        assert_eq!(c.text(), "line1\nline2 red\n");
    }

    #[test]
    fn unicode_editing_and_cursor() {
        let mut c = Composer::new();
        typed(&mut c, "日本e\u{301}x");
        c.handle_key(key(KeyCode::Backspace));
        c.handle_key(key(KeyCode::Backspace));
        assert_eq!(c.text(), "日本");
        let mut buf = Buffer::empty(Rect::new(0, 0, 10, 2));
        let pos = c.render(Rect::new(0, 0, 10, 2), &mut buf, Style::default(), None);
        assert_eq!(
            pos,
            Position::new(4, 0),
            "two wide characters put the cursor at column 4"
        );
    }

    #[test]
    fn long_text_wraps_and_scrolls_to_the_cursor() {
        let mut c = Composer::new();
        typed(&mut c, &"x".repeat(35));
        assert_eq!(c.rows(10), 4);
        let mut buf = Buffer::empty(Rect::new(0, 0, 10, 2));
        let pos = c.render(Rect::new(0, 0, 10, 2), &mut buf, Style::default(), None);
        assert_eq!(pos, Position::new(5, 1));
    }
}
