//! Modal layers, one file each: the command approval, the network approval, the MCP tool approval, the scheduled-job approval, the "why not?" prompt, the undo
//! confirmation, the session diff, the help, the review keys, the trust prompt and the
//! plan approval. The
//! front layer sees keys first and says whether it consumed them and what should happen;
//! the app owns the stack, not the widgets' logic. A new layer is one new file here.

use crate::protocol::risk::Risk;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::theme::Theme;
use crate::protocol::events::UserOp;

mod command_approval;
mod diff_overlay;
mod help;
mod mcp_approval;
mod network_approval;
mod picker;
mod plan_approval;
mod questions;
mod reason_prompt;
pub mod resume_picker;
mod review_findings;
pub mod review_keys;
mod rewind_confirm;
mod schedule_approval;
mod stack;
pub mod trust_prompt;
mod undo_confirm;

pub use command_approval::CommandApproval;
pub use diff_overlay::DiffOverlay;
pub use help::{Help, KEYS};
pub use mcp_approval::McpApproval;
pub use network_approval::NetworkApproval;
pub use picker::{PickItem, Picker};
pub use plan_approval::{PLAN_APPROVAL_ID, PlanApproval};
pub use questions::question;
pub use reason_prompt::ReasonPrompt;
pub use review_findings::ReviewFindings;
pub use rewind_confirm::RewindConfirm;
pub use schedule_approval::ScheduleApproval;
pub use stack::Layers;
pub use undo_confirm::UndoConfirm;

/// What the app should do after a layer handled a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send an op to the agent.
    Send(UserOp),
    /// Ask the person why they refused call `id`.
    AskReason(String),
    /// The person answered the trust prompt: trust the project config (or not).
    Trust(bool),
    /// Use this model from now on (picked in `/model`'s list).
    SetModel(String),
    /// Go on with this session (picked in the resume picker), or, `None`, with a new one
    /// (the picker closed at start).
    Resume(Option<String>),
}

/// A layer's answer to a key.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// The key was for this layer.
    pub consumed: bool,
    /// The layer is done.
    pub close: bool,
    /// What to do.
    pub actions: Vec<Action>,
}

impl Outcome {
    fn consumed() -> Outcome {
        Outcome {
            consumed: true,
            ..Outcome::default()
        }
    }
    fn close(actions: Vec<Action>) -> Outcome {
        Outcome {
            consumed: true,
            close: true,
            actions,
        }
    }
}

/// A modal on the layer stack.
pub trait Layer {
    /// Handle a key; the front layer sees every key first.
    fn handle_key(&mut self, key: KeyEvent) -> Outcome;
    /// Handle pasted text.
    fn paste(&mut self, _text: &str) -> bool {
        false
    }
    /// Draw over `area`.
    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme);
    /// Key hints for the status bar.
    fn hints(&self) -> String;
    /// The call this layer is about, if any (closed when that call is resolved).
    fn call_id(&self) -> Option<&str> {
        None
    }
    /// Where the cursor should be, if the layer edits text.
    fn cursor(&self, _area: Rect) -> Option<ratatui::layout::Position> {
        None
    }
    /// Pick up what arrived in the background (called before each frame).
    fn tick(&mut self) {}
    /// Whether the layer waits for something in the background (frames are needed).
    fn waiting(&self) -> bool {
        false
    }
    /// Whether this is a question the agent (or Loom, at start) asks: it takes keys only
    /// when it has focus, and `Tab` moves between it and the message box (`approvals.rs`).
    fn is_question(&self) -> bool {
        false
    }
    /// Draw while the message box has the keys: the same box, marked as waiting.
    fn render_waiting(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        self.render(area, buf, theme);
    }
}

