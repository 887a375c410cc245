//! "Why not?" after a refusal: optional text that goes to the model.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::*;
use crate::composer::Composer;
use crate::protocol::events::ApprovalAnswer;

/// "Why not?" after a refusal: optional text that goes to the model.
pub struct ReasonPrompt {
    /// The refused call.
    pub id: String,
    /// The text being typed.
    pub input: Composer,
}

impl ReasonPrompt {
    /// A prompt for call `id`.
    pub fn new(id: &str) -> ReasonPrompt {
        ReasonPrompt {
            id: id.to_string(),
            input: Composer::new(),
        }
    }

    fn deny(&mut self) -> Outcome {
        let text = self.input.text();
        let reason = (!text.trim().is_empty()).then(|| text.trim().to_string());
        Outcome::close(vec![Action::Send(UserOp::Approve {
            id: self.id.clone(),
            answer: ApprovalAnswer::Deny { reason },
        })])
    }

    fn rect(area: Rect) -> Rect {
        centered(area, area.width.saturating_sub(4).min(90), 5)
    }
}

impl Layer for ReasonPrompt {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Esc => {
                self.input = Composer::new();
                self.deny()
            }
            KeyCode::Enter
                if !key
                    .modifiers
                    .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) =>
            {
                self.deny()
            }
            _ => {
                self.input.handle_key(key);
                Outcome::consumed()
            }
        }
    }

    fn paste(&mut self, text: &str) -> bool {
        self.input.insert(&text.replace('\n', " "));
        true
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let rect = ReasonPrompt::rect(area);
        let inner = frame(
            rect,
            buf,
            "Refused. Tell the model why? (optional)",
            theme.warning,
        );
        let input = Rect::new(inner.x, inner.y, inner.width, 2);
        self.input.render(
            input,
            buf,
            Style::default().fg(theme.text),
            Some((
                "e.g. use the existing helper instead",
                Style::default().fg(theme.dim),
            )),
        );
        footer(
            inner,
            buf,
            "Enter send · Esc refuse without a reason",
            theme,
        );
    }

    fn hints(&self) -> String {
        "Enter send · Esc skip".into()
    }

    fn call_id(&self) -> Option<&str> {
        Some(&self.id)
    }

    fn cursor(&self, area: Rect) -> Option<ratatui::layout::Position> {
        let rect = ReasonPrompt::rect(area);
        let inner = Rect::new(rect.x + 1, rect.y + 1, rect.width.saturating_sub(2), 2);
        let mut scratch = Buffer::empty(inner);
        Some(
            self.input
                .render(inner, &mut scratch, Style::default(), None),
        )
    }
}
