//! The approval of a change to scheduled jobs (`cron_add`, `cron_remove`): what would run,
//! when, in which mode, with nobody at the keyboard — or which job would go. Only run once
//! or refuse: job changes never get a "for this session".

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::protocol::intent::ScheduleIntent;
use crate::wrap::{StyledLine, wrap};

/// The most rows the prompt takes; a longer one is cut with a note.
const MAX_PROMPT_ROWS: usize = 10;

/// "Schedule this job?" / "Remove this job?"
pub struct ScheduleApproval {
    /// Call id.
    pub id: String,
    /// The change.
    pub change: ScheduleIntent,
    /// Why the policy asks.
    pub reason: String,
}

impl ScheduleApproval {
    fn draw(&self, area: Rect, buf: &mut Buffer, theme: &Theme, waiting: bool) {
        let width = area.width.saturating_sub(4).min(100);
        let inner_w = width.saturating_sub(2);
        let dim = Style::default().fg(theme.dim);
        let text = Style::default().fg(theme.text);
        let bold = text.add_modifier(Modifier::BOLD);
        let key = Style::default()
            .fg(theme.accent)
            .add_modifier(Modifier::BOLD);
        let mut lines: Vec<Line<'static>> = Vec::new();
        let title = match &self.change {
            ScheduleIntent::Add {
                schedule,
                prompt,
                approval,
            } => {
                lines.push(Line::from(vec![
                    Span::styled("when ", dim),
                    Span::styled(schedule.clone(), bold),
                    Span::styled("  runs in ", dim),
                    Span::styled(
                        format!("{approval} mode"),
                        Style::default()
                            .fg(risk_color(Some(crate::protocol::risk::Risk::High), theme))
                            .add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(", headless", dim),
                ]));
                let mut rows: Vec<Line<'static>> = Vec::new();
                for l in prompt.lines() {
                    rows.extend(wrap(
                        &StyledLine::from_spans(vec![Span::styled(l.to_string(), text)]),
                        inner_w,
                    ));
                }
                if rows.len() > MAX_PROMPT_ROWS {
                    let total = rows.len();
                    rows.truncate(MAX_PROMPT_ROWS - 1);
                    rows.push(Line::from(Span::styled(
                        format!("… {} more lines", total - (MAX_PROMPT_ROWS - 1)),
                        Style::default().fg(theme.warning),
                    )));
                }
                lines.extend(rows);
                "Schedule this job?"
            }
            ScheduleIntent::Remove { id, job } => {
                lines.push(Line::from(vec![
                    Span::styled("job ", dim),
                    Span::styled(id.clone(), bold),
                ]));
                lines.extend(wrap(
                    &StyledLine::from_spans(vec![Span::styled(job.clone(), text)]),
                    inner_w,
                ));
                "Remove this scheduled job?"
            }
        };
        lines.extend(wrap(
            &StyledLine::from_spans(vec![Span::styled(self.reason.clone(), dim)]),
            inner_w,
        ));
        lines.push(Line::default());
        let keys = vec![
            Span::styled("y", key),
            Span::raw(" yes   "),
            Span::styled("n", key),
            Span::raw(" refuse   "),
            Span::styled("Esc", key),
            Span::raw(" stop the turn   "),
            Span::styled("(asked every time)", dim),
        ];
        lines.extend(wrap(&StyledLine::from_spans(keys), inner_w));
        let height = (lines.len() as u16 + 2).min(area.height);
        let rect = centered(area, width, height);
        let inner = question_frame(rect, buf, title, theme.warning, waiting, theme);
        draw_lines(&lines, inner, buf);
    }
}

impl Layer for ScheduleApproval {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        approval_key(&self.id, key, false)
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
        "y yes · n refuse · Esc stop".into()
    }

    fn call_id(&self) -> Option<&str> {
        Some(&self.id)
    }
}
