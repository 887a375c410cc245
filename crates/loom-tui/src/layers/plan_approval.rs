//! The plan approval (issue 28): at the end of a turn in plan mode, the plan the model
//! made (its `update_plan` block, or its answer above) is offered to run in the mode the
//! person picks, or they keep planning.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::protocol::autonomy::Autonomy;
use crate::protocol::plan::Plan;

/// The keys, as the box and the status line show them.
const KEYS: &str = "s run supervised · f run full-auto · k keep planning";

/// The box's id among the layers: a turn's end, or a new message, closes the last one (as
/// it closes questions about calls), so offers never pile up.
pub const PLAN_APPROVAL_ID: &str = "plan-approval";

/// The plan awaiting the person's approval.
pub struct PlanApproval {
    plan: Option<Plan>,
}

impl PlanApproval {
    /// Ask about `plan` (`None`: the model's last answer is the plan).
    pub fn new(plan: Option<Plan>) -> PlanApproval {
        PlanApproval { plan }
    }

    fn run_in(autonomy: Autonomy) -> Outcome {
        Outcome::close(vec![Action::Send(UserOp::ApprovePlan { autonomy })])
    }
}

impl Layer for PlanApproval {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Char('s') | KeyCode::Enter => Self::run_in(Autonomy::Supervised),
            KeyCode::Char('f') => Self::run_in(Autonomy::FullAuto),
            KeyCode::Char('k') | KeyCode::Esc => Outcome::close(Vec::new()),
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            _ => Outcome::consumed(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        self.draw(area, buf, theme, false);
    }

    fn render_waiting(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        self.draw(area, buf, theme, true);
    }

    /// A question: while the person types in the message box it waits (`Tab` reaches it),
    /// so keys typed as the turn ends never approve the plan.
    fn is_question(&self) -> bool {
        true
    }

    fn call_id(&self) -> Option<&str> {
        Some(PLAN_APPROVAL_ID)
    }

    fn hints(&self) -> String {
        KEYS.into()
    }
}

impl PlanApproval {
    /// Draw the box; `waiting` while the message box has the keys.
    fn draw(&self, area: Rect, buf: &mut Buffer, theme: &Theme, waiting: bool) {
        let mut lines: Vec<Line<'static>> = match &self.plan {
            Some(plan) => crate::plan_block::lines(plan, theme)
                .into_iter()
                .map(|l| Line::from(l.spans))
                .collect(),
            None => vec![Line::from(Span::styled(
                "The model's answer above is its plan.",
                Style::default().fg(theme.text),
            ))],
        };
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(
            "Run it? The mode switches and the model carries the plan out.",
            Style::default().fg(theme.text),
        )));
        let height = (lines.len() as u16 + 3).min(area.height.saturating_sub(2));
        let rect = centered(area, area.width.saturating_sub(4).min(90), height);
        let inner = question_frame(rect, buf, "Plan ready", theme.accent, waiting, theme);
        draw_lines(&lines, body(inner), buf);
        footer(inner, buf, &format!("{KEYS} · Enter supervised"), theme);
    }
}
