//! The keys of a pending file-change review, in full: `?` during a review opens it, for
//! terminals too narrow for more than the compact key line in the diff pane.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::{Layer, Outcome};
use crate::theme::Theme;
use crate::wrap::{StyledLine, wrap};

/// Each review key and what it does.
pub const REVIEW_KEYS: &[(&str, &str)] = &[
    ("y", "apply the whole change"),
    ("n", "refuse it (then say why, if you like)"),
    ("a", "apply it, and stop asking for edits this session"),
    ("Space", "include or leave out the selected hunk"),
    ("f", "include or leave out the whole file (a patch)"),
    ("j / k", "select the next / previous hunk"),
    ("Enter", "apply only the included hunks"),
    ("PgUp / PgDn", "scroll the diff"),
    ("Tab", "go to the message box and back (the review waits)"),
    ("Esc", "stop the turn"),
];

/// The key line shown inside the diff pane during a review: in full when it fits in two
/// rows of `width`, else the compact form. A review of several files adds the file key.
pub fn key_line(width: u16, theme: &Theme, files: bool) -> Vec<Line<'static>> {
    let key = Style::default()
        .fg(theme.accent)
        .add_modifier(Modifier::BOLD);
    let text = Style::default().fg(theme.text);
    let mut full = vec![
        ("y", " apply"),
        ("n", " refuse"),
        ("a", " always"),
        ("␣", " hunk"),
        ("j/k", " move"),
        ("⏎", " apply selected"),
        ("?", " keys"),
    ];
    if files {
        full.insert(4, ("f", " file"));
    }
    let mut spans = Vec::new();
    for (i, (k, what)) in full.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", Style::default().fg(theme.dim)));
        }
        spans.push(Span::styled(k.to_string(), key));
        spans.push(Span::styled(what.to_string(), text));
    }
    let lines = wrap(&StyledLine::from_spans(spans), width.max(1));
    if lines.len() <= 2 {
        return lines;
    }
    let compact = StyledLine::from_spans(vec![
        Span::styled(
            if files {
                "y/n/a/␣/f/j/k/⏎"
            } else {
                "y/n/a/␣/j/k/⏎"
            },
            key,
        ),
        Span::styled("  ? keys", text),
    ]);
    wrap(&compact, width.max(1))
}

/// The full list of review keys, as an overlay.
pub struct ReviewKeys;

impl Layer for ReviewKeys {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return Outcome::default();
        }
        match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Char('?') | KeyCode::Char('q') => Outcome {
                consumed: true,
                close: true,
                actions: Vec::new(),
            },
            _ => Outcome {
                consumed: true,
                ..Outcome::default()
            },
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let width = area.width.min(64);
        let column = REVIEW_KEYS.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 2;
        let lines: Vec<Line<'static>> = REVIEW_KEYS
            .iter()
            .flat_map(|(k, what)| {
                wrap(
                    &StyledLine {
                        spans: vec![
                            Span::styled(
                                format!("{k:<column$}"),
                                Style::default()
                                    .fg(theme.accent)
                                    .add_modifier(Modifier::BOLD),
                            ),
                            Span::styled(what.to_string(), Style::default().fg(theme.text)),
                        ],
                        continuation: vec![Span::raw(" ".repeat(column))],
                        fill: None,
                    },
                    width.saturating_sub(2),
                )
            })
            .collect();
        let rect = super::centered(area, width, lines.len() as u16 + 2);
        let inner = super::frame(rect, buf, "Review keys (Esc to close)", theme.accent);
        super::draw_lines(&lines, inner, buf);
    }

    fn hints(&self) -> String {
        "Esc close".into()
    }
}
