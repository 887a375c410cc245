//! The prompt shown at start when the workspace's `.loom/config.toml` would loosen Loom
//! and has not been trusted: it lists exactly what the file would change, and the person
//! trusts it (it applies, and is remembered for this exact file) or goes on without those
//! settings. Nothing starts until they answer.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::{Action, Layer, Outcome};
use crate::protocol::trust::Loosening;
use crate::theme::Theme;
use crate::wrap::{StyledLine, wrap};

/// The trust prompt.
pub struct TrustPrompt {
    file: String,
    loosened: Vec<Loosening>,
}

impl TrustPrompt {
    /// A prompt about `file`, which would loosen these settings.
    pub fn new(file: &str, loosened: Vec<Loosening>) -> TrustPrompt {
        TrustPrompt {
            file: file.to_string(),
            loosened,
        }
    }

    fn answer(trust: bool) -> Outcome {
        Outcome {
            consumed: true,
            close: true,
            actions: vec![Action::Trust(trust)],
        }
    }
}

impl TrustPrompt {
    fn draw(&self, area: Rect, buf: &mut Buffer, theme: &Theme, waiting: bool) {
        let width = area.width.min(78);
        let text = Style::default().fg(theme.text);
        let bold = text.add_modifier(Modifier::BOLD);
        let mut logical = vec![
            StyledLine::plain(format!("{} asks to:", self.file), text),
            StyledLine::blank(),
        ];
        for l in &self.loosened {
            logical.push(StyledLine {
                spans: vec![
                    Span::styled("  • ", text),
                    Span::styled(l.what.clone(), bold),
                    Span::styled(format!("  ({})", l.key), Style::default().fg(theme.dim)),
                ],
                continuation: vec![Span::raw("    ")],
                fill: None,
            });
        }
        logical.push(StyledLine::blank());
        logical.push(StyledLine::plain(
            "These apply only if you trust this file. Trust is remembered for this exact \
             file: editing it asks again, and `loom trust --revoke` takes it back.",
            text,
        ));
        let lines: Vec<Line<'static>> = logical
            .iter()
            .flat_map(|l| wrap(l, width.saturating_sub(2)))
            .collect();
        let height = (lines.len() as u16 + 4).min(area.height);
        let rect = super::centered(area, width, height);
        let inner = super::question_frame(
            rect,
            buf,
            "Trust this project's Loom settings?",
            theme.warning,
            waiting,
            theme,
        );
        super::draw_lines(&lines, inner, buf);
        if !waiting {
            // The keys show once they answer (not while typed-ahead keys still go to the
            // message box).
            super::footer(inner, buf, &self.hints(), theme);
        }
    }
}

impl Layer for TrustPrompt {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Char('t') | KeyCode::Char('y') => TrustPrompt::answer(true),
            KeyCode::Char('n') | KeyCode::Esc => TrustPrompt::answer(false),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                Outcome::default()
            }
            _ => Outcome {
                consumed: true,
                ..Outcome::default()
            },
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        self.draw(area, buf, theme, false);
    }

    fn render_waiting(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        self.draw(area, buf, theme, true);
    }

    fn is_question(&self) -> bool {
        true
    }

    fn hints(&self) -> String {
        "t trust and apply · n continue without them (Esc)".into()
    }
}
