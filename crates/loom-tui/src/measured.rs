//! An entry's rendered lines kept as they came out of rendering (styled logical lines, not
//! yet wrapped), with where each one's screen rows end at the width last measured.
//!
//! Keeping the lines unwrapped is what lets one rendering serve everything: the chat pane
//! wraps just the rows it draws (a screenful per frame), a resize measures again without
//! highlighting again, and the scrollback written at exit wraps the same lines to the
//! terminal's width. Wrapped copies would be one more copy of a long answer per use.

use ratatui::text::Line;

use super::wrap::{StyledLine, rows, wrap};

/// Styled logical lines and their wrapped heights at one width.
#[derive(Debug, Default)]
pub struct Measured {
    lines: Vec<StyledLine>,
    /// `ends[k]`: screen rows of `lines[..=k]` at `width` (empty while `width` is 0, which
    /// means "not measured yet").
    ends: Vec<u32>,
    width: u16,
}

impl Measured {
    /// `lines`, measured at `width` (0: not measured until [`Measured::remeasure`]).
    pub fn of(lines: Vec<StyledLine>, width: u16) -> Measured {
        let mut m = Measured {
            lines,
            ends: Vec::new(),
            width: 0,
        };
        m.remeasure(width);
        m
    }

    /// The width the rows are measured at (0: not measured).
    pub fn width(&self) -> u16 {
        self.width
    }

    /// The logical lines.
    pub fn lines(&self) -> &[StyledLine] {
        &self.lines
    }

    /// The logical lines, given up.
    pub fn into_lines(self) -> Vec<StyledLine> {
        self.lines
    }

    /// Screen rows at the measured width.
    pub fn rows(&self) -> u32 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Append lines, measuring only them. Their span lists are cut to their length: they
    /// are kept as long as the entry is, and building them left a third of it unused.
    pub fn extend(&mut self, more: Vec<StyledLine>) {
        if self.width > 0 {
            let mut total = self.rows();
            self.ends.reserve(more.len());
            for l in &more {
                total += rows(l, self.width) as u32;
                self.ends.push(total);
            }
        }
        self.lines.reserve(more.len());
        for mut l in more {
            l.spans.shrink_to_fit();
            l.continuation.shrink_to_fit();
            self.lines.push(l);
        }
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
            total += rows(l, width) as u32;
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
            .flat_map(move |l| wrap(l, width))
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
        assert_eq!(unmeasured.ends, Measured::of(all, 6).ends);
    }
}
