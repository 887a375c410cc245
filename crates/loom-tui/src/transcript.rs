//! The conversation as the chat pane shows it, built so a frame costs what is on screen,
//! however long the session.
//!
//! Entries keep only their text (a resumed message: its place in the session file). Their
//! heights live in a [`HeightIndex`] — measured once rendered, estimated until then — so
//! finding the first visible line is O(log N). [`prepare`] renders just the entries in view
//! plus a margin, into a bounded [`RenderCache`]; the answer being streamed wraps only what
//! its markdown renderer newly committed. Scrolling keeps the view put (anchored to an
//! entry, so corrected estimates above it do not move it) while new output arrives below,
//! with a marker saying so. A theme switch restyles visible entries on ticks
//! ([`restyle_visible`]), never the whole conversation at once.
//!
//! [`prepare`]: Transcript::prepare
//! [`restyle_visible`]: Transcript::restyle_visible

use rustc_hash::FxHashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::height_index::HeightIndex;
use super::markdown::MarkdownStream;
use super::measured::Measured;
use super::render_cache::RenderCache;
use super::theme::Theme;
use super::transcript_entry::{Context, Entry, Kind, Outputs, Shape, Text};
use super::wrap::{StyledLine, wrap};
use crate::protocol::stored::{MessageAt, ReadMessage, SessionFile};

/// How serious a notice is, and a tool call's status mark (defined with the entries that
/// show them).
pub use super::transcript_entry::{NoticeLevel, ToolMark};

/// Lines rendered beyond the viewport (above and below), so a small scroll finds them
/// drawn.
pub const MARGIN_LINES: usize = 10;

/// Visible entries restyled per tick after a theme switch (a few milliseconds).
const RESTYLE_PER_TICK: usize = 8;

/// Most lines handed to the terminal's scrollback on exit (the newest entries; the rest
/// stays in the session file).
const SCROLLBACK_LINES: usize = 20_000;

/// The answer being streamed: its markdown renderer, the lines it committed (taken out of
/// it, so they are held once) and its wrapped unfinished tail.
struct Live {
    index: usize,
    md: Box<MarkdownStream>,
    /// Committed lines, measured at the transcript's width; they go to the cache whole
    /// when the answer is finished.
    done: Measured,
    /// Wrapped unfinished tail.
    tail: Vec<Line<'static>>,
}

/// Where the view stands: what the last `prepare` showed and whether it follows the end.
struct View {
    /// The first visible line, as of the last `prepare`.
    top: u64,
    /// When not following: the entry at the top of the view and the line inside it.
    anchor: (usize, u64),
    follow: bool,
    viewport: usize,
    /// The entries visible after the last `prepare`.
    visible: std::ops::Range<usize>,
    /// The entries the last `prepare` rendered or kept (the view and its margin).
    prepared: std::ops::Range<usize>,
    /// Whether output arrived below while scrolled up (the marker says so).
    unseen: bool,
}

/// The theme entries are drawn in.
struct Styling {
    theme: Theme,
    /// Bumped by each theme switch: cached lines of an older one are restyled.
    generation: u32,
}

/// What was handed to the terminal's scrollback (inline mode).
#[derive(Default)]
struct Flushed {
    /// Entries handed over and dropped from here.
    count: usize,
    /// The source of the last answer handed over (for `/copy`).
    answer: Option<String>,
}

/// The chat transcript.
pub struct Transcript {
    entries: Vec<Entry>,
    /// Heights at `width`, with the blank line after each entry.
    index: HeightIndex,
    width: u16,
    cache: RenderCache,
    live: Option<Live>,
    styling: Styling,
    /// Each call's mark, by call id (Fx-hashed: a resumed session has tens of thousands,
    /// and SipHash showed in its loading).
    marks: FxHashMap<String, ToolMark>,
    outputs: Outputs,
    /// Where resumed messages are read from.
    store: Option<SessionFile>,
    view: View,
    flushed: Flushed,
    /// Entries rendered so far (see [`Transcript::renders`]).
    renders: std::cell::Cell<u64>,
    /// Whether syntax highlighting was available when entries were last rendered (when it
    /// arrives later, they are rendered again).
    highlighted: bool,
    /// The entry a mouse selection started on (left button held).
    pub(crate) selecting: Option<usize>,
    /// Errors of several lines already shown in full (by fingerprint): said again, they
    /// take one line.
    pub(crate) shown_errors: std::collections::HashSet<u64>,
}

