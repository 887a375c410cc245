//! The diff pane: a proposed or applied change as a unified diff with old and new line
//! numbers, a +/- gutter, added/removed colours, syntax colours inside the hunks, and
//! word-level emphasis of what changed within a line. While a change awaits approval the
//! hunks can be reviewed one by one: move between them, toggle each, apply the selection.
//!
//! Rendered lines are cached per width. Diffs longer than [`SYNC_LINES`] are laid out
//! on a background thread — the last layout (or a "preparing" line) shows meanwhile — so a
//! huge diff never stalls the input path; syntax colouring stops after
//! [`MAX_HIGHLIGHTED`] lines and word emphasis skips long lines.

use std::ops::Range;
use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use super::contrast::legible;
use super::highlight::{CodeHighlighter, language_of_path};
use super::theme::Theme;
use super::wrap::{StyledLine, wrap};
use crate::base::diff::{DiffLine, FileDiff, Hunk, LineKind};

/// Diff lines beyond this are shown without syntax colours.
pub const MAX_HIGHLIGHTED: usize = 3000;
/// Lines longer than this get no word-level emphasis.
const MAX_EMPHASIS: usize = 400;
/// Diffs up to this many lines are laid out at once; longer ones in the background.
pub const SYNC_LINES: usize = 2000;

/// Laid-out lines and where each hunk starts.
type Layout = (Vec<Line<'static>>, Vec<usize>);

/// One file's diff on screen.
#[derive(Debug, Default)]
pub struct DiffView {
    /// Workspace-relative path.
    pub path: String,
    /// The hunks (shared, so handing them to a background layout copies nothing).
    pub hunks: Arc<Vec<Hunk>>,
    /// Which hunks are selected for applying.
    pub selected: Vec<bool>,
    /// The hunk the cursor is on.
    pub cursor: usize,
    /// The call awaiting approval, when reviewing.
    pub reviewing: Option<String>,
    /// First visible line.
    pub scroll: usize,
    /// The rows the diff was last drawn in (scrolling stops at the last screen; a page is
    /// this many rows).
    pub viewport: usize,
    /// Notes shown above the diff (e.g. a tolerant match).
    pub notes: Vec<String>,
    /// Whether the file would be created.
    pub creates: bool,
    /// Lines added, removed, and in all (counted once per diff, for the pane's title).
    pub counts: (usize, usize, usize),
    /// The files of a multi-file change, each over a run of `hunks` (empty for one file).
    pub sections: Vec<Section>,
    /// Bumped on every change that alters the layout.
    generation: u64,
    /// The last layout, the (width, generation) it is for, and its lines.
    cache: Option<((u16, u64), Layout)>,
    /// A background layout under way: what it is for, and where it will arrive.
    job: Option<((u16, u64), std::sync::mpsc::Receiver<Layout>)>,
}

/// One file of a multi-file diff: where its hunks are in the view's flat list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Workspace-relative path.
    pub path: String,
    /// What happens to the file ("new file", "deleted", "moved from x"), if not a change.
    pub label: Option<String>,
    /// Index of its first hunk.
    pub first: usize,
    /// How many hunks it has (at least one: a file with no line changes, such as a pure
    /// move, gets an empty hunk so it can be reviewed like the others).
    pub len: usize,
}

/// Byte ranges that changed between two versions of a line (word level).
fn changed_ranges(old: &str, new: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    if old.len() > MAX_EMPHASIS || new.len() > MAX_EMPHASIS {
        return (Vec::new(), Vec::new());
    }
    let diff = TextDiff::from_words(old, new);
    let (mut o, mut n) = (Vec::new(), Vec::new());
    let (mut op, mut np) = (0usize, 0usize);
    for change in diff.iter_all_changes() {
        let len = change.value().len();
        match change.tag() {
            ChangeTag::Equal => {
                op += len;
                np += len;
            }
            ChangeTag::Delete => {
                if !change.value().trim().is_empty() {
                    o.push(op..op + len);
                }
                op += len;
            }
            ChangeTag::Insert => {
                if !change.value().trim().is_empty() {
                    n.push(np..np + len);
                }
                np += len;
            }
        }
    }
    (o, n)
}

