//! The conversation as the chat pane shows it, built to stay fast in 10,000-message sessions.
//!
//! Each entry caches its wrapped lines for the current width; a streaming answer only wraps
//! lines its markdown renderer newly committed, plus its small unfinished tail. [`prepare`]
//! (with `&mut`) brings caches up to date before a frame; rendering then reads them and
//! draws only the lines that are visible. Scrolling keeps the view put while new output
//! arrives below, with a marker saying so.
//!
//! [`prepare`]: Transcript::prepare

use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::markdown::MarkdownStream;
use super::theme::Theme;
use super::wrap::{StyledLine, wrap};

/// How serious a notice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    /// Information.
    Info,
    /// A retry or warning.
    Warning,
    /// An error.
    Error,
}

enum Kind {
    User(String),
    Assistant { md: Box<MarkdownStream>, done: bool },
    Reasoning(String),
    Notice(NoticeLevel, String),
    Tool { id: String, summary: String },
}

struct Entry {
    kind: Kind,
    /// Wrapped lines for `width`; for answers, of the committed part only.
    lines: Vec<Line<'static>>,
    /// How many committed markdown lines `lines` covers.
    wrapped_upto: usize,
    width: u16,
    /// Wrapped unfinished tail (answers being streamed).
    tail: Vec<Line<'static>>,
    /// The answer's markdown must be rendered again with the current theme (its old lines
    /// are shown until then).
    restyle: bool,
}

/// A tool call's status as the chat line shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolMark {
    /// Icon (✓, ✗, spinner, …).
    pub icon: String,
    /// Its style.
    pub style: Style,
}

/// The chat transcript.
pub struct Transcript {
    entries: Vec<Entry>,
    streaming: Option<usize>,
    theme: Theme,
    marks: HashMap<String, ToolMark>,
    /// First visible line when not following the bottom.
    top: usize,
    follow: bool,
    /// Total height after the last `prepare`.
    total: usize,
    heights: Vec<usize>,
    viewport: usize,
    unseen: bool,
    /// Answers waiting to be rendered again (see [`Transcript::set_theme`]).
    restyling: usize,
    /// Entries handed to the terminal's scrollback (inline mode) and dropped from here.
    flushed: usize,
    /// The source of the last answer handed to the scrollback (for `/copy`).
    flushed_answer: Option<String>,
    /// Finished commands' output under their rows, and whether shown whole (Ctrl+O).
    outputs: HashMap<String, super::command_output::CommandOutput>,
    expand_outputs: bool,
}

/// Answers re-rendered per frame beyond the visible ones, so a theme switch in a
/// 10,000-message session costs a few milliseconds per frame (6 ms worst, measured) instead of one 137 ms stall.
const RESTYLE_PER_FRAME: usize = 32;

