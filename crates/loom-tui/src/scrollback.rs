//! The conversation printed to the normal screen when Loom exits, so it stays in the
//! terminal's scrollback (searchable, selectable, there after the alternate screen is gone).
//!
//! Lines are wrapped to the terminal's width by the same [`wrap`] the chat pane uses (so
//! list indentation and quote bars continue on wrapped lines) and written with SGR codes for
//! foreground colours and bold/italic/underline only: backgrounds (code blocks) are dropped,
//! since the person's terminal background is what surrounds them after exit. Pure: the
//! caller writes the text.

use std::fmt::Write as _;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use super::wrap::{StyledLine, wrap};

/// `lines` wrapped to `width` columns as text with SGR escapes, one `\r\n`-ended row each
/// (CRLF so it reads right whether or not the terminal is still in raw mode).
pub fn render(lines: &[StyledLine], width: u16) -> String {
    let mut out = String::new();
    for line in lines {
        let mut plain = line.clone();
        plain.fill = None;
        for row in wrap(&plain, width.max(1)) {
            write_row(&mut out, &row);
            out.push_str("\r\n");
        }
    }
    out
}

fn write_row(out: &mut String, row: &Line<'_>) {
    let mut styled = false;
    for span in &row.spans {
        let codes = sgr(span.style.patch(row.style));
        if codes.is_empty() {
            if styled {
                out.push_str("\x1b[0m");
                styled = false;
            }
        } else {
            let _ = write!(out, "\x1b[0;{codes}m");
            styled = true;
        }
        out.push_str(&span.content);
    }
    if styled {
        out.push_str("\x1b[0m");
    }
}

/// The SGR parameters for a style's foreground and attributes ("" for none).
fn sgr(style: Style) -> String {
    let mut codes: Vec<String> = Vec::new();
    let m = style.add_modifier;
    for (flag, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if m.contains(flag) {
            codes.push(code.into());
        }
    }
    if let Some(fg) = style.fg.and_then(foreground) {
        codes.push(fg);
    }
    codes.join(";")
}

fn foreground(c: Color) -> Option<String> {
    let named = |n: u8| Some(n.to_string());
    match c {
        Color::Reset => None,
        Color::Black => named(30),
        Color::Red => named(31),
        Color::Green => named(32),
        Color::Yellow => named(33),
        Color::Blue => named(34),
        Color::Magenta => named(35),
        Color::Cyan => named(36),
        Color::Gray => named(37),
        Color::DarkGray => named(90),
        Color::LightRed => named(91),
        Color::LightGreen => named(92),
        Color::LightYellow => named(93),
        Color::LightBlue => named(94),
        Color::LightMagenta => named(95),
        Color::LightCyan => named(96),
        Color::White => named(97),
        Color::Indexed(i) => Some(format!("38;5;{i}")),
        Color::Rgb(r, g, b) => Some(format!("38;2;{r};{g};{b}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::text::Span;

    #[test]
    fn styles_become_sgr_and_backgrounds_are_dropped() {
        let line = StyledLine {
            spans: vec![
                Span::styled(
                    "bold",
                    Style::default()
                        .fg(Color::Rgb(1, 2, 3))
                        .bg(Color::Blue)
                        .add_modifier(Modifier::BOLD),
                ),
                Span::raw(" plain"),
            ],
            continuation: Vec::new(),
            fill: Some(Style::default().bg(Color::Red)),
        };
        let text = render(&[line], 80);
        assert_eq!(text, "\x1b[0;1;38;2;1;2;3mbold\x1b[0m plain\r\n");
    }

    #[test]
    fn long_lines_wrap_with_their_continuation_and_blank_lines_stay() {
        let line = StyledLine {
            spans: vec![Span::raw("- one two three four")],
            continuation: vec![Span::raw("  ")],
            fill: None,
        };
        let text = render(&[line, StyledLine::blank()], 10);
        assert_eq!(text, "- one two\r\n  three\r\n  four\r\n\r\n");
    }
}