/// Apply a background to the parts of `spans` (covering `text`) inside `ranges`.
fn emphasize(
    spans: Vec<Span<'static>>,
    ranges: &[Range<usize>],
    style: Style,
) -> Vec<Span<'static>> {
    if ranges.is_empty() {
        return spans;
    }
    let mut out = Vec::new();
    let mut pos = 0usize;
    for span in spans {
        let text = span.content.to_string();
        let start = pos;
        pos += text.len();
        let mut cuts: Vec<usize> = vec![0, text.len()];
        for r in ranges {
            for b in [r.start, r.end] {
                if b > start && b < pos && text.is_char_boundary(b - start) {
                    cuts.push(b - start);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let piece = &text[w[0]..w[1]];
            if piece.is_empty() {
                continue;
            }
            let abs = start + w[0];
            let inside = ranges.iter().any(|r| r.start <= abs && abs < r.end);
            let st = if inside {
                span.style.patch(style)
            } else {
                span.style
            };
            out.push(Span::styled(piece.to_string(), st));
        }
    }
    out
}

impl DiffView {
    /// Show `diff` of `path`.
    pub fn show(
        &mut self,
        path: &str,
        hunks: Arc<Vec<Hunk>>,
        reviewing: Option<String>,
        notes: Vec<String>,
        creates: bool,
    ) {
        self.path = path.to_string();
        self.selected = vec![true; hunks.len()];
        let lines = hunks.iter().flat_map(|h| &h.lines);
        let (mut added, mut removed, mut all) = (0, 0, 0);
        for l in lines {
            all += 1;
            match l.kind {
                LineKind::Added => added += 1,
                LineKind::Removed => removed += 1,
                LineKind::Context => {}
            }
        }
        self.counts = (added, removed, all);
        self.hunks = hunks;
        self.cursor = 0;
        self.scroll = 0;
        self.reviewing = reviewing;
        self.notes = notes;
        self.creates = creates;
        self.sections = Vec::new();
        self.cache = None;
        self.job = None;
        self.invalidate();
    }

    /// Show a call's files: one file as [`DiffView::show`] does; several (or a delete or a
    /// move) with a header per file, every file's hunks reviewable in one list.
    pub fn show_files(&mut self, files: &[crate::call_diff::DiffFile], reviewing: Option<String>) {
        if let [f] = files
            && !f.deletes
            && f.moved_from.is_none()
        {
            self.show(
                &f.path,
                f.hunks.clone(),
                reviewing,
                f.notes.clone(),
                f.creates,
            );
            return;
        }
        let mut hunks = Vec::new();
        let mut sections = Vec::new();
        let mut notes = Vec::new();
        for f in files {
            let label = match (&f.moved_from, f.deletes, f.creates) {
                (Some(from), _, _) => Some(format!("moved from {from}")),
                (None, true, _) => Some("deleted".to_string()),
                (None, false, true) => Some("new file".to_string()),
                _ => None,
            };
            let first = hunks.len();
            hunks.extend(f.hunks.iter().cloned());
            if f.hunks.is_empty() {
                hunks.push(Hunk {
                    old_start: 0,
                    old_len: 0,
                    new_start: 0,
                    new_len: 0,
                    lines: Vec::new(),
                });
            }
            sections.push(Section {
                path: f.path.clone(),
                label,
                first,
                len: hunks.len() - first,
            });
            notes.extend(f.notes.iter().cloned());
        }
        let title = format!("{} files", files.len());
        self.show(&title, Arc::new(hunks), reviewing, notes, false);
        self.sections = sections;
    }

    /// The file the cursor's hunk belongs to, in a multi-file diff.
    pub fn section_at_cursor(&self) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| (s.first..s.first + s.len).contains(&self.cursor))
    }

    /// Toggle every hunk of the file under the cursor (all on if any was off).
    pub fn toggle_file(&mut self) {
        let range = match self.section_at_cursor() {
            Some(s) => s.first..s.first + s.len,
            None => 0..self.selected.len(),
        };
        let on = !self.selected[range.clone()].iter().all(|s| *s);
        for s in &mut self.selected[range] {
            *s = on;
        }
        self.invalidate();
    }

    /// Show a structured diff.
    pub fn show_diff(
        &mut self,
        path: &str,
        diff: &FileDiff,
        reviewing: Option<String>,
        notes: Vec<String>,
        creates: bool,
    ) {
        self.show(
            path,
            Arc::new(diff.hunks.clone()),
            reviewing,
            notes,
            creates,
        );
    }

    /// Whether there is anything to show.
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty() && self.path.is_empty()
    }

    /// Toggle the hunk under the cursor.
    pub fn toggle(&mut self) {
        if let Some(s) = self.selected.get_mut(self.cursor) {
            *s = !*s;
            self.invalidate();
        }
    }

    /// Move the cursor to another hunk and scroll it into view.
    pub fn move_hunk(&mut self, delta: isize) {
        if self.hunks.is_empty() {
            return;
        }
        let last = self.hunks.len() as isize - 1;
        self.cursor = (self.cursor as isize + delta).clamp(0, last) as usize;
        if let Some((_, (_, starts))) = &self.cache {
            self.scroll = starts
                .get(self.cursor)
                .copied()
                .unwrap_or(0)
                .saturating_sub(1);
        }
        self.invalidate();
    }

    /// "+1500 -1500 · 3,012 lines": what the pane's title says about the diff, so a big
    /// one is known to be whole.
    pub fn summary(&self) -> String {
        let (added, removed, all) = self.counts;
        let digits = all.to_string();
        let mut lines = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                lines.push(',');
            }
            lines.push(c);
        }
        format!("+{added} -{removed} · {lines} lines")
    }

    /// Scroll by lines, stopping at the last screen (so one key up after running past
    /// the end moves the view at once).
    pub fn scroll_by(&mut self, delta: isize) {
        let next = self.scroll.saturating_add_signed(delta);
        let last = match &self.cache {
            Some((_, (lines, _))) if self.viewport > 0 => lines.len().saturating_sub(self.viewport),
            _ => usize::MAX,
        };
        self.scroll = next.min(last);
    }

    fn build(&self, width: u16, theme: &Theme) -> (Vec<Line<'static>>, Vec<usize>) {
        let mut out = self.title_lines(width, theme);
        let mut starts = Vec::new();
        let num_w = self
            .hunks
            .iter()
            .flat_map(|h| [h.old_start + h.old_len, h.new_start + h.new_len])
            .max()
            .unwrap_or(1)
            .to_string()
            .len()
            .max(3);
        let mut lang = language_of_path(&self.path);
        let mut highlighted = 0usize;
        for (hi, hunk) in self.hunks.iter().enumerate() {
            if let Some(section) = self.sections.iter().find(|s| s.first == hi) {
                lang = language_of_path(&section.path);
                out.push(self.section_header(section, theme));
            }
            starts.push(out.len());
            out.push(self.hunk_header(hi, hunk, theme));
            let dimmed =
                self.reviewing.is_some() && !self.selected.get(hi).copied().unwrap_or(true);
            let mut hl = CodeHighlighter::new(
                &lang,
                &theme.id.syntax,
                theme.id.depth,
                Style::default().fg(theme.text),
            );
            let emphasis = word_emphasis(hunk);
            for (li, line) in hunk.lines.iter().enumerate() {
                let code = if highlighted < MAX_HIGHLIGHTED && !dimmed {
                    highlighted += 1;
                    hl.line(line.text())
                } else {
                    vec![Span::styled(
                        line.text().to_string(),
                        Style::default().fg(theme.text),
                    )]
                };
                let styled = diff_line(line, code, &emphasis[li], num_w, dimmed, theme);
                out.extend(wrap(&styled, width));
            }
        }
        (out, starts)
    }

    /// The file's name with its counts, and the tool's notes.
    fn title_lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let mut out: Vec<Line<'static>> = Vec::new();
        let added: usize = self.hunks.iter().map(Hunk::added).sum();
        let removed: usize = self.hunks.iter().map(Hunk::removed).sum();
        let title = format!(
            "{}{}",
            self.path,
            if self.creates { " (new file)" } else { "" }
        );
        out.push(Line::from(vec![
            Span::styled(
                title,
                Style::default().fg(theme.text).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!("  +{added}"), Style::default().fg(theme.diff.added)),
            Span::styled(
                format!(" -{removed}"),
                Style::default().fg(theme.diff.removed),
            ),
        ]));
        for n in &self.notes {
            out.extend(wrap(
                &StyledLine::plain(format!("note: {n}"), Style::default().fg(theme.warning)),
                width,
            ));
        }
        out
    }

    /// Hunk `hi`'s header line; in a review, with its pointer and check box.
    fn hunk_header(&self, hi: usize, hunk: &Hunk, theme: &Theme) -> Line<'static> {
        let mut header = Vec::new();
        if self.reviewing.is_some() {
            let pointer = if hi == self.cursor { "▶ " } else { "  " };
            let check = if self.selected.get(hi).copied().unwrap_or(true) {
                "[x] "
            } else {
                "[ ] "
            };
            header.push(Span::styled(
                pointer,
                Style::default()
                    .fg(theme.accent)
                    .add_modifier(Modifier::BOLD),
            ));
            header.push(Span::styled(check, Style::default().fg(theme.accent)));
        }
        let header_text = if hunk.lines.is_empty() {
            "no line changes".to_string()
        } else {
            hunk.header()
        };
        header.push(Span::styled(header_text, Style::default().fg(theme.accent)));
        Line::from(header)
    }

    /// The bold line naming a file of a multi-file diff, with its counts.
    fn section_header(&self, section: &Section, theme: &Theme) -> Line<'static> {
        let hunks = &self.hunks[section.first..section.first + section.len];
        let added: usize = hunks.iter().map(Hunk::added).sum();
        let removed: usize = hunks.iter().map(Hunk::removed).sum();
        let mut spans = vec![Span::styled(
            format!("── {}", section.path),
            Style::default().fg(theme.text).add_modifier(Modifier::BOLD),
        )];
        if let Some(label) = &section.label {
            spans.push(Span::styled(
                format!(" ({label})"),
                Style::default().fg(theme.warning),
            ));
        }
        spans.push(Span::styled(
            format!("  +{added}"),
            Style::default().fg(theme.diff.added),
        ));
        spans.push(Span::styled(
            format!(" -{removed}"),
            Style::default().fg(theme.diff.removed),
        ));
        Line::from(spans)
    }

    /// A copy of what the layout depends on, for a background thread.
    fn snapshot(&self) -> DiffView {
        DiffView {
            sections: self.sections.clone(),
            path: self.path.clone(),
            hunks: self.hunks.clone(),
            selected: self.selected.clone(),
            cursor: self.cursor,
            reviewing: self.reviewing.clone(),
            notes: self.notes.clone(),
            creates: self.creates,
            ..DiffView::default()
        }
    }

    /// Bring the layout up to date for `width`: at once for small diffs, in the background
    /// for large ones (the previous layout stays on screen until the new one arrives).
    pub fn prepare(&mut self, width: u16, theme: &Theme) {
        let want = (width, self.generation);
        if self.cache.as_ref().is_some_and(|(key, _)| *key == want) {
            return;
        }
        // One background layout at a time: a stale one still running is awaited (and
        // shown) rather than abandoned, so toggling hunks quickly never piles up threads.
        if let Some((key, rx)) = &self.job {
            match rx.try_recv() {
                Ok(layout) => self.cache = Some((*key, layout)),
                Err(std::sync::mpsc::TryRecvError::Empty) => return,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {}
            }
            let done = *key == want;
            self.job = None;
            if done {
                return;
            }
        }
        let lines: usize = self.hunks.iter().map(|h| h.lines.len()).sum();
        if lines <= SYNC_LINES {
            self.cache = Some((want, self.build(width, theme)));
            self.job = None;
            return;
        }
        let snapshot = self.snapshot();
        let theme = theme.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(snapshot.build(width, &theme));
        });
        self.job = Some((want, rx));
    }

    /// Whether a background layout is under way (frames are needed to pick it up).
    pub fn building(&self) -> bool {
        self.job.is_some()
    }

    /// The layout must be redone (a change, a toggle, a theme switch).
    pub fn invalidate(&mut self) {
        self.generation += 1;
    }

    /// Draw the visible lines (after `prepare`).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some((_, (lines, _))) = &self.cache else {
            if self.job.is_some() {
                buf.set_stringn(
                    area.x,
                    area.y,
                    format!("preparing the diff of {}…", self.path),
                    area.width as usize,
                    Style::default().fg(theme.dim),
                );
            }
            return;
        };
        if self.hunks.is_empty() && self.path.is_empty() {
            buf.set_stringn(
                area.x,
                area.y,
                "no change selected",
                area.width as usize,
                Style::default().fg(theme.dim),
            );
            return;
        }
        let max_scroll = lines.len().saturating_sub(area.height as usize);
        let first = self.scroll.min(max_scroll);
        for (i, line) in lines
            .iter()
            .skip(first)
            .take(area.height as usize)
            .enumerate()
        {
            buf.set_line(area.x, area.y + i as u16, line, area.width);
        }
    }
}