impl Transcript {
    /// An empty transcript.
    pub fn new(theme: &Theme) -> Transcript {
        Transcript {
            entries: Vec::new(),
            streaming: None,
            theme: theme.clone(),
            marks: HashMap::new(),
            top: 0,
            follow: true,
            total: 0,
            heights: Vec::new(),
            viewport: 0,
            unseen: false,
            restyling: 0,
            flushed: 0,
            flushed_answer: None,
            outputs: HashMap::new(),
            expand_outputs: false,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Switch themes. Short entries re-render at the next frame; answers (markdown with
    /// highlighted code) are re-rendered lazily — visible ones first, then a few per frame —
    /// so the input path never waits for a whole long session to be highlighted again.
    pub fn set_theme(&mut self, theme: &Theme) {
        self.theme = theme.clone();
        self.restyling = 0;
        for e in &mut self.entries {
            if matches!(e.kind, Kind::Assistant { .. }) {
                e.restyle = true;
                self.restyling += 1;
            } else {
                e.width = 0;
            }
        }
    }

    /// Re-render every answer (for example once highlighting becomes available).
    pub fn rerender(&mut self) {
        let theme = self.theme.clone();
        self.set_theme(&theme);
    }

    /// Whether answers are still waiting to be re-rendered (frames are needed).
    pub fn restyling(&self) -> bool {
        self.restyling > 0
    }

    fn restyle(&mut self, i: usize) {
        let e = &mut self.entries[i];
        if !e.restyle {
            return;
        }
        if let Kind::Assistant { md, done } = &mut e.kind {
            let mut fresh = MarkdownStream::new(&self.theme);
            fresh.push(&md.source());
            if *done {
                fresh.finish();
            }
            **md = fresh;
        }
        e.restyle = false;
        e.width = 0;
        self.restyling -= 1;
    }

    /// Entries visible with the previous frame's layout.
    fn visible_entries(&self) -> std::ops::Range<usize> {
        let (mut line, mut first, mut last) = (0usize, None, 0usize);
        for (i, h) in self.heights.iter().enumerate() {
            if line + h > self.top && first.is_none() {
                first = Some(i);
            }
            if line >= self.top + self.viewport {
                break;
            }
            last = i + 1;
            line += h;
        }
        first.unwrap_or(0)..last.min(self.entries.len())
    }

    fn push(&mut self, kind: Kind) {
        self.entries.push(Entry {
            kind,
            lines: Vec::new(),
            wrapped_upto: 0,
            width: 0,
            tail: Vec::new(),
            restyle: false,
        });
        if !self.follow {
            self.unseen = true;
        }
    }

    /// A message from the person.
    pub fn push_user(&mut self, text: &str) {
        self.finish_answer();
        self.push(Kind::User(text.to_string()));
    }

    /// A notice line.
    pub fn push_notice(&mut self, level: NoticeLevel, text: &str) {
        self.finish_answer();
        self.push(Kind::Notice(level, text.to_string()));
    }

    /// Reasoning text (appended to the last reasoning entry while it streams).
    pub fn push_reasoning(&mut self, text: &str) {
        if let Some(Entry {
            kind: Kind::Reasoning(r),
            width,
            ..
        }) = self.entries.last_mut()
        {
            r.push_str(text);
            *width = 0;
            return;
        }
        self.push(Kind::Reasoning(text.to_string()));
    }

    /// Streamed answer text.
    pub fn push_delta(&mut self, text: &str) {
        let index = match self.streaming {
            Some(i) => i,
            None => {
                self.push(Kind::Assistant {
                    md: Box::new(MarkdownStream::new(&self.theme)),
                    done: false,
                });
                let i = self.entries.len() - 1;
                self.streaming = Some(i);
                i
            }
        };
        if let Kind::Assistant { md, .. } = &mut self.entries[index].kind {
            md.push(text);
        }
        if !self.follow {
            self.unseen = true;
        }
    }

    /// A complete answer that did not stream (e.g. from a resumed session).
    pub fn push_answer(&mut self, text: &str) {
        self.finish_answer();
        let mut md = MarkdownStream::new(&self.theme);
        md.push(text);
        md.finish();
        self.push(Kind::Assistant {
            md: Box::new(md),
            done: true,
        });
    }

    /// The streaming answer is complete.
    pub fn finish_answer(&mut self) {
        if let Some(i) = self.streaming.take()
            && let Kind::Assistant { md, done } = &mut self.entries[i].kind
        {
            md.finish();
            *done = true;
        }
    }

    /// A line for a tool call.
    pub fn push_tool(&mut self, id: &str, summary: &str) {
        self.finish_answer();
        self.push(Kind::Tool {
            id: id.to_string(),
            summary: summary.to_string(),
        });
    }

    /// Update a tool call's mark.
    pub fn mark_tool(&mut self, id: &str, mark: ToolMark) {
        if self.marks.get(id) == Some(&mark) {
            return;
        }
        self.marks.insert(id.to_string(), mark);
        self.invalidate_tool(id);
    }

    /// Show a finished command's output under its row.
    pub fn set_output(&mut self, id: &str, output: super::command_output::CommandOutput) {
        self.outputs.insert(id.to_string(), output);
        self.invalidate_tool(id);
    }

    /// Show outputs whole, or by their last lines again (Ctrl+O).
    pub fn toggle_outputs(&mut self) {
        self.expand_outputs = !self.expand_outputs;
        let tools = self
            .entries
            .iter_mut()
            .filter(|e| matches!(e.kind, Kind::Tool { .. }));
        tools.for_each(|e| e.width = 0);
    }

    fn invalidate_tool(&mut self, id: &str) {
        for e in self.entries.iter_mut().rev().take(200) {
            if matches!(&e.kind, Kind::Tool { id: eid, .. } if eid == id) {
                e.width = 0;
                break;
            }
        }
    }

    /// Remove everything.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.outputs.clear();
        self.restyling = 0;
        self.streaming = None;
        self.marks.clear();
        self.follow = true;
        self.top = 0;
        self.unseen = false;
    }

    fn render_entry(&self, kind: &Kind) -> Vec<StyledLine> {
        let t = &self.theme;
        match kind {
            Kind::User(text) => {
                let style = Style::default().fg(t.user).add_modifier(Modifier::BOLD);
                let (text, chips) = super::attachments::split(text);
                let chip_style = Style::default().fg(t.accent);
                text.lines()
                    .enumerate()
                    .map(|(i, l)| StyledLine {
                        spans: vec![
                            Span::styled(if i == 0 { "› " } else { "  " }, style),
                            Span::styled(l.to_string(), style),
                        ],
                        continuation: vec![Span::raw("  ")],
                        fill: None,
                    })
                    .chain(chips.into_iter().map(|c| StyledLine {
                        spans: vec![Span::raw("  "), Span::styled(format!("⎘ {c}"), chip_style)],
                        continuation: vec![Span::raw("    ")],
                        fill: None,
                    }))
                    .collect()
            }
            Kind::Assistant { .. } => Vec::new(),
            Kind::Reasoning(text) => {
                let style = Style::default().fg(t.dim).add_modifier(Modifier::ITALIC);
                text.lines()
                    .map(|l| StyledLine {
                        spans: vec![
                            Span::styled("┆ ", style),
                            Span::styled(l.to_string(), style),
                        ],
                        continuation: vec![Span::styled("┆ ", style)],
                        fill: None,
                    })
                    .collect()
            }
            Kind::Notice(level, text) => {
                let (icon, color) = match level {
                    NoticeLevel::Info => ("ℹ ", t.dim),
                    NoticeLevel::Warning => ("↻ ", t.warning),
                    NoticeLevel::Error => ("✗ ", t.error),
                };
                let style = Style::default().fg(color);
                text.lines()
                    .enumerate()
                    .map(|(i, l)| StyledLine {
                        spans: vec![
                            Span::styled(if i == 0 { icon } else { "  " }, style),
                            Span::styled(l.to_string(), style),
                        ],
                        continuation: vec![Span::raw("  ")],
                        fill: None,
                    })
                    .collect()
            }
            Kind::Tool { id, summary } => {
                let mark = self.marks.get(id).cloned().unwrap_or(ToolMark {
                    icon: "○".into(),
                    style: Style::default().fg(t.dim),
                });
                let output = self.outputs.get(id).map(|o| o.rows(self.expand_outputs, t));
                std::iter::once(StyledLine {
                    spans: vec![
                        Span::styled(format!("  {} ", mark.icon), mark.style),
                        Span::styled(summary.clone(), Style::default().fg(t.dim)),
                    ],
                    continuation: vec![Span::raw("    ")],
                    fill: None,
                })
                .chain(output.into_iter().flatten())
                .collect()
            }
        }
    }

    /// The whole conversation as logical lines for the normal screen after exit (see
    /// `scrollback.rs`): answers as rendered markdown (the streaming one as far as it
    /// came), tool calls one line each, a blank line between entries.
    pub fn scrollback_lines(&self) -> Vec<StyledLine> {
        let mut out = Vec::new();
        for e in &self.entries {
            if !out.is_empty() {
                out.push(StyledLine::blank());
            }
            match &e.kind {
                Kind::Assistant { md, done } => {
                    out.extend(md.committed().iter().cloned());
                    if !done {
                        out.extend(md.provisional());
                    }
                }
                other => out.extend(self.render_entry(other)),
            }
        }
        out
    }

    /// The entry on row `row` of the chat (0 is its first visible line), as last drawn.
    pub fn entry_at(&self, row: u16) -> Option<usize> {
        let mut line = self.top + row as usize;
        for (i, h) in self.heights.iter().enumerate() {
            if line < *h {
                return Some(i);
            }
            line -= h;
        }
        None
    }

    /// The clean text of the entries in `range`: what was said, not how it was drawn (no
    /// wrapping, borders, markers or chips), a blank line between entries. For copying a
    /// selection made with the mouse.
    pub fn clean_text(&self, range: std::ops::RangeInclusive<usize>) -> String {
        let mut parts = Vec::new();
        for e in self.entries.iter().skip(*range.start()).take(range.count()) {
            parts.push(match &e.kind {
                Kind::User(text) => super::attachments::split(text).0.trim_end().to_string(),
                Kind::Assistant { md, .. } => md.source().trim_end().to_string(),
                Kind::Reasoning(text) | Kind::Notice(_, text) => text.trim_end().to_string(),
                Kind::Tool { summary, .. } => summary.clone(),
            });
        }
        parts.join("\n\n")
    }

    /// The source text of the last answer, if any (for `/copy`).
    pub fn last_answer(&self) -> Option<String> {
        self.entries
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                Kind::Assistant { md, .. } => Some(md.source()),
                _ => None,
            })
            .or_else(|| self.flushed_answer.clone())
    }

