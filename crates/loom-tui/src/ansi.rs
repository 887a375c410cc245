//! A program's output as styled lines: its SGR colours and attributes kept, every other
//! control sequence neutralised.
//!
//! Command output is the program's, not Loom's: it may clear the screen, move the cursor,
//! set the window title, ring the bell or switch character sets. None of that may reach the
//! terminal or rearrange what is shown. So the text is interpreted here, line by line, the
//! way a terminal would draw it into one line that only grows: `\r` goes back to the line's
//! start (a progress bar shows its last state), `\b` one cell back, `\t` to the next tab
//! stop; SGR sequences (`ESC [ … m`) set colours and attributes, which carry over from line
//! to line as they do on a terminal; every other escape sequence (CSI, OSC, DCS, APC, PM,
//! SOS, two- and three-byte escapes) and every other control character is dropped. No line
//! is ever lost to scrolling (a terminal emulator of a fixed height dropped the first line of
//! every output that ended in a newline).
//!
//! [`parse`] keeps the program's own colour numbers; [`themed`] maps them for the terminal's
//! depth and keeps a foreground drawn on the page readable on the theme's background.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use unicode_width::UnicodeWidthChar;

use super::contrast::legible;
use super::theme::{ColorDepth, Theme, adapt, nearest_ansi, xterm_rgb};
use super::wrap::StyledLine;

/// Tab stops, as terminals set them.
const TAB: usize = 8;

/// One line of output: runs of text with the program's style (colours as it named them:
/// `Indexed(0..=255)` or `Rgb`).
pub type RawLine = Vec<Span<'static>>;

/// The line being built: one cell per character (combining marks stay with theirs), and
/// where the next character goes.
#[derive(Default)]
struct LineBuf {
    cells: Vec<(String, Style)>,
    cursor: usize,
}

impl LineBuf {
    fn put(&mut self, c: char, style: Style) {
        if c.width() == Some(0) {
            if let Some(cell) = self
                .cursor
                .checked_sub(1)
                .and_then(|i| self.cells.get_mut(i))
            {
                cell.0.push(c);
            }
            return;
        }
        let cell = (c.to_string(), style);
        match self.cells.get_mut(self.cursor) {
            Some(slot) => *slot = cell,
            None => self.cells.push(cell),
        }
        self.cursor += 1;
    }

    fn tab(&mut self, style: Style) {
        let next = (self.cursor / TAB + 1) * TAB;
        while self.cursor < next {
            if self.cursor < self.cells.len() {
                self.cursor += 1;
            } else {
                self.put(' ', style);
            }
        }
    }

    fn take(&mut self) -> RawLine {
        let mut spans: RawLine = Vec::new();
        for (text, style) in self.cells.drain(..) {
            match spans.last_mut() {
                Some(last) if last.style == style => last.content.to_mut().push_str(&text),
                _ => spans.push(Span::styled(text, style)),
            }
        }
        self.cursor = 0;
        spans
    }
}

/// The colour an SGR colour number names: 0–15 the named colours, the rest xterm's.
fn indexed(i: u8) -> Color {
    const NAMED: [Color; 16] = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    NAMED.get(i as usize).copied().unwrap_or(Color::Indexed(i))
}

/// An extended colour (`38;5;N`, `38;2;R;G;B`) starting at `params[0]` (the 5 or 2); the
/// colour and how many parameters it took.
fn extended(params: &[u16]) -> (Option<Color>, usize) {
    let byte = |i: usize| params.get(i).map(|v| (*v).min(255) as u8);
    match params.first() {
        Some(5) => (byte(1).map(indexed), 2),
        Some(2) => match (byte(1), byte(2), byte(3)) {
            (Some(r), Some(g), Some(b)) => (Some(Color::Rgb(r, g, b)), 4),
            _ => (None, params.len()),
        },
        _ => (None, params.len()),
    }
}

/// The SGR parameters as one flat list, sub-parameters (`38:2::R:G:B`) read like the `;`
/// form: the colour-space id of a six-part direct colour is skipped.
fn flat(params: &vte::Params) -> Vec<u16> {
    let mut values = Vec::new();
    for group in params {
        let direct_with_space = group.len() == 6 && group.get(1) == Some(&2);
        for (i, v) in group.iter().enumerate() {
            if !(direct_with_space && i == 2) {
                values.push(*v);
            }
        }
    }
    values
}

