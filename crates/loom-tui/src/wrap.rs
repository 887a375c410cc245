//! Wrapping styled text to a width, measured in terminal columns per grapheme, so CJK and
//! emoji keep their columns and combining marks stay with their letters.
//!
//! A [`StyledLine`] is a logical line (a paragraph, a code line); [`wrap`] turns it into the
//! screen lines of one width. Words move to the next line whole when they fit there; longer
//! words are broken by grapheme. Continuation lines get the line's continuation prefix
//! (list indentation, a quote bar).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// A logical line with styled spans and what continuation lines start with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StyledLine {
    /// The content.
    pub spans: Vec<Span<'static>>,
    /// Prefix for wrapped continuation lines (indentation, a quote bar).
    pub continuation: Vec<Span<'static>>,
    /// Style filling the rest of each screen line (code block backgrounds).
    pub fill: Option<Style>,
}

impl StyledLine {
    /// A line of one span.
    pub fn plain(text: impl Into<String>, style: Style) -> StyledLine {
        StyledLine {
            spans: vec![Span::styled(text.into(), style)],
            ..StyledLine::default()
        }
    }

    /// A line from spans.
    pub fn from_spans(spans: Vec<Span<'static>>) -> StyledLine {
        StyledLine {
            spans,
            ..StyledLine::default()
        }
    }

    /// An empty line.
    pub fn blank() -> StyledLine {
        StyledLine::default()
    }

    /// Total display width.
    pub fn width(&self) -> usize {
        self.spans.iter().map(|s| s.content.width()).sum()
    }
}

/// Display width of a string in columns.
pub fn width(s: &str) -> usize {
    s.graphemes(true)
        .map(|g| g.width().max(if g == "\t" { 4 } else { 0 }))
        .sum()
}

/// Cut `s` to at most `max` columns, adding `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let w = g.width();
        if used + w + 1 > max {
            break;
        }
        out.push_str(g);
        used += w;
    }
    out.push('…');
    out
}

struct Piece<'a> {
    text: &'a str,
    width: usize,
    style: Style,
    space: bool,
}

/// Every grapheme of `spans` in order, with its width and whether it is a space. Printable
/// ASCII (most of what is drawn) is one grapheme and one column per byte, so it skips
/// grapheme segmentation; a tab is four columns.
fn pieces<'a>(spans: &'a [Span<'static>], mut each: impl FnMut(Piece<'a>)) {
    for span in spans {
        let content = span.content.as_ref();
        if content.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            for (i, b) in content.bytes().enumerate() {
                each(Piece {
                    text: &content[i..i + 1],
                    width: 1,
                    style: span.style,
                    space: b == b' ',
                });
            }
            continue;
        }
        for g in content.graphemes(true) {
            let (text, w) = if g == "\t" {
                ("    ", 4)
            } else {
                (g, g.width())
            };
            each(Piece {
                text,
                width: w,
                style: span.style,
                space: g == " " || g == "\t",
            });
        }
    }
}

/// How many screen rows `line` wraps to at `width` columns: what [`wrap`] returns, counted
/// without building the rows (the same decisions, on widths alone).
pub fn rows(line: &StyledLine, width: u16) -> usize {
    let width = width.max(1) as usize;
    let prefix_width: usize = line.continuation.iter().map(|s| s.content.width()).sum();
    let restart = prefix_width.min(width.saturating_sub(1));
    let mut list: Vec<(usize, bool)> = Vec::new();
    pieces(&line.spans, |p| list.push((p.width, p.space)));
    let pieces = list;
    let mut count = 1;
    let mut used = 0usize;
    let mut i = 0;
    while i < pieces.len() {
        let start = i;
        while i < pieces.len() && pieces[i].1 {
            i += 1;
        }
        while i < pieces.len() && !pieces[i].1 {
            i += 1;
        }
        let word = &pieces[start..i];
        let word_width: usize = word.iter().map(|p| p.0).sum();
        let fits_alone = word_width <= width.saturating_sub(prefix_width);
        if used + word_width > width && used > 0 && fits_alone {
            count += 1;
            used = restart;
            for (w, _) in word.iter().skip_while(|p| p.1) {
                if used + w > width {
                    count += 1;
                    used = restart;
                }
                used += w;
            }
            continue;
        }
        for (w, _) in word {
            if used + w > width && used > 0 {
                count += 1;
                used = restart;
            }
            used += w;
        }
    }
    count
}