/// The keys every approval box answers alike: `y` approves this call, `a` approves it for
/// the session (only where a grant is offered), `n` refuses and asks why; `Esc` and Ctrl
/// combinations pass to the app (stop the turn, quit); any other key is swallowed, so a
/// message typed as the box appears cannot answer it.
pub(crate) fn approval_key(id: &str, key: KeyEvent, grant_offered: bool) -> Outcome {
    use crate::protocol::events::ApprovalAnswer;
    use crossterm::event::{KeyCode, KeyModifiers};
    let answer = |a| {
        Outcome::close(vec![Action::Send(UserOp::Approve {
            id: id.to_string(),
            answer: a,
        })])
    };
    match key.code {
        KeyCode::Char('y') => answer(ApprovalAnswer::Approve),
        KeyCode::Char('a') if grant_offered => answer(ApprovalAnswer::ApproveForSession),
        KeyCode::Char('n') => Outcome::close(vec![Action::AskReason(id.to_string())]),
        KeyCode::Esc => Outcome::default(),
        _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
        _ => Outcome::consumed(),
    }
}

/// The colour a risk level is drawn in.
pub(crate) fn risk_color(risk: Option<Risk>, theme: &Theme) -> ratatui::style::Color {
    match risk {
        Some(Risk::High | Risk::Forbidden) => theme.error,
        Some(Risk::Medium) => theme.warning,
        _ => theme.success,
    }
}

/// A risk level's name, `unknown` when the policy gave none.
pub(crate) fn risk_name(risk: Option<Risk>) -> String {
    risk.map_or("unknown", Risk::as_str).to_string()
}

pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

pub(crate) fn frame(
    area: Rect,
    buf: &mut Buffer,
    title: &str,
    color: ratatui::style::Color,
) -> Rect {
    // The rows the box stands on are cleared across the whole screen, with a blank row
    // above and below: the panes' borders beneath never touch its own (`└└───┘┘`), and no
    // cut-off pane text is left beside it ("ee its details"). The screen's last row, the
    // status line, stays.
    let screen = *buf.area();
    let y = area.y.saturating_sub(1).max(screen.y);
    let keep_status = u16::from(area.bottom() < screen.bottom());
    let bottom = area
        .bottom()
        .saturating_add(1)
        .min(screen.bottom().saturating_sub(keep_status))
        .max(area.bottom());
    let band = Rect::new(screen.x, y, screen.width, bottom.saturating_sub(y));
    Clear.render(band, buf);
    Clear.render(area, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(color))
        .title(Span::styled(
            format!(" {title} "),
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// A question's frame ([`frame`]); while the message box has the keys (`waiting`) it is
/// drawn in the dim colour with a line on its bottom edge saying how to answer.
pub(crate) fn question_frame(
    area: Rect,
    buf: &mut Buffer,
    title: &str,
    color: ratatui::style::Color,
    waiting: bool,
    theme: &Theme,
) -> Rect {
    if !waiting {
        return frame(area, buf, title, color);
    }
    let inner = frame(area, buf, &format!("{title} (waiting)"), theme.dim);
    let label = Line::from(vec![Span::styled(
        " typing goes to the message box · Tab answers this ",
        Style::default()
            .fg(theme.warning)
            .add_modifier(Modifier::BOLD),
    )]);
    let width = (label.width() as u16).min(area.width.saturating_sub(2));
    let x = area.x + area.width.saturating_sub(width) / 2;
    buf.set_line(x, area.bottom().saturating_sub(1), &label, width);
    inner
}

pub(crate) fn draw_lines(lines: &[Line<'static>], area: Rect, buf: &mut Buffer) {
    for (i, l) in lines.iter().take(area.height as usize).enumerate() {
        buf.set_line(area.x, area.y + i as u16, l, area.width);
    }
}

/// The key line on an overlay's last row.
pub(crate) fn footer(inner: Rect, buf: &mut Buffer, keys: &str, theme: &Theme) {
    buf.set_stringn(
        inner.x,
        inner.y + inner.height.saturating_sub(1),
        keys,
        inner.width as usize,
        Style::default().fg(theme.dim),
    );
}

/// Everything but an overlay's last (key) row.
fn body(inner: Rect) -> Rect {
    Rect::new(
        inner.x,
        inner.y,
        inner.width,
        inner.height.saturating_sub(1),
    )
}
