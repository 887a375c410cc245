//! The model's plan as the chat draws it (issue 28): a compact block, one line per step
//! with its status, the step in progress highlighted, and the explanation under it. The
//! block is one transcript entry, updated in place while the turn lasts.

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use super::theme::Theme;
use super::wrap::StyledLine;
use crate::protocol::plan::{Plan, StepStatus};

/// The status line's short form of `plan`: "step 2/5" while a step is in progress, else
/// how many steps are done ("plan 3/5 done").
pub fn progress(plan: &Plan) -> String {
    match plan.in_progress() {
        Some((at, of)) => format!("step {at}/{of}"),
        None => format!("plan {}/{} done", plan.completed(), plan.steps.len()),
    }
}

/// The heading's short form of `plan`: "step 2/5", or "3/5 done".
fn heading_progress(plan: &Plan) -> String {
    match plan.in_progress() {
        Some((at, of)) => format!("step {at}/{of}"),
        None => format!("{}/{} done", plan.completed(), plan.steps.len()),
    }
}

/// The block's lines: a heading with the progress, then the steps, then the explanation.
pub fn lines(plan: &Plan, t: &Theme) -> Vec<StyledLine> {
    let dim = Style::default().fg(t.dim);
    let heading = Style::default()
        .fg(t.markdown.heading)
        .add_modifier(Modifier::BOLD);
    let mut out = vec![StyledLine {
        spans: vec![
            Span::styled("Plan", heading),
            Span::styled(format!(" · {}", heading_progress(plan)), dim),
        ],
        continuation: vec![Span::raw("  ")],
        fill: None,
    }];
    for step in &plan.steps {
        let (icon, style) = match step.status {
            StepStatus::Completed => ("✓", dim.add_modifier(Modifier::CROSSED_OUT)),
            StepStatus::InProgress => (
                "▸",
                Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
            StepStatus::Pending => ("○", Style::default().fg(t.text)),
        };
        let icon_style = match step.status {
            StepStatus::Completed => Style::default().fg(t.success),
            _ => style,
        };
        out.push(StyledLine {
            spans: vec![
                Span::styled(format!("  {icon} "), icon_style),
                Span::styled(step.step.clone(), style),
            ],
            continuation: vec![Span::raw("    ")],
            fill: None,
        });
    }
    if let Some(explanation) = &plan.explanation {
        let style = dim.add_modifier(Modifier::ITALIC);
        out.push(StyledLine {
            spans: vec![Span::raw("  "), Span::styled(explanation.clone(), style)],
            continuation: vec![Span::raw("  ")],
            fill: None,
        });
    }
    out
}

/// The block as clean text (for copying): one line per step with a box for its status.
pub fn clean(plan: &Plan) -> String {
    let mut text = format!("Plan ({})", heading_progress(plan));
    for step in &plan.steps {
        let mark = match step.status {
            StepStatus::Completed => "[x]",
            StepStatus::InProgress => "[>]",
            StepStatus::Pending => "[ ]",
        };
        text.push_str(&format!("\n{mark} {}", step.step));
    }
    if let Some(explanation) = &plan.explanation {
        text.push_str(&format!("\n{explanation}"));
    }
    text
}