impl Transcript {
    /// An empty transcript.
    pub fn new(theme: &Theme) -> Transcript {
        Transcript {
            entries: Vec::new(),
            index: HeightIndex::default(),
            width: 0,
            cache: RenderCache::default(),
            live: None,
            styling: Styling {
                theme: theme.clone(),
                generation: 0,
            },
            marks: FxHashMap::default(),
            outputs: Outputs::default(),
            store: None,
            view: View {
                top: 0,
                anchor: (0, 0),
                follow: true,
                viewport: 0,
                visible: 0..0,
                prepared: 0..0,
                unseen: false,
            },
            flushed: Flushed::default(),
            renders: std::cell::Cell::new(0),
            highlighted: super::highlight::ready(),
            selecting: None,
            shown_errors: Default::default(),
        }
    }

    /// Whether highlighting is being loaded or has just arrived (frames are needed to
    /// pick it up).
    pub fn awaiting_highlighting(&self) -> bool {
        !self.highlighted && (super::highlight::ready() || super::highlight::loading())
    }

    /// Render again once syntax highlighting has arrived; true when it just did (other
    /// views of code render again too).
    pub fn pick_up_highlighting(&mut self) -> bool {
        if self.highlighted || !super::highlight::ready() {
            return false;
        }
        self.highlighted = true;
        self.rerender();
        true
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many times an entry was rendered (styled: markdown, highlighting) since the
    /// start, for the chat or the exit scrollback: tests prove with it that a frame renders
    /// what is in view and nothing else, and that nothing is rendered twice.
    pub fn renders(&self) -> u64 {
        self.renders.get()
    }

    /// How many rendered entries are kept (bounded; see `render_cache.rs`).
    pub fn cached_entries(&self) -> usize {
        self.cache.len()
    }

    fn context(&self) -> Context<'_> {
        Context {
            theme: &self.styling.theme,
            marks: &self.marks,
            outputs: &self.outputs,
            store: self.store.as_ref(),
        }
    }

    fn key(&self, i: usize) -> u64 {
        (self.flushed.count + i) as u64
    }

    /// Switch themes. Entries on screen are restyled over the next ticks (their old lines
    /// are shown until then), others when they come into view; the answer being streamed
    /// at once.
    pub fn set_theme(&mut self, theme: &Theme) {
        self.styling.theme = theme.clone();
        self.styling.generation = self.styling.generation.wrapping_add(1);
        if let Some(live) = &mut self.live {
            let mut fresh = MarkdownStream::new(&self.styling.theme);
            fresh.push(live.md.source());
            *live.md = fresh;
            live.done = Measured::of(Vec::new(), live.done.width());
        }
    }

    /// Render again (for example once highlighting becomes available).
    pub fn rerender(&mut self) {
        let theme = self.styling.theme.clone();
        self.set_theme(&theme);
    }

    /// Whether entries on screen still wait to be restyled (frames are needed).
    pub fn restyling(&self) -> bool {
        self.view.visible.clone().any(|i| self.stale(i))
    }

    fn stale(&self, i: usize) -> bool {
        self.cache
            .peek(self.key(i))
            .is_some_and(|r| r.generation != self.styling.generation)
    }

    /// Restyle a few of the visible entries still drawn in an older style (called on each
    /// tick, so it advances without keys and never touches what is off screen).
    pub fn restyle_visible(&mut self) {
        let mut budget = RESTYLE_PER_TICK;
        for i in self.view.visible.clone() {
            if budget == 0 {
                break;
            }
            if self.stale(i) {
                self.render_into_cache(i);
                budget -= 1;
            }
        }
    }

    fn push(&mut self, kind: Kind, shape: Shape) {
        let entry = Entry::new(kind, shape);
        self.index.push(entry.estimate(self.width, &self.outputs));
        self.entries.push(entry);
        if !self.view.follow {
            self.view.unseen = true;
        }
    }