    /// How many entries were handed to the scrollback (inline mode).
    pub fn flushed(&self) -> usize {
        self.flushed
    }

    /// How many entries at the front will not change any more: those before the answer
    /// being streamed and before the first tool call that `settled` says is still open.
    pub fn settled_prefix(&self, settled: impl Fn(&str) -> bool) -> usize {
        self.entries
            .iter()
            .enumerate()
            .take_while(|(i, e)| {
                self.streaming != Some(*i)
                    && match &e.kind {
                        Kind::Tool { id, .. } => settled(id),
                        _ => true,
                    }
            })
            .count()
    }

    /// Remove the first `n` entries, returning their lines for the terminal's scrollback
    /// (inline mode), each entry followed by a blank line.
    pub fn drain_front(&mut self, n: usize) -> Vec<StyledLine> {
        let n = n.min(self.entries.len());
        if n == 0 {
            return Vec::new();
        }
        let mut lines = Vec::new();
        for e in &self.entries[..n] {
            match &e.kind {
                Kind::Assistant { md, .. } => {
                    lines.extend(md.committed().iter().cloned());
                    self.flushed_answer = Some(md.source());
                }
                other => lines.extend(self.render_entry(other)),
            }
            lines.push(StyledLine::blank());
        }
        let height: usize = self.heights.iter().take(n).sum();
        for e in self.entries.drain(..n) {
            if e.restyle {
                self.restyling -= 1;
            }
            if let Kind::Tool { id, .. } = &e.kind {
                self.marks.remove(id);
                self.outputs.remove(id);
            }
        }
        self.heights.drain(..n.min(self.heights.len()));
        self.streaming = self.streaming.and_then(|i| i.checked_sub(n));
        self.top = self.top.saturating_sub(height);
        self.total = self.total.saturating_sub(height);
        self.flushed += n;
        lines
    }

