//! The MCP tool approval: which server's tool, with which arguments, what the server says
//! about it (read-only or not, shown as the server's claim), and the keys: run once,
//! always for this tool in this session, refuse.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::wrap::{StyledLine, wrap};

/// The most rows the arguments take; longer ones are cut with a note.
const MAX_ARG_ROWS: usize = 12;

/// "Call this MCP tool?"
pub struct McpApproval {
    /// Call id.
    pub id: String,
    /// The server's name.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The arguments, pretty-printed.
    pub arguments: String,
    /// Whether the server marks the tool read-only.
    pub read_only_hint: bool,
    /// Why the policy asks.
    pub reason: String,
    /// Whether "always for this tool" is offered.
    pub grant_offered: bool,
}

impl McpApproval {
    fn draw(&self, area: Rect, buf: &mut Buffer, theme: &Theme, waiting: bool) {
        let width = area.width.saturating_sub(4).min(100);
        let inner_w = width.saturating_sub(2);
        let dim = Style::default().fg(theme.dim);
        let text = Style::default().fg(theme.text);
        let key = Style::default()
            .fg(theme.accent)
            .add_modifier(Modifier::BOLD);
        let mut lines: Vec<Line<'static>> = vec![Line::from(vec![
            Span::styled("server ", dim),
            Span::styled(self.server.clone(), text.add_modifier(Modifier::BOLD)),
            Span::styled("  tool ", dim),
            Span::styled(self.tool.clone(), text.add_modifier(Modifier::BOLD)),
        ])];
        let mut args: Vec<Line<'static>> = Vec::new();
        for l in self.arguments.lines() {
            args.extend(wrap(
                &StyledLine::from_spans(vec![Span::styled(l.to_string(), text)]),
                inner_w,
            ));
        }
        if args.len() > MAX_ARG_ROWS {
            let total = args.len();
            args.truncate(MAX_ARG_ROWS - 1);
            args.push(Line::from(Span::styled(
                format!("… {} more lines", total - (MAX_ARG_ROWS - 1)),
                Style::default().fg(theme.warning),
            )));
        }
        lines.extend(args);
        if self.read_only_hint {
            lines.push(Line::from(Span::styled(
                "the server says this tool only reads (its claim, not checked)",
                dim,
            )));
        }
        lines.extend(wrap(
            &StyledLine::from_spans(vec![Span::styled(self.reason.clone(), dim)]),
            inner_w,
        ));
        lines.push(Line::default());
        let mut keys = vec![
            Span::styled("y", key),
            Span::raw(" run   "),
            Span::styled("n", key),
            Span::raw(" refuse   "),
        ];
        if self.grant_offered {
            keys.push(Span::styled("a", key));
            keys.push(Span::raw(" always for this tool   "));
        }
        keys.push(Span::styled("Esc", key));
        keys.push(Span::raw(" stop the turn"));
        lines.extend(wrap(&StyledLine::from_spans(keys), inner_w));
        let height = (lines.len() as u16 + 2).min(area.height);
        let rect = centered(area, width, height);
        let inner = question_frame(
            rect,
            buf,
            "Call this MCP tool?",
            theme.warning,
            waiting,
            theme,
        );
        draw_lines(&lines, inner, buf);
    }
}

impl Layer for McpApproval {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        approval_key(&self.id, key, self.grant_offered)
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
        let mut h = "y run · n refuse".to_string();
        if self.grant_offered {
            h.push_str(" · a always for this tool");
        }
        h.push_str(" · Esc stop");
        h
    }

    fn call_id(&self) -> Option<&str> {
        Some(&self.id)
    }
}
