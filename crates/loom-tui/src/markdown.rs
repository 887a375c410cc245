//! Markdown to styled lines, built for streaming.
//!
//! Answers arrive a few characters at a time; re-rendering the whole message per chunk is
//! what makes other assistants slow down quadratically. [`MarkdownStream`] works line by
//! line: a fenced code block's lines are highlighted as each completes (one highlighter per
//! block, keeping its state); other text is gathered into blocks that end at a blank line or
//! a fence, and each finished block is rendered once with pulldown-cmark (headings, emphasis,
//! lists, tables, block quotes, links). Only the unfinished block is rendered again per
//! frame, as [`MarkdownStream::provisional`].

use pulldown_cmark::{Alignment, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use super::contrast::legible;
use super::highlight::CodeHighlighter;
use super::theme::Theme;
use super::wrap::{StyledLine, width};

struct Fence {
    marker: char,
    len: usize,
    highlighter: CodeHighlighter,
}

/// An incrementally rendered markdown document.
pub struct MarkdownStream {
    theme: Theme,
    committed: Vec<StyledLine>,
    pending: String,
    partial: String,
    fence: Option<Fence>,
    source: String,
    /// Whether lines were taken ([`MarkdownStream::take_committed`]) and whether the last
    /// of them was blank: what the next block's separation depends on.
    taken: Option<bool>,
}

impl MarkdownStream {
    /// An empty document.
    pub fn new(theme: &Theme) -> MarkdownStream {
        MarkdownStream {
            theme: theme.clone(),
            committed: Vec::new(),
            pending: String::new(),
            partial: String::new(),
            fence: None,
            source: String::new(),
            taken: None,
        }
    }

    /// Everything pushed so far.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Everything pushed, given up (the stream is over).
    pub fn into_source(self) -> String {
        self.source
    }

    /// Render a whole document at once.
    pub fn render(text: &str, theme: &Theme) -> Vec<StyledLine> {
        let mut m = MarkdownStream::new(theme);
        m.push(text);
        m.finish();
        m.committed
    }

    /// Lines that will not change any more (since the last [`MarkdownStream::take_committed`]).
    pub fn committed(&self) -> &[StyledLine] {
        &self.committed
    }

    /// Move the lines committed so far out, so a caller that keeps them does not hold a
    /// second copy here; what follows renders as if they were still here.
    pub fn take_committed(&mut self) -> Vec<StyledLine> {
        if let Some(last) = self.committed.last() {
            self.taken = Some(*last == StyledLine::blank());
        }
        std::mem::take(&mut self.committed)
    }

    /// Whether a block starting now needs a blank line before it: something came before,
    /// and it did not end with one.
    fn needs_separator(&self) -> bool {
        match self.committed.last() {
            Some(last) => *last != StyledLine::blank(),
            None => self.taken == Some(false),
        }
    }

    /// Append streamed text.
    pub fn push(&mut self, text: &str) {
        self.source.push_str(text);
        self.partial.push_str(text);
        while let Some(nl) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=nl).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            self.line(line);
        }
    }

    /// The stream ended: render what is left.
    pub fn finish(&mut self) {
        if !self.partial.is_empty() {
            let rest = std::mem::take(&mut self.partial);
            self.line(&rest);
        }
        self.flush_block();
    }

    /// The unfinished tail, rendered as it stands now.
    pub fn provisional(&self) -> Vec<StyledLine> {
        if self.fence.is_some() {
            if self.partial.is_empty() {
                return Vec::new();
            }
            return vec![
                self.code_line(vec![Span::styled(self.partial.clone(), self.code_style())]),
            ];
        }
        let mut text = self.pending.clone();
        text.push_str(&self.partial);
        if text.trim().is_empty() {
            return Vec::new();
        }
        let mut lines = Vec::new();
        if self.needs_separator() {
            lines.push(StyledLine::blank());
        }
        lines.extend(render_block(&text, &self.theme));
        lines
    }

    fn code_style(&self) -> Style {
        Style::default()
            .fg(self.theme.text)
            .bg(self.theme.markdown.code_bg)
    }

    fn code_line(&self, code: Vec<Span<'static>>) -> StyledLine {
        let mut spans: Vec<Span<'static>> = Vec::with_capacity(code.len() + 1);
        spans.push(Span::styled(
            " ",
            Style::default().bg(self.theme.markdown.code_bg),
        ));
        for s in code {
            let st = legible(s.style.bg(self.theme.markdown.code_bg), &self.theme);
            // Neighbours the highlighter styled alike (once made legible) are one span: it
            // draws the same, and a long answer keeps thousands fewer strings.
            let tokens = spans.len() > 1;
            match spans.last_mut() {
                Some(last) if tokens && last.style == st => {
                    last.content.to_mut().push_str(&s.content)
                }
                _ => spans.push(Span::styled(s.content, st)),
            }
        }
        StyledLine {
            spans,
            continuation: vec![Span::styled(
                " ",
                Style::default().bg(self.theme.markdown.code_bg),
            )],
            fill: Some(Style::default().bg(self.theme.markdown.code_bg)),
        }
    }

    fn line(&mut self, line: &str) {
        if let Some(fence) = &mut self.fence {
            let t = line.trim_start();
            let closing = t.chars().take_while(|c| *c == fence.marker).count();
            if closing >= fence.len && t[closing * fence.marker.len_utf8()..].trim().is_empty() {
                self.fence = None;
                return;
            }
            let spans = fence.highlighter.line(line);
            let styled = self.code_line(spans);
            self.committed.push(styled);
            return;
        }
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let marker = t.chars().next().filter(|c| *c == '`' || *c == '~');
        if let Some(m) = marker
            && indent <= 3
        {
            let len = t.chars().take_while(|c| *c == m).count();
            let info = &t[len * m.len_utf8()..];
            if len >= 3 && !(m == '`' && info.contains('`')) {
                self.flush_block();
                self.separate();
                let lang = info.split_whitespace().next().unwrap_or("").to_string();
                let highlighter = CodeHighlighter::new(
                    &lang,
                    &self.theme.id.syntax,
                    self.theme.id.depth,
                    self.code_style(),
                );
                let label = if lang.is_empty() {
                    "code".to_string()
                } else {
                    lang.clone()
                };
                self.committed.push(StyledLine::plain(
                    format!("  {label}"),
                    Style::default()
                        .fg(self.theme.dim)
                        .add_modifier(Modifier::ITALIC),
                ));
                self.fence = Some(Fence {
                    marker: m,
                    len,
                    highlighter,
                });
                return;
            }
        }
        if t.is_empty() {
            self.flush_block();
            return;
        }
        self.pending.push_str(line);
        self.pending.push('\n');
    }

    fn flush_block(&mut self) {
        if self.pending.trim().is_empty() {
            self.pending.clear();
            return;
        }
        let block = std::mem::take(&mut self.pending);
        let lines = render_block(&block, &self.theme);
        self.separate();
        self.committed.extend(lines);
    }

    /// A blank line between blocks (never at the start, never doubled).
    fn separate(&mut self) {
        if self.needs_separator() {
            self.committed.push(StyledLine::blank());
        }
    }
}