    /// Bring every entry's wrapped lines up to date for `width` and a viewport of
    /// `height` lines.
    pub fn prepare(&mut self, width: u16, height: u16) {
        self.viewport = height as usize;
        if self.restyling > 0 {
            for i in self.visible_entries() {
                self.restyle(i);
            }
            let mut budget = RESTYLE_PER_FRAME;
            let mut i = self.entries.len();
            while budget > 0 && self.restyling > 0 && i > 0 {
                i -= 1;
                if self.entries[i].restyle {
                    self.restyle(i);
                    budget -= 1;
                }
            }
        }
        let mut heights = std::mem::take(&mut self.heights);
        heights.resize(self.entries.len(), 0);
        for i in 0..self.entries.len() {
            let stale = self.entries[i].width != width;
            let streaming = self.streaming == Some(i);
            if !stale && !streaming && !matches!(self.entries[i].kind, Kind::Assistant { .. }) {
                continue;
            }
            if stale {
                let fresh = match &self.entries[i].kind {
                    Kind::Assistant { .. } => Vec::new(),
                    other => self
                        .render_entry(other)
                        .iter()
                        .flat_map(|l| wrap(l, width))
                        .collect(),
                };
                let e = &mut self.entries[i];
                e.lines = fresh;
                e.wrapped_upto = 0;
                e.width = width;
                e.tail.clear();
            }
            let e = &mut self.entries[i];
            if let Kind::Assistant { md, .. } = &e.kind {
                let committed = md.committed();
                if e.wrapped_upto < committed.len() {
                    for l in &committed[e.wrapped_upto..] {
                        e.lines.extend(wrap(l, width));
                    }
                    e.wrapped_upto = committed.len();
                }
                e.tail = if streaming {
                    md.provisional()
                        .iter()
                        .flat_map(|l| wrap(l, width))
                        .collect()
                } else {
                    Vec::new()
                };
            }
        }
        let mut total = 0;
        for (i, e) in self.entries.iter().enumerate() {
            let h = e.lines.len() + e.tail.len() + 1;
            heights[i] = h;
            total += h;
        }
        self.heights = heights;
        self.total = total;
        if self.follow {
            self.top = self.total.saturating_sub(self.viewport);
            self.unseen = false;
        } else {
            self.top = self.top.min(self.total.saturating_sub(self.viewport));
            if self.top + self.viewport >= self.total {
                self.follow = true;
                self.unseen = false;
            }
        }
    }