/// The changed words of each line of `hunk`: each run of removed lines is paired with the
/// run of added lines after it, line by line.
fn word_emphasis(hunk: &Hunk) -> Vec<Vec<Range<usize>>> {
    let mut emphasis: Vec<Vec<Range<usize>>> = vec![Vec::new(); hunk.lines.len()];
    let mut i = 0;
    while i < hunk.lines.len() {
        if hunk.lines[i].kind != LineKind::Removed {
            i += 1;
            continue;
        }
        let rem_start = i;
        while i < hunk.lines.len() && hunk.lines[i].kind == LineKind::Removed {
            i += 1;
        }
        let add_start = i;
        while i < hunk.lines.len() && hunk.lines[i].kind == LineKind::Added {
            i += 1;
        }
        let pairs = (add_start - rem_start).min(i - add_start);
        for k in 0..pairs {
            let (o, n) = changed_ranges(
                hunk.lines[rem_start + k].text(),
                hunk.lines[add_start + k].text(),
            );
            emphasis[rem_start + k] = o;
            emphasis[add_start + k] = n;
        }
    }
    emphasis
}

/// One line of a hunk: its gutter (old and new numbers `num_w` wide, the sign) and its
/// `code` spans with the changed words (`emphasis`) stressed, in the added or removed
/// colours; all dim when its hunk is left out of a review.
fn diff_line(
    line: &DiffLine,
    code: Vec<Span<'static>>,
    emphasis: &[Range<usize>],
    num_w: usize,
    dimmed: bool,
    theme: &Theme,
) -> StyledLine {
    let (sign, fg, bg, emph) = match line.kind {
        LineKind::Added => (
            '+',
            theme.diff.added,
            theme.diff.added_bg,
            theme.diff.added_emphasis,
        ),
        LineKind::Removed => (
            '-',
            theme.diff.removed,
            theme.diff.removed_bg,
            theme.diff.removed_emphasis,
        ),
        LineKind::Context => (
            ' ',
            theme.dim,
            ratatui::style::Color::Reset,
            ratatui::style::Color::Reset,
        ),
    };
    let num = |n: Option<usize>| {
        n.map(|v| format!("{v:>num_w$}"))
            .unwrap_or_else(|| " ".repeat(num_w))
    };
    let gutter = format!("{} {} {sign} ", num(line.old_no), num(line.new_no));
    let emph_style = if emph == ratatui::style::Color::Reset {
        Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    } else {
        Style::default().bg(emph)
    };
    let code = emphasize(code, emphasis, emph_style);
    let mut spans = vec![Span::styled(gutter.clone(), Style::default().fg(fg))];
    for s in code {
        let mut st = s.style;
        if line.kind != LineKind::Context {
            st = st.bg(st
                .bg
                .filter(|c| *c != ratatui::style::Color::Reset)
                .unwrap_or(bg));
            if bg == ratatui::style::Color::Reset {
                st = st.fg(fg);
            }
        }
        st = if dimmed {
            Style::default().fg(theme.dim)
        } else {
            legible(st, theme)
        };
        spans.push(Span::styled(s.content, st));
    }
    let fill = (line.kind != LineKind::Context && !dimmed).then(|| Style::default().bg(bg));
    StyledLine {
        spans,
        continuation: vec![Span::raw(" ".repeat(gutter.chars().count()))],
        fill,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_emphasis_marks_only_changed_words() {
        let (o, n) = changed_ranges("let x = compute(1);", "let x = compute(2);");
        assert_eq!(o.len(), 1);
        assert_eq!(n.len(), 1);
        assert!(n[0].start >= "let x = ".len());
    }

    #[test]
    fn emphasis_splits_spans_at_boundaries() {
        let spans = vec![Span::raw("hello world")];
        let out = emphasize(
            spans,
            std::slice::from_ref(&(6..11)),
            Style::default().add_modifier(Modifier::BOLD),
        );
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].content, "world");
        assert!(out[1].style.add_modifier.contains(Modifier::BOLD));
    }

    fn rows(view: &DiffView, theme: &Theme) -> Vec<String> {
        let area = Rect::new(0, 0, 60, 6);
        let mut buf = Buffer::empty(area);
        view.render(area, &mut buf, theme);
        (0..area.height)
            .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect())
            .collect()
    }

    /// Prepare frames until no background layout is under way.
    fn settle(view: &mut DiffView, theme: &Theme) {
        for _ in 0..2000 {
            view.prepare(60, theme);
            if !view.building() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("the background layout never arrived");
    }

    #[test]
    fn large_diffs_are_laid_out_in_the_background() {
        let theme = Theme::fallback(crate::theme::ColorDepth::TrueColor);
        let old: String = (0..3 * SYNC_LINES).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line ", "LINE ");
        let mut view = DiffView::default();
        view.show_diff(
            "big.txt",
            &FileDiff::compute(&old, &new),
            None,
            vec![],
            false,
        );
        let small = FileDiff::compute("a\n", "b\n");
        assert!(small.hunks[0].lines.len() <= SYNC_LINES);
        view.prepare(60, &theme);
        assert!(
            view.building(),
            "a diff this long is not laid out on the input path"
        );
        assert!(rows(&view, &theme)[0].starts_with("preparing the diff of big.txt"));
        settle(&mut view, &theme);
        assert!(rows(&view, &theme).iter().any(|r| r.contains("big.txt")));

        // A toggle while laying out waits for the running job, then lays out again.
        view.toggle();
        view.prepare(60, &theme);
        view.toggle();
        settle(&mut view, &theme);
        assert!(view.selected[0], "two toggles leave the hunk selected");
        assert_eq!(
            view.cache.as_ref().map(|(key, _)| key.1),
            Some(view.generation)
        );

        let mut small_view = DiffView::default();
        small_view.show_diff("s.txt", &small, None, vec![], false);
        small_view.prepare(60, &theme);
        assert!(!small_view.building(), "small diffs are laid out at once");
    }
}
