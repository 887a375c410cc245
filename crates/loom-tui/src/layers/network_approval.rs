//! The network approval: which tool wants to reach which domain, with what method and URL
//! (credentials masked), and the choice to allow that domain for the rest of the session.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::wrap::{StyledLine, wrap};

/// "Let web_fetch reach docs.rs?"
pub struct NetworkApproval {
    /// Call id.
    pub id: String,
    /// The tool.
    pub tool: String,
    /// The HTTP method.
    pub method: String,
    /// The URL (masked).
    pub url: String,
    /// The domain a session grant covers.
    pub domain: String,
    /// Risk level name.
    pub risk: crate::protocol::risk::Risk,
    /// What the call does.
    pub risk_reason: String,
    /// Why the policy asks.
    pub reason: String,
}

impl NetworkApproval {
    fn draw(&self, area: Rect, buf: &mut Buffer, theme: &Theme, waiting: bool) {
        let risk_color = risk_color(Some(self.risk), theme);
        let width = area.width.saturating_sub(4).min(100);
        let inner_w = width.saturating_sub(2);
        let key = |k: &str| {
            Span::styled(
                k.to_string(),
                Style::default()
                    .fg(theme.accent)
                    .add_modifier(Modifier::BOLD),
            )
        };
        let plain = |t: String| Span::styled(t, Style::default().fg(theme.text));
        let dim = |t: &str| Span::styled(t.to_string(), Style::default().fg(theme.dim));
        let mut lines: Vec<Line<'static>> = Vec::new();
        let mut push = |spans: Vec<Span<'static>>| {
            lines.extend(wrap(&StyledLine::from_spans(spans), inner_w));
        };
        push(vec![
            Span::styled(
                format!("{} ", self.method),
                Style::default()
                    .fg(theme.accent)
                    .add_modifier(Modifier::BOLD),
            ),
            plain(self.url.clone()),
        ]);
        push(vec![dim("domain "), plain(self.domain.clone())]);
        push(vec![
            dim("risk "),
            Span::styled(
                self.risk.as_str().to_string(),
                Style::default().fg(risk_color).add_modifier(Modifier::BOLD),
            ),
            plain(format!(": {}", self.risk_reason)),
        ]);
        push(vec![dim(&self.reason)]);
        push(vec![]);
        push(vec![
            key("y"),
            Span::raw(" allow once   "),
            key("n"),
            Span::raw(" refuse   "),
            key("a"),
            Span::raw(format!(" always for {} (this session)   ", self.domain)),
            key("Esc"),
            Span::raw(" stop the turn"),
        ]);
        let height = (lines.len() as u16 + 2).min(area.height);
        let rect = centered(area, width, height);
        let title = format!("Let {} reach {}?", self.tool, self.domain);
        let inner = question_frame(rect, buf, &title, risk_color, waiting, theme);
        draw_lines(&lines, inner, buf);
    }
}

impl Layer for NetworkApproval {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        approval_key(&self.id, key, true)
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
        "y allow once · n refuse · a always for this domain · Esc stop".into()
    }

    fn call_id(&self) -> Option<&str> {
        Some(&self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::events::ApprovalAnswer;
    use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};

    fn layer() -> NetworkApproval {
        NetworkApproval {
            id: "c1".into(),
            tool: "web_fetch".into(),
            method: "GET".into(),
            url: "https://docs.rs/x?token=****".into(),
            domain: "docs.rs".into(),
            risk: crate::protocol::risk::Risk::Low,
            risk_reason: "reads https://docs.rs/x".into(),
            reason: "web_fetch to docs.rs is approved first, once per domain".into(),
        }
    }

    fn press(c: char) -> KeyEvent {
        KeyEvent {
            code: KeyCode::Char(c),
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: crossterm::event::KeyEventState::NONE,
        }
    }

    #[test]
    fn keys_answer_once_always_or_ask_why() {
        let mut l = layer();
        let send = |o: Outcome| match o.actions.first() {
            Some(Action::Send(UserOp::Approve { answer, .. })) => Some(answer.clone()),
            _ => None,
        };
        assert_eq!(
            send(l.handle_key(press('y'))),
            Some(ApprovalAnswer::Approve)
        );
        assert_eq!(
            send(l.handle_key(press('a'))),
            Some(ApprovalAnswer::ApproveForSession)
        );
        assert_eq!(
            l.handle_key(press('n')).actions,
            vec![Action::AskReason("c1".into())]
        );
        let o = l.handle_key(press('x'));
        assert!(o.consumed && !o.close, "other keys do nothing");
    }

    #[test]
    fn renders_method_url_domain_and_keys() {
        let theme = crate::theme::Theme::load("dark", crate::theme::ColorDepth::TrueColor).unwrap();
        let area = Rect::new(0, 0, 90, 20);
        let mut buf = Buffer::empty(area);
        layer().render(area, &mut buf, &theme);
        let text: String = (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    + "\n"
            })
            .collect();
        assert!(text.contains("Let web_fetch reach docs.rs?"), "{text}");
        assert!(text.contains("GET https://docs.rs/x?token=****"), "{text}");
        assert!(text.contains("always for docs.rs"), "{text}");
    }
}