/// Apply one SGR sequence's parameters (`1;31`, `38:2::255:0:0`) to `style`.
fn sgr(style: &mut Style, values: &[u16]) {
    if values.is_empty() {
        *style = Style::default();
        return;
    }
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        i += 1;
        match v {
            0 => *style = Style::default(),
            1 => *style = style.add_modifier(Modifier::BOLD),
            3 => *style = style.add_modifier(Modifier::ITALIC),
            4 | 21 => *style = style.add_modifier(Modifier::UNDERLINED),
            7 => *style = style.add_modifier(Modifier::REVERSED),
            9 => *style = style.add_modifier(Modifier::CROSSED_OUT),
            22 => style.add_modifier.remove(Modifier::BOLD),
            23 => style.add_modifier.remove(Modifier::ITALIC),
            24 => style.add_modifier.remove(Modifier::UNDERLINED),
            27 => style.add_modifier.remove(Modifier::REVERSED),
            29 => style.add_modifier.remove(Modifier::CROSSED_OUT),
            30..=37 => style.fg = Some(indexed((v - 30) as u8)),
            90..=97 => style.fg = Some(indexed((v - 90 + 8) as u8)),
            40..=47 => style.bg = Some(indexed((v - 40) as u8)),
            100..=107 => style.bg = Some(indexed((v - 100 + 8) as u8)),
            39 => style.fg = None,
            49 => style.bg = None,
            38 | 48 => {
                let (color, used) = extended(&values[i..]);
                i += used;
                if let Some(c) = color {
                    if v == 38 {
                        style.fg = Some(c);
                    } else {
                        style.bg = Some(c);
                    }
                }
            }
            // Faint (2), blink, hidden and the rest: drawn as normal text (faint is the
            // terminal's choice of colour, which may not read).
            _ => {}
        }
    }
}

/// What `vte` reports, turned into lines: text and the few controls that place it are
/// drawn, SGR styles it; everything else it recognises (cursor moves, clears, titles,
/// device strings) is dropped by not being handled.
#[derive(Default)]
struct Lines {
    done: Vec<RawLine>,
    line: LineBuf,
    style: Style,
}

impl vte::Perform for Lines {
    fn print(&mut self, c: char) {
        // `vte` reads 7-bit controls; a C1 control written as UTF-8 arrives here as a
        // character, and is not drawn.
        if !c.is_control() {
            self.line.put(c, self.style);
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => self.done.push(self.line.take()),
            b'\r' => self.line.cursor = 0,
            0x08 => self.line.cursor = self.line.cursor.saturating_sub(1),
            b'\t' => self.line.tab(self.style),
            _ => {}
        }
    }

    fn csi_dispatch(
        &mut self,
        params: &vte::Params,
        intermediates: &[u8],
        ignore: bool,
        action: char,
    ) {
        // Private forms (`CSI ? … m`, `CSI > … m`) are not SGR.
        if action == 'm' && intermediates.is_empty() && !ignore {
            sgr(&mut self.style, &flat(params));
        }
    }
}

/// The output as lines, each with the program's styles; every line is kept, the first
/// included, and a final newline does not add an empty line.
pub fn parse(text: &str) -> Vec<RawLine> {
    let mut lines = Lines::default();
    vte::Parser::new().advance(&mut lines, text.as_bytes());
    let last = lines.line.take();
    if !last.is_empty() {
        lines.done.push(last);
    }
    lines.done
}

/// A program's colour as this terminal can show it: the named colours as they are, xterm's
/// 256 mapped to the nearest of the 16 on 16-colour terminals, true colour mapped down.
fn for_depth(color: Color, depth: ColorDepth) -> Color {
    match color {
        Color::Indexed(i) if depth == ColorDepth::Ansi16 => xterm_rgb(i)
            .map(|(r, g, b)| nearest_ansi(r, g, b))
            .unwrap_or(color),
        Color::Rgb(..) => adapt(color, depth, false),
        other => other,
    }
}

/// A parsed line with its colours mapped for `theme`'s depth; a foreground drawn on the
/// page is kept readable on the theme's background (a yellow warning on a white terminal),
/// and text the program did not colour is drawn in the theme's text colour, so nothing is
/// left to the terminal's own foreground.
pub fn themed(line: &RawLine, theme: &Theme) -> StyledLine {
    let spans = line
        .iter()
        .map(|span| {
            let mut style = span.style;
            style.fg = Some(
                style
                    .fg
                    .map(|c| for_depth(c, theme.id.depth))
                    .unwrap_or(theme.text),
            );
            style.bg = style.bg.map(|c| for_depth(c, theme.id.depth));
            if style.bg.is_none() && !style.add_modifier.contains(Modifier::REVERSED) {
                style = legible(style, theme);
            }
            Span::styled(span.content.clone(), style)
        })
        .collect();
    StyledLine::from_spans(spans)
}