    /// Read resumed messages from the session file at `path` (see
    /// [`Transcript::push_stored_user`]).
    pub fn open_store(&mut self, path: &std::path::Path, read: ReadMessage) -> std::io::Result<()> {
        self.store = Some(SessionFile::open(path, read)?);
        Ok(())
    }

    /// A resumed message from the person, read from the session file when shown;
    /// `text` gives its size (the text itself is not kept).
    pub fn push_stored_user(&mut self, at: MessageAt, text: &str) {
        self.finish_answer();
        self.push(Kind::User(Text::Stored(at)), Shape::of(text));
    }

    /// A resumed answer, read from the session file when shown.
    pub fn push_stored_answer(&mut self, at: MessageAt, text: &str) {
        self.finish_answer();
        self.push(Kind::Answer(Text::Stored(at)), Shape::of(text));
    }

    /// A message from the person.
    pub fn push_user(&mut self, text: &str) {
        self.finish_answer();
        self.push(Kind::User(Text::Inline(text.into())), Shape::of(text));
    }

    /// A notice line.
    pub fn push_notice(&mut self, level: NoticeLevel, text: &str) {
        self.finish_answer();
        self.push(Kind::Notice(level, text.into(), 0), Shape::of(text));
    }

    /// A notice whose lines after the first wrap with a hanging indent of `hang` columns
    /// (a card of labelled rows: a long value continues under itself, not its label).
    pub fn push_card(&mut self, level: NoticeLevel, text: &str, hang: usize) {
        self.finish_answer();
        self.push(Kind::Notice(level, text.into(), hang), Shape::of(text));
    }

    /// Reasoning text (appended to the last reasoning entry while it streams).
    pub fn push_reasoning(&mut self, text: &str) {
        let last = self.entries.len().checked_sub(1);
        if let Some(i) = last
            && let Kind::Reasoning(r) = &mut self.entries[i].kind
        {
            r.push_str(text);
            self.entries[i].shape.add(text);
            self.cache.remove(self.key(i));
            return;
        }
        self.push(Kind::Reasoning(text.into()), Shape::of(text));
    }

    /// Streamed answer text.
    pub fn push_delta(&mut self, text: &str) {
        if self.live.is_none() {
            self.push(Kind::Streaming, Shape::default());
            self.live = Some(Live {
                index: self.entries.len() - 1,
                md: Box::new(MarkdownStream::new(&self.styling.theme)),
                done: Measured::of(Vec::new(), self.width),
                tail: Vec::new(),
            });
        }
        if let Some(live) = &mut self.live {
            live.md.push(text);
            self.entries[live.index].shape.add(text);
        }
        if !self.view.follow {
            self.view.unseen = true;
        }
    }

    /// A complete answer that did not stream.
    pub fn push_answer(&mut self, text: &str) {
        self.finish_answer();
        self.push(Kind::Answer(Text::Inline(text.into())), Shape::of(text));
    }

    /// The streaming answer is complete: it keeps its source, and its lines go to the cache
    /// as they are (so finishing never renders it again; a width that changed meanwhile is
    /// measured again when it is next drawn).
    pub fn finish_answer(&mut self) {
        let Some(mut live) = self.live.take() else {
            return;
        };
        live.md.finish();
        let mut done = live.done;
        done.extend(live.md.take_committed());
        let i = live.index;
        self.entries[i].kind = Kind::Answer(Text::Inline(live.md.into_source()));
        if done.width() == self.width && self.width > 0 {
            self.index.set(i, done.rows() + 1);
        }
        let key = self.key(i);
        self.cache.insert(key, done, self.styling.generation);
    }

    /// A line for a tool call.
    pub fn push_tool(&mut self, id: &str, summary: &str) {
        self.finish_answer();
        let kind = Kind::Tool {
            id: id.into(),
            summary: summary.into(),
        };
        self.push(kind, Shape::default());
    }

