//! `/help`: the commands (from the slash registry) and the keys, scrollable.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::scroll::Scroll;
use crate::wrap::{StyledLine, wrap};

/// The help overlay: commands and keys, scrollable on small screens.
#[derive(Debug, Default)]
pub struct Help {
    scroll: Scroll,
}

/// The fewest columns a description gets beside its name before descriptions go under
/// the names (at 60 columns the commands' descriptions had 12, and broke words).
const MIN_DESCRIPTION: usize = 30;

/// Keys (shown by `/help`).
pub const KEYS: &[(&str, &str)] = &[
    ("Enter", "send"),
    ("Shift+Enter, Alt+Enter, Ctrl+J", "new line"),
    ("Up / Down", "earlier prompts"),
    ("Ctrl+A/E/K/U/W, Alt+B/F", "edit like readline"),
    (
        "Ctrl+R",
        "search earlier prompts (this workspace first, then all); Enter sends",
    ),
    ("Ctrl+G", "write the message in $VISUAL / $EDITOR"),
    ("Esc", "stop the running turn"),
    ("Esc Esc (between turns)", "rewind to an earlier prompt"),
    (
        "Tab",
        "move between panes, or between a question and the message box (completes a /command)",
    ),
    (
        "Shift+Tab",
        "in the message box: next approval mode (plan, supervised, full-auto, read-only); elsewhere: previous pane",
    ),
    (
        "Ctrl+O",
        "show the whole output of commands in the chat (again: their last lines)",
    ),
    (
        "!command",
        "run a command yourself; its output goes with your next message",
    ),
    (
        "@path",
        "attach a file (or @dir/: a listing) to your message",
    ),
    ("Backspace (empty box)", "drop the last attachment"),
    ("PgUp/PgDn, Home/End, wheel", "scroll"),
    (
        "y / n / a",
        "approve / refuse / always (diffs and commands)",
    ),
    (
        "Space, j/k, Enter",
        "toggle a hunk, move between hunks, apply the selected hunks",
    ),
    ("Ctrl+C twice", "quit"),
];

impl Help {
    /// One section: a heading, then each name in a column as wide as the longest, with
    /// descriptions that wrap under themselves.
    /// On a screen where the descriptions would have fewer than [`MIN_DESCRIPTION`]
    /// columns beside the names (`stacked`), each description goes under its name instead.
    fn section(
        lines: &mut Vec<StyledLine>,
        heading: &'static str,
        rows: &[(String, &'static str)],
        theme: &Theme,
        stacked: bool,
    ) {
        let heading_style = Style::default()
            .fg(theme.markdown.heading)
            .add_modifier(Modifier::BOLD);
        let key_style = Style::default()
            .fg(theme.accent)
            .add_modifier(Modifier::BOLD);
        let column = rows
            .iter()
            .map(|(name, _)| crate::wrap::width(name))
            .max()
            .unwrap_or(0)
            + 2;
        let text = Style::default().fg(theme.text);
        lines.push(StyledLine::plain(heading, heading_style));
        for (name, what) in rows {
            if stacked {
                lines.push(StyledLine::plain(format!("  {name}"), key_style));
                lines.push(StyledLine {
                    spans: vec![Span::raw("      "), Span::styled(*what, text)],
                    continuation: vec![Span::raw("      ")],
                    fill: None,
                });
                continue;
            }
            lines.push(StyledLine {
                spans: vec![
                    Span::styled(format!("  {name:<column$}"), key_style),
                    Span::styled(*what, text),
                ],
                continuation: vec![Span::raw(" ".repeat(column + 2))],
                fill: None,
            });
        }
    }
}

impl Layer for Help {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter | KeyCode::Char('?') => {
                Outcome::close(Vec::new())
            }
            _ if self.scroll.key(&key) => Outcome::consumed(),
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            _ => Outcome::consumed(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let mut logical = Vec::new();
        let commands: Vec<(String, &'static str)> = crate::slash::COMMANDS
            .iter()
            .map(|c| (c.synopsis(), c.help))
            .collect();
        let keys: Vec<(String, &'static str)> = KEYS
            .iter()
            .map(|(k, what)| (k.to_string(), *what))
            .collect();
        let widest = commands
            .iter()
            .chain(&keys)
            .map(|(name, _)| crate::wrap::width(name))
            .max()
            .unwrap_or(0);
        let stacked = (area.width as usize).saturating_sub(2 + widest + 4) < MIN_DESCRIPTION;
        Help::section(&mut logical, "Commands", &commands, theme, stacked);
        logical.push(StyledLine::blank());
        Help::section(&mut logical, "Keys", &keys, theme, stacked);
        let natural = logical.iter().map(StyledLine::width).max().unwrap_or(0) as u16 + 2;
        let width = natural.min(area.width);
        let lines: Vec<Line<'static>> = logical
            .iter()
            .flat_map(|l| wrap(l, width.saturating_sub(2)))
            .collect();
        let rect = centered(area, width, lines.len() as u16 + 2);
        let inner = frame(rect, buf, "Help (Esc to close, ↑↓ scroll)", theme.accent);
        let first = self.scroll.first(lines.len(), inner.height);
        draw_lines(&lines[first..], inner, buf);
    }

    fn hints(&self) -> String {
        "Esc close · ↑↓ scroll".into()
    }
}