/// A table being collected: column alignments, finished rows, the row in progress.
type TableState = (
    Vec<Alignment>,
    Vec<Vec<Vec<Span<'static>>>>,
    Vec<Vec<Span<'static>>>,
);

/// The state of walking one block's events: the lines made so far, the line being built,
/// inline styles, list and quote nesting, and a table being collected.
struct BlockWriter<'t> {
    theme: &'t Theme,
    out: Vec<StyledLine>,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<Option<u64>>,
    quote_depth: usize,
    item_prefix: Option<String>,
    link_dest: Vec<String>,
    in_code_block: bool,
    table: Option<TableState>,
}

impl<'t> BlockWriter<'t> {
    fn new(theme: &'t Theme) -> BlockWriter<'t> {
        BlockWriter {
            theme,
            out: Vec::new(),
            spans: Vec::new(),
            styles: vec![Style::default().fg(theme.assistant)],
            lists: Vec::new(),
            quote_depth: 0,
            item_prefix: None,
            link_dest: Vec::new(),
            in_code_block: false,
            table: None,
        }
    }

    fn style(&self) -> Style {
        *self.styles.last().unwrap_or(&Style::default())
    }

    fn push_style(&mut self, f: impl FnOnce(Style) -> Style) {
        let next = f(self.style());
        self.styles.push(next);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    /// Prefixes for the first and the continuation lines: quote bars, list indentation and
    /// (on an item's first line) its marker.
    fn prefixes(&self, marker: Option<&str>) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let quote = Style::default().fg(self.theme.markdown.quote);
        let mut head = Vec::new();
        let mut cont = Vec::new();
        for _ in 0..self.quote_depth {
            head.push(Span::styled("│ ", quote));
            cont.push(Span::styled("│ ", quote));
        }
        let indent = "  ".repeat(self.lists.len().saturating_sub(1));
        match marker {
            Some(marker) => {
                head.push(Span::raw(format!("{indent}{marker}")));
                cont.push(Span::raw(format!("{indent}{}", " ".repeat(width(marker)))));
            }
            None if !self.lists.is_empty() => {
                head.push(Span::raw(format!("{indent}  ")));
                cont.push(Span::raw(format!("{indent}  ")));
            }
            None => {}
        }
        (head, cont)
    }

    /// End the line being built.
    fn flush(&mut self) {
        if self.spans.is_empty() && self.item_prefix.is_none() {
            return;
        }
        let marker = self.item_prefix.take();
        let (mut head, continuation) = self.prefixes(marker.as_deref());
        head.append(&mut self.spans);
        self.out.push(StyledLine {
            spans: head,
            continuation,
            fill: None,
        });
    }

    fn start(&mut self, tag: Tag<'_>) {
        let theme = self.theme;
        match tag {
            Tag::Heading { level, .. } => {
                let mut s = Style::default()
                    .fg(theme.markdown.heading)
                    .add_modifier(Modifier::BOLD);
                if level == HeadingLevel::H1 {
                    s = s.add_modifier(Modifier::UNDERLINED);
                }
                self.push_style(|_| s);
            }
            Tag::Emphasis => self.push_style(|s| s.add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(|s| s.add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(|s| s.add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.link_dest.push(dest_url.to_string());
                self.push_style(|s| s.fg(theme.markdown.link).add_modifier(Modifier::UNDERLINED));
            }
            Tag::BlockQuote(_) => self.quote_depth += 1,
            Tag::List(start) => {
                self.flush();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.item_prefix = Some(marker);
            }
            Tag::CodeBlock(_) => {
                self.flush();
                self.in_code_block = true;
            }
            Tag::Table(aligns) => {
                self.flush();
                self.table = Some((aligns, Vec::new(), Vec::new()));
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some((_, _, row)) = &mut self.table {
                    row.clear();
                }
            }
            Tag::TableCell => self.spans.clear(),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                self.pop_style();
                self.flush();
            }
            TagEnd::Paragraph | TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(dest) = self.link_dest.pop() {
                    let shown: String = self.spans.iter().map(|s| s.content.as_ref()).collect();
                    if !shown.ends_with(&dest) && !dest.is_empty() {
                        self.spans.push(Span::styled(
                            format!(" ({dest})"),
                            Style::default().fg(self.theme.dim),
                        ));
                    }
                }
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote_depth = self.quote_depth.saturating_sub(1);
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
            }
            TagEnd::CodeBlock => self.in_code_block = false,
            TagEnd::TableCell => {
                if let Some((_, _, row)) = &mut self.table {
                    row.push(std::mem::take(&mut self.spans));
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some((_, rows, row)) = &mut self.table {
                    rows.push(std::mem::take(row));
                }
            }
            TagEnd::Table => {
                if let Some((aligns, rows, _)) = self.table.take() {
                    self.out.extend(render_table(&aligns, rows, self.theme));
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, t: &str) {
        if !self.in_code_block {
            self.spans.push(Span::styled(t.to_string(), self.style()));
            return;
        }
        let code = Style::default()
            .fg(self.theme.text)
            .bg(self.theme.markdown.code_bg);
        for line in t.lines() {
            let (mut head, continuation) = self.prefixes(None);
            head.push(Span::styled(format!(" {line}"), code));
            self.out.push(StyledLine {
                spans: head,
                continuation,
                fill: Some(Style::default().bg(self.theme.markdown.code_bg)),
            });
        }
    }

    fn event(&mut self, event: Event<'_>) {
        let theme = self.theme;
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                let style = self
                    .style()
                    .fg(theme.markdown.code)
                    .remove_modifier(Modifier::BOLD);
                self.spans.push(Span::styled(t.to_string(), style));
            }
            Event::SoftBreak => {
                let style = self.style();
                self.spans.push(Span::styled(" ", style));
            }
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.out.push(StyledLine::plain(
                    "─".repeat(24),
                    Style::default().fg(theme.dim),
                ));
            }
            Event::TaskListMarker(done) => self.spans.push(Span::styled(
                if done { "[x] " } else { "[ ] " },
                Style::default().fg(theme.accent),
            )),
            Event::Html(h) | Event::InlineHtml(h) => self.spans.push(Span::styled(
                h.trim_end().to_string(),
                Style::default().fg(theme.dim),
            )),
            Event::FootnoteReference(f) => self.spans.push(Span::raw(format!("[{f}]"))),
            _ => {}
        }
    }
}

/// Render one markdown block (no fenced code) to styled lines.
pub fn render_block(text: &str, theme: &Theme) -> Vec<StyledLine> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut writer = BlockWriter::new(theme);
    for event in Parser::new_ext(text, options) {
        writer.event(event);
    }
    writer.flush();
    writer.out
}

fn render_table(
    aligns: &[Alignment],
    rows: Vec<Vec<Vec<Span<'static>>>>,
    theme: &Theme,
) -> Vec<StyledLine> {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let cell_width = |c: &[Span<'static>]| c.iter().map(|s| width(&s.content)).sum::<usize>();
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| cell_width(c))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let border = Style::default().fg(theme.dim);
    let mut out = Vec::new();
    for (ri, row) in rows.into_iter().enumerate() {
        let mut spans = Vec::new();
        for (i, col_width) in widths.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" │ ", border));
            }
            let cell = row.get(i).cloned().unwrap_or_default();
            let pad = col_width.saturating_sub(cell_width(&cell));
            let (left, right) = match aligns.get(i) {
                Some(Alignment::Right) => (pad, 0),
                Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                _ => (0, pad),
            };
            spans.push(Span::raw(" ".repeat(left)));
            for s in cell {
                let style = if ri == 0 {
                    s.style.add_modifier(Modifier::BOLD)
                } else {
                    s.style
                };
                spans.push(Span::styled(s.content, style));
            }
            spans.push(Span::raw(" ".repeat(right)));
        }
        out.push(StyledLine::from_spans(spans));
        if ri == 0 {
            let sep: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(StyledLine::plain(sep.join("─┼─"), border));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorDepth;

    fn theme() -> Theme {
        Theme::fallback(ColorDepth::TrueColor)
    }

    fn text(lines: &[StyledLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect()
    }

    #[test]
    fn headings_lists_quotes_links_and_tables() {
        let md = "# Title\n\nSome *em* and **bold** and `code`.\n\n- one\n- two\n  - nested\n\n1. first\n2. second\n\n> quoted\n\n[site](https://x.y)\n\n| a | b |\n|---|--:|\n| 1 | 22 |\n";
        let t = text(&MarkdownStream::render(md, &theme()));
        assert!(t.contains(&"Title".to_string()), "{t:?}");
        assert!(
            t.contains(&"Some em and bold and code.".to_string()),
            "{t:?}"
        );
        assert!(
            t.contains(&"• one".to_string()) && t.contains(&"  • nested".to_string()),
            "{t:?}"
        );
        assert!(
            t.contains(&"1. first".to_string()) && t.contains(&"2. second".to_string()),
            "{t:?}"
        );
        assert!(t.contains(&"│ quoted".to_string()), "{t:?}");
        assert!(t.contains(&"site (https://x.y)".to_string()), "{t:?}");
        assert!(t.iter().any(|l| l == "a │  b"), "{t:?}");
        assert!(t.iter().any(|l| l == "1 │ 22"), "{t:?}");
    }

    #[test]
    fn fenced_code_is_highlighted_line_by_line() {
        crate::highlight::load_now();
        let md = "Look:\n\n```rust\nfn main() {}\n```\nafter\n";
        let lines = MarkdownStream::render(md, &theme());
        let t = text(&lines);
        assert!(t.contains(&"  rust".to_string()), "{t:?}");
        let code = lines
            .iter()
            .find(|l| text(std::slice::from_ref(l))[0].contains("fn main"))
            .unwrap();
        assert!(code.spans.len() > 2, "highlighted: {:?}", code.spans);
        assert!(code.fill.is_some());
        assert!(t.contains(&"after".to_string()));
    }

    #[test]
    fn a_code_lines_neighbours_styled_alike_are_one_span() {
        crate::highlight::load_now();
        let md = "```rust\nfn handle_7(input: &str) -> usize { input.len() * 7 }\n```\n";
        let lines = MarkdownStream::render(md, &theme());
        let code = &lines[1];
        assert_eq!(
            text(std::slice::from_ref(code))[0],
            " fn handle_7(input: &str) -> usize { input.len() * 7 }"
        );
        assert!(code.spans.len() > 3, "still highlighted: {:?}", code.spans);
        for pair in code.spans[1..].windows(2) {
            assert_ne!(pair[0].style, pair[1].style, "{:?}", code.spans);
        }
    }

    #[test]
    fn streaming_in_tiny_chunks_matches_rendering_at_once() {
        crate::highlight::load_now();
        let md =
            "# Plan\n\n1. read\n2. edit\n\n```py\nprint('x')\nx = 1\n```\n\nDone with **this**.\n";
        let whole = text(&MarkdownStream::render(md, &theme()));
        let mut s = MarkdownStream::new(&theme());
        for ch in md.chars() {
            s.push(&ch.to_string());
            let _ = s.provisional();
        }
        s.finish();
        assert_eq!(text(s.committed()), whole);
    }

    #[test]
    fn taking_committed_lines_while_streaming_loses_and_adds_nothing() {
        crate::highlight::load_now();
        let md = "# Plan\n\n1. read\n2. edit\n\n```py\nprint('x')\n```\nDone.\n\n| a |\n|---|\n| 1 |\n\nEnd **here**.\n";
        let whole = text(&MarkdownStream::render(md, &theme()));
        let mut s = MarkdownStream::new(&theme());
        let mut taken = Vec::new();
        for (i, ch) in md.chars().enumerate() {
            s.push(&ch.to_string());
            if i % 3 == 0 {
                let _ = s.provisional();
                taken.extend(s.take_committed());
            }
        }
        s.finish();
        taken.extend(s.take_committed());
        assert_eq!(text(&taken), whole);
        assert!(s.committed().is_empty());
    }

    #[test]
    fn provisional_shows_the_unfinished_tail() {
        let mut s = MarkdownStream::new(&theme());
        s.push("Hello **wor");
        assert_eq!(
            text(&s.provisional()),
            vec!["Hello **wor"],
            "unclosed emphasis is literal until closed"
        );
        assert!(s.committed().is_empty());
        s.push("ld**\n\nnext");
        assert!(text(s.committed()).contains(&"Hello world".to_string()));
        assert_eq!(
            text(&s.provisional()),
            vec!["", "next"],
            "separated from the block above"
        );
    }
}