    /// Show the model's plan: the block of the current turn (after the person's last
    /// message) is updated in place; a turn without one gets a new block (so does one
    /// whose block went to the terminal's scrollback in inline mode).
    pub fn set_plan(&mut self, plan: &crate::protocol::plan::Plan) {
        if let Some(i) = self.live_plan() {
            self.entries[i].kind = Kind::Plan(plan.clone());
            self.cache.remove(self.key(i));
            let estimate = self.entries[i].estimate(self.width, &self.outputs);
            self.index.set(i, estimate);
            return;
        }
        self.finish_answer();
        self.push(Kind::Plan(plan.clone()), Shape::default());
    }

    /// The plan block later plan updates go to: the last one, unless the person spoke
    /// since.
    fn live_plan(&self) -> Option<usize> {
        let i = self
            .entries
            .iter()
            .rposition(|e| matches!(e.kind, Kind::Plan(_) | Kind::User(_)))?;
        matches!(self.entries[i].kind, Kind::Plan(_)).then_some(i)
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
        self.outputs.map.insert(id.to_string(), output);
        self.invalidate_tool(id);
    }

    /// Show outputs whole, or by their last lines again (Ctrl+O).
    pub fn toggle_outputs(&mut self) {
        self.outputs.expanded = !self.outputs.expanded;
        for i in 0..self.entries.len() {
            if let Kind::Tool { id, .. } = &self.entries[i].kind
                && self.outputs.map.contains_key(id)
            {
                self.cache.remove(self.key(i));
                let estimate = self.entries[i].estimate(self.width, &self.outputs);
                self.index.set(i, estimate);
            }
        }
    }

    fn invalidate_tool(&mut self, id: &str) {
        let found = self
            .entries
            .iter()
            .enumerate()
            .rev()
            .take(200)
            .find(|(_, e)| matches!(&e.kind, Kind::Tool { id: eid, .. } if eid == id));
        if let Some((i, _)) = found {
            self.cache.remove(self.key(i));
        }
    }