/// Wrap one logical line to `width` columns.
pub fn wrap(line: &StyledLine, width: u16) -> Vec<Line<'static>> {
    let width = width.max(1) as usize;
    let prefix_width: usize = line.continuation.iter().map(|s| s.content.width()).sum();
    let mut list: Vec<Piece<'_>> = Vec::new();
    pieces(&line.spans, |p| list.push(p));
    let pieces = list;
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    let mut avail = width;
    let push = |current: &mut Vec<Span<'static>>, text: &str, style: Style| {
        if let Some(last) = current.last_mut()
            && last.style == style
        {
            last.content.to_mut().push_str(text);
            return;
        }
        current.push(Span::styled(text.to_string(), style));
    };
    let finish = |out: &mut Vec<Line<'static>>,
                  current: &mut Vec<Span<'static>>,
                  used: usize,
                  avail: usize| {
        let mut spans = std::mem::take(current);
        if let Some(fill) = line.fill
            && used < avail
        {
            spans.push(Span::styled(" ".repeat(avail - used), fill));
        }
        out.push(Line::from(spans));
    };
    let mut i = 0;
    while i < pieces.len() {
        // The next word: spaces first, then non-spaces.
        let start = i;
        while i < pieces.len() && pieces[i].space {
            i += 1;
        }
        while i < pieces.len() && !pieces[i].space {
            i += 1;
        }
        let word = &pieces[start..i];
        let word_width: usize = word.iter().map(|p| p.width).sum();
        let fits_alone = word_width <= width.saturating_sub(prefix_width);
        if used + word_width > avail && used > 0 && fits_alone {
            finish(&mut out, &mut current, used, avail);
            current = line.continuation.clone();
            used = prefix_width.min(width.saturating_sub(1));
            avail = width;
            // Leading spaces do not start a continuation line.
            let trimmed: Vec<&Piece<'_>> = word.iter().skip_while(|p| p.space).collect();
            for p in trimmed {
                if used + p.width > avail {
                    finish(&mut out, &mut current, used, avail);
                    current = line.continuation.clone();
                    used = prefix_width.min(width.saturating_sub(1));
                }
                push(&mut current, p.text, p.style);
                used += p.width;
            }
            continue;
        }
        for p in word {
            if used + p.width > avail && used > 0 {
                finish(&mut out, &mut current, used, avail);
                current = line.continuation.clone();
                used = prefix_width.min(width.saturating_sub(1));
            }
            push(&mut current, p.text, p.style);
            used += p.width;
        }
    }
    finish(&mut out, &mut current, used, avail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn words_wrap_whole() {
        let l = StyledLine::plain("the quick brown fox jumps", Style::default());
        assert_eq!(text(&wrap(&l, 10)), vec!["the quick", "brown fox", "jumps"]);
    }

    #[test]
    fn long_words_break_and_prefixes_continue() {
        let mut l = StyledLine::plain("- aaaaaaaaaaaa bb", Style::default());
        l.continuation = vec![Span::raw("  ")];
        assert_eq!(
            text(&wrap(&l, 6)),
            vec!["- aaaa", "  aaaa", "  aaaa", "  bb"]
        );
    }

    #[test]
    fn wide_characters_keep_their_columns() {
        let l = StyledLine::plain("日本語のテキスト🎉ok", Style::default());
        let lines = wrap(&l, 7);
        for line in &lines {
            let w: usize = line.spans.iter().map(|s| s.content.width()).sum();
            assert!(w <= 7, "{line:?}");
        }
        assert_eq!(text(&lines).concat(), "日本語のテキスト🎉ok");
    }

    #[test]
    fn fill_pads_to_width() {
        let mut l = StyledLine::plain("code", Style::default());
        l.fill = Some(Style::default());
        let lines = wrap(&l, 8);
        assert_eq!(text(&lines), vec!["code    "]);
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("日本語", 4), "日…");
        assert_eq!(truncate("ok", 6), "ok");
    }

    proptest! {
        // Invariant: wrapping never produces a line wider than the width, and never loses
        // or reorders non-space characters.
        #[test]
        fn wrapped_lines_fit_and_keep_text(s in "[a-z 日é🎉]{0,80}", w in 1u16..30) {
            let lines = wrap(&StyledLine::plain(s.clone(), Style::default()), w);
            for l in &lines {
                let lw: usize = l.spans.iter().map(|sp| sp.content.width()).sum();
                prop_assert!(lw <= (w as usize).max(2), "{lw} > {w}");
            }
            let joined: String = text(&lines).concat().chars().filter(|c| *c != ' ').collect();
            let orig: String = s.chars().filter(|c| *c != ' ').collect();
            prop_assert_eq!(joined, orig);
        }

        // Invariant: `rows` counts exactly the rows `wrap` makes, whatever the spans
        // (ASCII or not, tabs, several styles), continuation prefix and width.
        #[test]
        fn rows_counts_what_wrap_makes(
            parts in proptest::collection::vec("[a-z \t日é🎉-]{0,30}", 1..4),
            prefix in 0usize..6,
            w in 1u16..30,
        ) {
            let line = StyledLine {
                spans: parts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| Span::styled(p.clone(), Style::default().fg(ratatui::style::Color::Indexed(i as u8))))
                    .collect(),
                continuation: vec![Span::raw(" ".repeat(prefix))],
                fill: None,
            };
            prop_assert_eq!(rows(&line, w), wrap(&line, w).len());
        }
    }
}