    /// Total wrapped height (after `prepare`).
    pub fn total_height(&self) -> usize {
        self.total
    }

    /// Scroll up by `lines`.
    pub fn scroll_up(&mut self, lines: usize) {
        if self.follow {
            self.top = self.total.saturating_sub(self.viewport);
        }
        self.follow = false;
        self.top = self.top.saturating_sub(lines);
    }

    /// Scroll down by `lines` (following the bottom again when it is reached).
    pub fn scroll_down(&mut self, lines: usize) {
        if self.follow {
            return;
        }
        self.top += lines;
        if self.top + self.viewport >= self.total {
            self.follow = true;
            self.unseen = false;
        }
    }

    /// Jump to the start.
    pub fn scroll_home(&mut self) {
        self.follow = false;
        self.top = 0;
    }

    /// Jump to the end and follow new output.
    pub fn scroll_end(&mut self) {
        self.follow = true;
        self.unseen = false;
    }

    /// Whether the view follows new output.
    pub fn following(&self) -> bool {
        self.follow
    }

    /// Draw the visible lines into `area` (after `prepare` with its size).
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let mut y = area.y;
        let bottom = area.y + area.height;
        let mut skip = self.top;
        for (i, e) in self.entries.iter().enumerate() {
            let h = self.heights.get(i).copied().unwrap_or(0);
            if skip >= h {
                skip -= h;
                continue;
            }
            let lines = e.lines.iter().chain(e.tail.iter());
            for line in lines.skip(skip) {
                if y >= bottom {
                    break;
                }
                buf.set_line(area.x, y, line, area.width);
                y += 1;
            }
            if skip < h && y < bottom {
                y += 1;
            }
            skip = 0;
            if y >= bottom {
                break;
            }
        }
        if self.unseen && !self.follow && area.height > 0 {
            let marker = Line::from(Span::styled(
                " ↓ new output below (Ctrl+End to follow) ",
                Style::default()
                    .fg(self.theme.status_fg)
                    .bg(self.theme.status_bg),
            ));
            let w = marker.width() as u16;
            let x = area.x + area.width.saturating_sub(w) / 2;
            buf.set_line(x, bottom - 1, &marker, w.min(area.width));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorDepth;

    fn theme() -> Theme {
        Theme::fallback(ColorDepth::TrueColor)
    }

    fn screen(t: &mut Transcript, w: u16, h: u16) -> Vec<String> {
        t.prepare(w, h);
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        t.render(area, &mut buf);
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn follows_the_bottom_and_holds_when_scrolled_up() {
        let mut t = Transcript::new(&theme());
        for i in 0..20 {
            t.push_user(&format!("message {i}"));
        }
        let s = screen(&mut t, 30, 5);
        assert!(s.iter().any(|l| l.contains("message 19")), "{s:?}");
        t.scroll_up(10);
        let before = screen(&mut t, 30, 5);
        t.push_user("brand new");
        let after = screen(&mut t, 30, 5);
        assert_eq!(before[..4], after[..4], "the view stays put");
        assert!(after[4].contains("new output below"), "{after:?}");
        t.scroll_end();
        let s = screen(&mut t, 30, 5);
        assert!(s.iter().any(|l| l.contains("brand new")));
    }

    #[test]
    fn streaming_answers_grow_in_place() {
        let mut t = Transcript::new(&theme());
        t.push_user("hi");
        t.push_delta("Hello");
        assert!(screen(&mut t, 30, 6).iter().any(|l| l == "Hello"));
        t.push_delta(" world\n\nSecond para");
        let s = screen(&mut t, 30, 6);
        assert!(
            s.iter().any(|l| l == "Hello world") && s.iter().any(|l| l == "Second para"),
            "{s:?}"
        );
        t.finish_answer();
        let s = screen(&mut t, 30, 6);
        assert!(s.iter().any(|l| l == "Second para"));
    }

    #[test]
    fn resize_rewraps() {
        let mut t = Transcript::new(&theme());
        t.push_answer("one two three four five six seven eight");
        let wide = screen(&mut t, 60, 4);
        let narrow = screen(&mut t, 12, 8);
        assert_eq!(wide.iter().filter(|l| !l.is_empty()).count(), 1);
        assert!(
            narrow.iter().filter(|l| !l.is_empty()).count() >= 3,
            "{narrow:?}"
        );
    }

    #[test]
    fn theme_switches_restyle_visible_answers_at_once_and_the_rest_over_frames() {
        let mut t = Transcript::new(&theme());
        for i in 0..500 {
            t.push_answer(&format!("answer **{i}**"));
        }
        screen(&mut t, 40, 10);
        t.set_theme(&Theme::load("light", ColorDepth::TrueColor).unwrap());
        assert!(t.restyling());
        let s = screen(&mut t, 40, 10);
        assert!(s.iter().any(|l| l.contains("answer 499")), "{s:?}");
        assert!(
            !t.entries[499].restyle,
            "the visible answer is restyled in the first frame"
        );
        assert!(
            t.entries[0].restyle,
            "the oldest answer waits for later frames"
        );
        assert!(t.restyling());
        for _ in 0..500 / RESTYLE_PER_FRAME + 1 {
            screen(&mut t, 40, 10);
        }
        assert!(
            !t.restyling(),
            "every answer is restyled after a few frames"
        );
    }

    #[test]
    fn ten_thousand_messages_render_only_what_is_visible() {
        let mut t = Transcript::new(&theme());
        for i in 0..10_000 {
            t.push_user(&format!("question {i}"));
            t.push_answer(&format!("answer {i} with **bold** text"));
        }
        let s = screen(&mut t, 40, 10);
        assert!(s.iter().any(|l| l.contains("answer 9999")), "{s:?}");
        t.scroll_home();
        let s = screen(&mut t, 40, 10);
        assert!(s[0].contains("question 0"), "{s:?}");
    }
}