/// The text of a parsed line, without styles.
pub fn plain(line: &RawLine) -> String {
    line.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texts(text: &str) -> Vec<String> {
        parse(text).iter().map(plain).collect()
    }

    /// Regression (issue 25): `!echo a; echo b` showed only `b`, and a one-line output
    /// nothing: the trailing newline scrolled the first line out of a terminal emulator
    /// exactly as high as the output.
    #[test]
    fn every_line_is_kept_the_first_included() {
        assert_eq!(texts("a\nb\n"), ["a", "b"]);
        assert_eq!(texts("only\n"), ["only"]);
        assert_eq!(texts("hello world\n5\n20\n"), ["hello world", "5", "20"]);
        assert_eq!(texts("no newline"), ["no newline"]);
        assert_eq!(texts("a\n\nb\n"), ["a", "", "b"]);
        assert!(texts("").is_empty());
    }

    #[test]
    fn colours_and_attributes_are_kept_and_carry_over_lines() {
        let lines = parse("\x1b[31mred\x1b[0m plain\n\x1b[1;38;5;27mblue\nstill\x1b[22;39m no");
        assert_eq!(lines[0][0].content, "red");
        assert_eq!(lines[0][0].style.fg, Some(Color::Red));
        assert_eq!(lines[0][1].style, Style::default());
        let blue = lines[1][0].style;
        assert_eq!(blue.fg, Some(Color::Indexed(27)));
        assert!(blue.add_modifier.contains(Modifier::BOLD));
        assert_eq!(
            lines[2][0].style, blue,
            "the style goes on to the next line"
        );
        assert_eq!(lines[2][1].style, Style::default());
        let rgb = parse("\x1b[38;2;1;2;3mx\x1b[48:2::4:5:6my");
        assert_eq!(rgb[0][0].style.fg, Some(Color::Rgb(1, 2, 3)));
        assert_eq!(rgb[0][1].style.bg, Some(Color::Rgb(4, 5, 6)));
    }

    #[test]
    fn control_sequences_are_neutralised() {
        let nasty = "\x1b[2J\x1b[H\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \
                     \x1bP+q\x1b\\\x1b(B\x1b7ok\x07\x1b[?1049h\x1b[5A\x00done";
        assert_eq!(texts(nasty), ["link okdone"]);
        assert_eq!(
            texts("10%\r20%\r100%\n"),
            ["100%"],
            "a progress bar's last state"
        );
        assert_eq!(texts("abc\x08\x08X\n"), ["aXc"]);
        assert_eq!(texts("a\tb\n"), ["a       b"]);
        assert_eq!(texts("e\u{301}\n"), ["e\u{301}"], "a combining mark stays");
        assert_eq!(texts("\x1b[999999999999"), Vec::<String>::new());
    }

    #[test]
    fn an_empty_sgr_resets_and_c1_controls_are_not_drawn() {
        let lines = parse("\x1b[1;31mred\x1b[mplain\n");
        assert_eq!(lines[0][1].content, "plain");
        assert_eq!(lines[0][1].style, Style::default());
        // U+009B (CSI as a C1 control) written as UTF-8: no control reaches the screen.
        let shown = texts("a\u{9b}2Jb\u{9d}0;t\u{7}c\n");
        assert!(!shown[0].chars().any(|c| c.is_control()), "{shown:?}");
        assert!(shown[0].starts_with('a') && shown[0].ends_with('c'));
    }

    proptest! {
        // Invariant: whatever bytes a program prints, no escape or other control character
        // survives into the lines shown, and every line of plain text comes back whole.
        #[test]
        fn no_control_character_survives(text in ".{0,200}", plain_lines in proptest::collection::vec("[a-z ]{0,20}", 0..6)) {
            for line in parse(&text) {
                let shown = plain(&line);
                prop_assert!(!shown.chars().any(|c| c.is_control()), "{shown:?}");
            }
            let joined: String = plain_lines.iter().map(|l| format!("{l}\n")).collect();
            let back: Vec<String> = parse(&joined).iter().map(plain).collect();
            prop_assert_eq!(back, plain_lines);
        }
    }
}
