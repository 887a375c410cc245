//! What leaves the chat pane for the terminal's own scrollback: the conversation written to
//! the normal screen at exit, and (inline mode) the entries that will not change any more.
//!
//! Both reuse the lines already rendered for the chat (the cache holds them unwrapped, so
//! any width will do) and render only what is not there. The exit scrollback is written
//! one entry at a time, so its memory is one entry's, not the whole conversation's.

use std::borrow::Cow;
use std::io::Write;

use ratatui::style::Style;

use super::{Kind, SCROLLBACK_LINES, Transcript};
use crate::wrap::StyledLine;

impl Transcript {
    /// Entry `i`'s logical lines: the cached ones when it is rendered in the current style
    /// (borrowed, nothing rendered), the streaming answer's as far as it came, or rendered
    /// now.
    fn logical(&self, i: usize) -> Cow<'_, [StyledLine]> {
        if let (Some(live), Kind::Streaming) = (&self.live, &self.entries[i].kind) {
            let mut lines = live.done.lines().to_vec();
            lines.extend_from_slice(live.md.committed());
            lines.extend(live.md.provisional());
            return Cow::Owned(lines);
        }
        match self.cache.peek(self.key(i)) {
            Some(r) if r.generation == self.styling.generation => Cow::Borrowed(r.lines.lines()),
            _ => Cow::Owned(self.render_lines(i)),
        }
    }

    /// Entry `i`'s logical lines as counted before writing: exact when rendered, guessed
    /// from the text's lines when not (so counting renders nothing).
    fn logical_count(&self, i: usize) -> usize {
        match self.cache.peek(self.key(i)) {
            Some(r) => r.lines.lines().len(),
            None => self.entries[i].shape.lines() as usize + 1,
        }
    }

    /// Write the conversation's last entries (up to about [`SCROLLBACK_LINES`] logical
    /// lines) to `out` for the normal screen after exit, wrapped to `width` (see
    /// `scrollback.rs`): answers as rendered markdown, tool calls one line each, a blank
    /// line between entries, and a line saying where the earlier ones are.
    pub fn write_scrollback(&self, width: u16, out: &mut impl Write) -> std::io::Result<()> {
        let mut count = 0;
        let mut first = self.entries.len();
        while first > 0 && count < SCROLLBACK_LINES {
            first -= 1;
            count += self.logical_count(first) + 1;
        }
        let mut started = false;
        if first > 0 {
            let note = StyledLine::plain(
                format!(
                    "… {first} earlier entries are in the session file (resume it to read them)"
                ),
                Style::default().fg(self.styling.theme.dim),
            );
            out.write_all(super::super::scrollback::render(&[note], width).as_bytes())?;
            started = true;
        }
        for i in first..self.entries.len() {
            if started {
                out.write_all(b"\r\n")?;
            }
            let lines = self.logical(i);
            out.write_all(super::super::scrollback::render(&lines, width).as_bytes())?;
            started = true;
        }
        Ok(())
    }

    /// Remove the first `n` entries, returning their lines for the terminal's scrollback
    /// (inline mode), each entry followed by a blank line.
    pub fn drain_front(&mut self, n: usize) -> Vec<StyledLine> {
        let n = n.min(self.entries.len());
        if n == 0 {
            return Vec::new();
        }
        let mut lines = Vec::new();
        for i in 0..n {
            let fresh = self
                .cache
                .peek(self.key(i))
                .is_some_and(|r| r.generation == self.styling.generation);
            match self.cache.take(self.key(i)) {
                Some(cached) if fresh => lines.extend(cached.into_lines()),
                _ => lines.extend(self.logical(i).into_owned()),
            }
            if let Kind::Answer(text) = &self.entries[i].kind {
                self.flushed.answer = Some(self.context().text(text, false));
            }
            lines.push(StyledLine::blank());
        }
        let height = self.index.prefix(n);
        for e in self.entries.drain(..n) {
            if let Kind::Tool { id, .. } = &e.kind {
                self.marks.remove(id);
                self.outputs.map.remove(id);
            }
        }
        self.index.drain_front(n);
        self.flushed.count += n;
        self.cache.remove_below(self.flushed.count as u64);
        if let Some(live) = &mut self.live {
            live.index -= n;
        }
        self.view.anchor = match self.view.anchor.0.checked_sub(n) {
            Some(a) => (a, self.view.anchor.1),
            None => (0, 0),
        };
        self.view.top = self.view.top.saturating_sub(height);
        self.view.visible = 0..0;
        self.view.prepared = 0..0;
        lines
    }
}