    /// Remove everything.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.index = HeightIndex::default();
        self.cache.clear();
        self.live = None;
        self.outputs.map.clear();
        self.marks.clear();
        self.store = None;
        self.view.follow = true;
        self.view.top = 0;
        self.view.anchor = (0, 0);
        self.view.visible = 0..0;
        self.view.prepared = 0..0;
        self.view.unseen = false;
    }

    /// The entry on row `row` of the chat (0 is its first visible line), as last drawn.
    pub fn entry_at(&self, row: u16) -> Option<usize> {
        self.index
            .find(self.view.top + u64::from(row))
            .map(|(i, _)| i)
    }

    /// The clean text of the entries in `range`: what was said, not how it was drawn (no
    /// wrapping, borders, markers or chips), a blank line between entries. For copying a
    /// selection made with the mouse.
    pub fn clean_text(&self, range: std::ops::RangeInclusive<usize>) -> String {
        let ctx = self.context();
        let mut parts = Vec::new();
        for (i, e) in self
            .entries
            .iter()
            .enumerate()
            .skip(*range.start())
            .take(range.count())
        {
            parts.push(match (&self.live, &e.kind) {
                (Some(live), Kind::Streaming) if live.index == i => {
                    live.md.source().trim_end().to_string()
                }
                (_, kind) => ctx.clean(kind),
            });
        }
        parts.join("\n\n")
    }

    /// The source text of the last answer, if any (for `/copy`).
    pub fn last_answer(&self) -> Option<String> {
        let ctx = self.context();
        self.entries
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                Kind::Answer(text) => Some(ctx.text(text, false)),
                Kind::Streaming => self.live.as_ref().map(|l| l.md.source().to_string()),
                _ => None,
            })
            .or_else(|| self.flushed.answer.clone())
    }

    /// How many entries were handed to the scrollback (inline mode).
    pub fn flushed(&self) -> usize {
        self.flushed.count
    }

    /// How many entries at the front will not change any more: those before the answer
    /// being streamed and before the first tool call that `settled` says is still open.
    pub fn settled_prefix(&self, settled: impl Fn(&str) -> bool) -> usize {
        self.entries
            .iter()
            .take_while(|e| match &e.kind {
                Kind::Streaming => false,
                Kind::Tool { id, .. } => settled(id),
                _ => true,
            })
            .count()
    }

    /// Entry `i`'s logical lines, rendered now (counted in [`Transcript::renders`]).
    fn render_lines(&self, i: usize) -> Vec<StyledLine> {
        self.renders.set(self.renders.get() + 1);
        self.context().lines(&self.entries[i].kind)
    }

    /// Render entry `i` into the cache with the current theme, and measure it.
    fn render_into_cache(&mut self, i: usize) {
        let lines = Measured::of(self.render_lines(i), self.width);
        self.index.set(i, lines.rows() + 1);
        let key = self.key(i);
        self.cache.insert(key, lines, self.styling.generation);
    }

    /// Make sure entry `i` is rendered and measured at the current width.
    fn ensure(&mut self, i: usize) {
        if self.live.as_ref().is_some_and(|l| l.index == i) {
            return;
        }
        let width = self.width;
        let Some(lines) = self.cache.use_mut(self.key(i)) else {
            self.render_into_cache(i);
            return;
        };
        if lines.width() != width {
            lines.remeasure(width);
        }
        let height = lines.rows() + 1;
        if self.index.get(i) != height {
            self.index.set(i, height);
        }
    }

    /// Measure what the streaming answer newly committed (taking it out of the renderer)
    /// and wrap its tail.
    fn update_live(&mut self) {
        let width = self.width;
        let Some(live) = &mut self.live else { return };
        if live.done.width() != width {
            live.done.remeasure(width);
        }
        live.done.extend(live.md.take_committed());
        live.tail = live
            .md
            .provisional()
            .iter()
            .flat_map(|l| wrap(l, width))
            .collect();
        let height = live.done.rows() + live.tail.len() as u32 + 1;
        self.index.set(live.index, height);
    }

    /// Bring the entries in view (plus [`MARGIN_LINES`]) up to date for `width` and a
    /// viewport of `height` lines: O(visible + log N), whatever the transcript's length.
    pub fn prepare(&mut self, width: u16, height: u16) {
        self.view.viewport = height as usize;
        if width != self.width {
            // Heights are per width: every one becomes an estimate again (a resize is rare;
            // this is the one O(N) step, and only arithmetic). Rendered entries stay; they
            // are measured again as they come into view.
            self.width = width;
            let heights = self
                .entries
                .iter()
                .map(|e| e.estimate(width, &self.outputs))
                .collect();
            self.index = HeightIndex::from_heights(heights);
        }
        self.update_live();
        if !self.view.follow {
            self.fill_from_anchor();
        }
        if self.view.follow {
            self.fill_from_bottom();
        }
        let kept = self.key(self.view.prepared.start)..self.key(self.view.prepared.end);
        self.cache.shrink(kept);
        let last = self.view.top + self.view.viewport.max(1) as u64 - 1;
        let first = self.index.find(self.view.top).map_or(0, |(i, _)| i);
        let end = self
            .index
            .find(last)
            .map_or(self.entries.len(), |(i, _)| i + 1);
        self.view.visible = first..end;
    }

    /// Following the bottom: render entries from the last one up until the view and the
    /// margin are full.
    fn fill_from_bottom(&mut self) {
        let want = (self.view.viewport + MARGIN_LINES) as u64;
        let (mut acc, mut i) = (0u64, self.entries.len());
        while i > 0 && acc < want {
            i -= 1;
            self.ensure(i);
            acc += u64::from(self.index.get(i));
        }
        self.view.prepared = i..self.entries.len();
        self.view.top = self.index.total().saturating_sub(self.view.viewport as u64);
        self.view.unseen = false;
    }

    /// Scrolled: render from the anchor entry down until the view is full, and the margin
    /// above it; start following again when the bottom is in view.
    fn fill_from_anchor(&mut self) {
        let n = self.entries.len();
        if n == 0 {
            self.view.follow = true;
            return;
        }
        let (a, mut offset) = self.view.anchor;
        let a = a.min(n - 1);
        let (mut acc, mut j) = (0u64, a);
        while j > 0 && acc < MARGIN_LINES as u64 {
            j -= 1;
            self.ensure(j);
            acc += u64::from(self.index.get(j));
        }
        self.ensure(a);
        offset = offset.min(u64::from(self.index.get(a)).saturating_sub(1));
        self.view.anchor = (a, offset);
        let want = (self.view.viewport + MARGIN_LINES) as u64;
        let (mut acc, mut i) = (u64::from(self.index.get(a)) - offset, a + 1);
        while i < n && acc < want {
            self.ensure(i);
            acc += u64::from(self.index.get(i));
            i += 1;
        }
        self.view.prepared = j..i;
        self.view.top = self.index.prefix(a) + offset;
        if self.view.top + self.view.viewport as u64 >= self.index.total() {
            self.view.follow = true;
            self.view.unseen = false;
        }
    }

    /// Total wrapped height (after `prepare`; entries not yet rendered are estimated).
    pub fn total_height(&self) -> usize {
        self.index.total() as usize
    }

    fn anchor_line(&self) -> u64 {
        if self.view.follow {
            self.index.total().saturating_sub(self.view.viewport as u64)
        } else {
            self.index.prefix(self.view.anchor.0) + self.view.anchor.1
        }
    }

    fn set_top(&mut self, line: u64) {
        self.view.anchor = self.index.find(line).unwrap_or((0, 0));
    }

    /// Scroll up by `lines`.
    pub fn scroll_up(&mut self, lines: usize) {
        let top = self.anchor_line();
        self.view.follow = false;
        self.set_top(top.saturating_sub(lines as u64));
    }

    /// Scroll down by `lines` (following the bottom again when it is reached).
    pub fn scroll_down(&mut self, lines: usize) {
        if self.view.follow {
            return;
        }
        let top = self.anchor_line() + lines as u64;
        if top + self.view.viewport as u64 >= self.index.total() {
            self.view.follow = true;
            self.view.unseen = false;
        } else {
            self.set_top(top);
        }
    }

    /// Jump to the start.
    pub fn scroll_home(&mut self) {
        self.view.follow = false;
        self.view.anchor = (0, 0);
    }

    /// Jump to the end and follow new output.
    pub fn scroll_end(&mut self) {
        self.view.follow = true;
        self.view.unseen = false;
    }

    /// Whether the view follows new output.
    pub fn following(&self) -> bool {
        self.view.follow
    }

    /// Draw the visible lines into `area` (after `prepare` with its size).
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let bottom = area.y + area.height;
        let mut y = area.y;
        if let Some((mut i, mut skip)) = self.index.find(self.view.top) {
            while y < bottom && i < self.entries.len() {
                let height = u64::from(self.index.get(i));
                let wanted = height.saturating_sub(1).saturating_sub(skip) as usize;
                let draw = |buf: &mut Buffer, rows: &mut dyn Iterator<Item = Line<'static>>| {
                    for (row, line) in (y..bottom).zip(rows.take(wanted)) {
                        buf.set_line(area.x, row, &line, area.width);
                    }
                };
                match &self.live {
                    Some(live) if live.index == i => {
                        let done = u64::from(live.done.rows());
                        let tail = live.tail.iter().skip(skip.saturating_sub(done) as usize);
                        let mut rows = live.done.rows_from(skip as u32).chain(tail.cloned());
                        draw(buf, &mut rows);
                    }
                    _ => {
                        if let Some(r) = self.cache.peek(self.key(i)) {
                            draw(buf, &mut r.lines.rows_from(skip as u32));
                        }
                    }
                }
                // The entry's height decides where the next starts, drawn or not.
                let advance = height.saturating_sub(skip).min(u64::from(bottom - y));
                y += advance as u16;
                skip = 0;
                i += 1;
            }
        }
        if self.view.unseen && !self.view.follow && area.height > 0 {
            let marker = Line::from(Span::styled(
                " ↓ new output below (Ctrl+End to follow) ",
                Style::default()
                    .fg(self.styling.theme.status.fg)
                    .bg(self.styling.theme.status.bg),
            ));
            let w = marker.width() as u16;
            let x = area.x + area.width.saturating_sub(w) / 2;
            buf.set_line(x, bottom - 1, &marker, w.min(area.width));
        }
    }
}

#[path = "transcript_out.rs"]
mod out;

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
