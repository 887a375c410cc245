//! An entry's rendered lines kept as they came out of rendering (styled logical lines, not
//! yet wrapped), with where each one's screen rows end at the width last measured.
//!
//! Keeping the lines unwrapped is what lets one rendering serve everything: the chat pane
//! wraps just the rows it draws (a screenful per frame), a resize measures again without
//! highlighting again, and the scrollback written at exit wraps the same lines to the
//! terminal's width. Wrapped copies would be one more copy of a long answer per use.
//!
//! Each line is kept packed ([`Packed`]): its text in one allocation and its spans as
//! offsets and styles, about a third of the memory of a [`StyledLine`] (a span each with
//! its own string). A 200 KB answer is some 12,000 lines, so this is most of what a long
//! answer costs to keep; lines are unpacked only to be drawn or written.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::wrap::{StyledLine, rows, wrap};

/// A [`StyledLine`] in two allocations: the text of its spans and continuation spans
/// back to back, and where each span ends with its style.
#[derive(Debug, Clone, PartialEq)]
struct Packed {
    text: Box<str>,
    /// (end in `text`, style) of the content's spans, then of the continuation's.
    spans: Box<[(u32, Style)]>,
    /// How many of `spans` are the content's.
    content: u32,
    fill: Option<Style>,
}

impl Packed {
    fn pack(line: &StyledLine) -> Packed {
        let all = || line.spans.iter().chain(line.continuation.iter());
        let mut text = String::with_capacity(all().map(|s| s.content.len()).sum());
        let mut spans = Vec::with_capacity(line.spans.len() + line.continuation.len());
        for s in all() {
            text.push_str(&s.content);
            spans.push((text.len() as u32, s.style));
        }
        Packed {
            text: text.into_boxed_str(),
            spans: spans.into_boxed_slice(),
            content: line.spans.len() as u32,
            fill: line.fill,
        }
    }

    fn unpack(&self) -> StyledLine {
        let mut start = 0;
        let mut spans: Vec<Span<'static>> = self
            .spans
            .iter()
            .map(|(end, style)| {
                let end = *end as usize;
                let span = Span::styled(self.text[start..end].to_string(), *style);
                start = end;
                span
            })
            .collect();
        let continuation = spans.split_off(self.content as usize);
        StyledLine {
            spans,
            continuation,
            fill: self.fill,
        }
    }
}

/// Styled logical lines and their wrapped heights at one width.
#[derive(Debug, Default)]
pub struct Measured {
    lines: Vec<Packed>,
    /// `ends[k]`: screen rows of `lines[..=k]` at `width` (empty while `width` is 0, which
    /// means "not measured yet").
    ends: Vec<u32>,
    width: u16,
}

impl Measured {
    /// `lines`, measured at `width` (0: not measured until [`Measured::remeasure`]).
    pub fn of(lines: Vec<StyledLine>, width: u16) -> Measured {
        let mut m = Measured {
            lines: Vec::new(),
            ends: Vec::new(),
            width,
        };
        m.extend(lines);
        m
    }

    /// The width the rows are measured at (0: not measured).
    pub fn width(&self) -> u16 {
        self.width
    }

    /// How many logical lines there are.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The logical lines, unpacked one by one.
    pub fn lines(&self) -> impl Iterator<Item = StyledLine> + '_ {
        self.lines.iter().map(Packed::unpack)
    }

    /// Screen rows at the measured width.
    pub fn rows(&self) -> u32 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Append lines, measuring only them.
    pub fn extend(&mut self, more: Vec<StyledLine>) {
        self.lines.reserve(more.len());
        if self.width > 0 {
            self.ends.reserve(more.len());
        }
        let mut total = self.rows();
        for l in &more {
            if self.width > 0 {
                total += rows(l, self.width) as u32;
                self.ends.push(total);
            }
            self.lines.push(Packed::pack(l));
        }
    }

    /// Give back memory reserved for lines that did not come (the entry is complete).
    pub fn shrink_to_fit(&mut self) {
        self.lines.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// Measure every line at `width` (wrapping only counts: nothing is styled again).
    pub fn remeasure(&mut self, width: u16) {
        self.width = width;
        self.ends.clear();
        if width == 0 {
            return;
        }
        self.ends.reserve_exact(self.lines.len());
        let mut total = 0u32;
        for l in &self.lines {
            total += rows(&l.unpack(), width) as u32;
            self.ends.push(total);
        }
    }

    /// The screen rows from row `skip` on, wrapped as they are drawn (lazily: only the rows
    /// taken are wrapped).
    pub fn rows_from(&self, skip: u32) -> impl Iterator<Item = Line<'static>> + '_ {
        let width = self.width;
        let first = self.ends.partition_point(|end| *end <= skip);
        let start = match first {
            0 => 0,
            k => self.ends[k - 1],
        };
        let lines = if width == 0 {
            &[][..]
        } else {
            &self.lines[first.min(self.lines.len())..]
        };
        lines
            .iter()
            .flat_map(move |l| wrap(&l.unpack(), width))
            .skip((skip - start.min(skip)) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    fn text(lines: impl Iterator<Item = Line<'static>>) -> Vec<String> {
        lines
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    fn para(s: &str) -> StyledLine {
        StyledLine::plain(s, Style::default())
    }

    #[test]
    fn rows_from_any_row_match_wrapping_everything() {
        let lines = vec![
            para("one two three four"),
            para(""),
            para("five"),
            para("six seven eight nine ten"),
        ];
        let all: Vec<Line<'static>> = lines.iter().flat_map(|l| wrap(l, 9)).collect();
        let m = Measured::of(lines, 9);
        assert_eq!(m.rows() as usize, all.len());
        for skip in 0..=all.len() {
            assert_eq!(
                text(m.rows_from(skip as u32)),
                text(all[skip..].iter().cloned()),
                "from row {skip}"
            );
        }
    }

    #[test]
    fn packing_keeps_every_span_style_continuation_and_fill() {
        use ratatui::style::Color;
        let line = StyledLine {
            spans: vec![
                Span::styled("• ", Style::default().fg(Color::Red)),
                Span::raw(""),
                Span::styled("日本 text", Style::default().bg(Color::Blue)),
            ],
            continuation: vec![
                Span::raw("  "),
                Span::styled("│ ", Style::default().fg(Color::Green)),
            ],
            fill: Some(Style::default().bg(Color::Indexed(236))),
        };
        assert_eq!(Packed::pack(&line).unpack(), line);
        assert_eq!(
            Packed::pack(&StyledLine::blank()).unpack(),
            StyledLine::blank()
        );
    }

    #[test]
    fn extending_and_remeasuring_agree_with_measuring_at_once() {
        let lines = vec![
            para("alpha beta gamma"),
            para("delta"),
            para("epsilon zeta"),
        ];
        let mut grown = Measured::of(vec![lines[0].clone()], 6);
        grown.extend(lines[1..].to_vec());
        let whole = Measured::of(lines.clone(), 6);
        assert_eq!(grown.ends, whole.ends);
        let mut unmeasured = Measured::of(lines.clone(), 0);
        assert_eq!(unmeasured.rows(), 0);
        unmeasured.extend(vec![para("eta")]);
        unmeasured.remeasure(6);
        let mut all = lines;
        all.push(para("eta"));
        assert_eq!(unmeasured.ends, Measured::of(all.clone(), 6).ends);
        assert_eq!(unmeasured.lines().collect::<Vec<_>>(), all);
    }
}
