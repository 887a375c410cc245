//! Modal layers: the command approval, the "why not?" prompt, the undo confirmation and the
//! help overlay. The front layer sees keys first and says whether it consumed them and what
//! should happen; the app owns the stack, not the widgets' logic.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::composer::Composer;
use super::diff_pane::DiffPane;
use super::highlight::CodeHighlighter;
use super::scroll::Scroll;
use super::theme::Theme;
use super::wrap::{StyledLine, wrap};
use crate::agent::{ApprovalAnswer, UserOp};
use crate::changelog::Scope;

/// What the app should do after a layer handled a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send an op to the agent.
    Send(UserOp),
    /// Ask the person why they refused call `id`.
    AskReason(String),
    /// The person answered the trust prompt: trust the project config (or not).
    Trust(bool),
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
    // A blank gutter around the box, so the panes' borders beneath never touch its own
    // (`└└───┘┘`); the screen's last row, the status line, stays.
    let screen = *buf.area();
    let x = area.x.saturating_sub(1).max(screen.x);
    let y = area.y.saturating_sub(1).max(screen.y);
    let right = (area.right() + 1).min(screen.right());
    let keep_status = if area.bottom() < screen.bottom() {
        1
    } else {
        0
    };
    let bottom = (area.bottom() + 1).min(screen.bottom().saturating_sub(keep_status));
    let gutter = Rect::new(
        x,
        y,
        right.saturating_sub(x),
        bottom.max(area.bottom()).saturating_sub(y),
    );
    Clear.render(gutter, buf);
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

/// "Run this command?"
pub struct CommandApproval {
    /// Call id.
    pub id: String,
    /// The command.
    pub command: String,
    /// Its working directory.
    pub cwd: String,
    /// Risk level name.
    pub risk: String,
    /// Why it has that level.
    pub risk_reason: String,
    /// Why the policy asks.
    pub reason: String,
    /// The prefix a session grant covers (`None`: no grant offered).
    pub grant_prefix: Option<String>,
    /// Whether approval opens the network for this command.
    pub network: bool,
    /// Whether it runs outside the sandbox.
    pub outside_sandbox: bool,
    /// The first command line shown, when the command is longer than the screen.
    pub scroll: usize,
}

/// The most rows a command takes in its approval box; a longer one scrolls.
const MAX_COMMAND_ROWS: usize = 14;

impl Layer for CommandApproval {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        let answer = |a| {
            Outcome::close(vec![Action::Send(UserOp::Approve {
                id: self.id.clone(),
                answer: a,
            })])
        };
        match key.code {
            // Only `y` runs a command: an Enter meant for the message box, typed as the
            // question appears, must not approve it.
            KeyCode::Char('y') => answer(ApprovalAnswer::Approve),
            KeyCode::Down | KeyCode::Char('j') => {
                self.scroll = self.scroll.saturating_add(1);
                Outcome::consumed()
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.scroll = self.scroll.saturating_sub(1);
                Outcome::consumed()
            }
            KeyCode::PageDown => {
                self.scroll = self.scroll.saturating_add(10);
                Outcome::consumed()
            }
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(10);
                Outcome::consumed()
            }
            KeyCode::Char('a') if self.grant_prefix.is_some() => {
                answer(ApprovalAnswer::ApproveForSession)
            }
            KeyCode::Char('n') => Outcome::close(vec![Action::AskReason(self.id.clone())]),
            KeyCode::Esc => Outcome::default(),
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            _ => Outcome::consumed(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let risk_color = match self.risk.as_str() {
            "high" | "forbidden" => theme.error,
            "medium" => theme.warning,
            _ => theme.success,
        };
        let width = area.width.saturating_sub(4).min(100);
        let inner_w = width.saturating_sub(2);
        let mut command: Vec<Line<'static>> = Vec::new();
        let mut hl = CodeHighlighter::new(
            "bash",
            &theme.syntax,
            theme.depth,
            Style::default().fg(theme.text),
        );
        for l in self.command.lines() {
            let mut spans = vec![Span::styled("$ ", Style::default().fg(theme.dim))];
            spans.extend(hl.line(l));
            command.extend(wrap(
                &StyledLine {
                    spans,
                    continuation: vec![Span::raw("  ")],
                    fill: None,
                },
                inner_w,
            ));
        }
        let mut lines: Vec<Line<'static>> = vec![Line::default()];
        lines.push(Line::from(vec![
            Span::styled("in ", Style::default().fg(theme.dim)),
            Span::styled(self.cwd.clone(), Style::default().fg(theme.text)),
        ]));
        lines.extend(wrap(
            &StyledLine::from_spans(vec![
                Span::styled("risk ", Style::default().fg(theme.dim)),
                Span::styled(
                    self.risk.clone(),
                    Style::default().fg(risk_color).add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!(": {}", self.risk_reason),
                    Style::default().fg(theme.text),
                ),
            ]),
            inner_w,
        ));
        if self.network {
            lines.push(Line::from(Span::styled(
                "approving lets this command use the network",
                Style::default().fg(theme.warning),
            )));
        }
        if self.outside_sandbox {
            lines.push(Line::from(Span::styled(
                "this runs OUTSIDE the sandbox",
                Style::default()
                    .fg(theme.error)
                    .add_modifier(Modifier::BOLD),
            )));
        }
        lines.push(Line::default());
        let mut keys = vec![
            Span::styled(
                "y",
                Style::default()
                    .fg(theme.accent)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(" run   "),
            Span::styled(
                "n",
                Style::default()
                    .fg(theme.accent)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(" refuse   "),
        ];
        match &self.grant_prefix {
            Some(p) => {
                keys.push(Span::styled(
                    "a",
                    Style::default()
                        .fg(theme.accent)
                        .add_modifier(Modifier::BOLD),
                ));
                keys.push(Span::raw(format!(" allow `{p}` for this session   ")));
            }
            None => keys.push(Span::styled(
                "(no session grant for high-risk commands)   ",
                Style::default().fg(theme.dim),
            )),
        }
        keys.push(Span::styled(
            "Esc",
            Style::default()
                .fg(theme.accent)
                .add_modifier(Modifier::BOLD),
        ));
        keys.push(Span::raw(" stop the turn"));
        lines.extend(wrap(&StyledLine::from_spans(keys), inner_w));
        // The keys are never cut off: on a short screen the command gives way, scrolls,
        // and says which part of it is shown.
        let room = (area.height.saturating_sub(2) as usize)
            .saturating_sub(lines.len())
            .min(MAX_COMMAND_ROWS);
        let total = command.len();
        if total > room {
            let keep = room.saturating_sub(1);
            let first = self.scroll.min(total - keep);
            command = command.split_off(first);
            command.truncate(keep);
            if room > 0 {
                command.push(Line::from(Span::styled(
                    format!(
                        "lines {}–{} of {total} · ↑↓ PgUp/PgDn to read all of it",
                        first + 1,
                        first + keep
                    ),
                    Style::default().fg(theme.warning),
                )));
            }
        }
        command.append(&mut lines);
        let lines = command;
        let height = (lines.len() as u16 + 2).min(area.height);
        let rect = centered(area, width, height);
        let inner = frame(rect, buf, "Run this command?", risk_color);
        draw_lines(&lines, inner, buf);
    }

    fn hints(&self) -> String {
        let mut h = "y run · n refuse".to_string();
        if self.grant_prefix.is_some() {
            h.push_str(" · a allow for session");
        }
        h.push_str(" · Esc stop");
        h
    }

    fn call_id(&self) -> Option<&str> {
        Some(&self.id)
    }
}

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
            Some("e.g. use the existing helper instead"),
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

/// The diff an undo or redo would apply, with its confirmation.
pub struct UndoConfirm {
    redo: bool,
    scope: Scope,
    files: Vec<String>,
    /// Some files changed since Loom wrote them: applying needs `f` (force).
    conflicted: bool,
    pane: DiffPane,
}

impl UndoConfirm {
    /// Confirm the planned undo (or redo) of `scope` touching `files`, showing `diff` and
    /// the `conflicts` that make it need forcing.
    pub fn new(
        redo: bool,
        scope: Scope,
        diff: String,
        files: Vec<String>,
        conflicts: Vec<String>,
    ) -> UndoConfirm {
        UndoConfirm {
            redo,
            scope,
            files,
            conflicted: !conflicts.is_empty(),
            pane: DiffPane::new(conflicts, diff),
        }
    }
}

impl Layer for UndoConfirm {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        let op = |force: bool| {
            if self.redo {
                UserOp::Redo { apply: true, force }
            } else {
                UserOp::Undo {
                    scope: self.scope,
                    apply: true,
                    force,
                }
            }
        };
        match key.code {
            KeyCode::Char('y') | KeyCode::Enter if !self.conflicted => {
                Outcome::close(vec![Action::Send(op(false))])
            }
            KeyCode::Char('f') if self.conflicted => Outcome::close(vec![Action::Send(op(true))]),
            KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => Outcome::close(Vec::new()),
            _ => {
                self.pane.scroll_key(&key);
                Outcome::consumed()
            }
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let rect = centered(
            area,
            area.width.saturating_sub(2).min(110),
            area.height.saturating_sub(2),
        );
        let what = if self.redo { "Redo" } else { "Undo" };
        let inner = frame(
            rect,
            buf,
            &format!("{what}: {}", self.files.join(", ")),
            theme.warning,
        );
        self.pane.render(body(inner), buf, theme);
        let keys = if self.conflicted {
            "f overwrite anyway · n cancel · ↑↓ scroll".to_string()
        } else {
            format!("y {} · n cancel · ↑↓ scroll", what.to_lowercase())
        };
        footer(inner, buf, &keys, theme);
    }

    fn hints(&self) -> String {
        if self.conflicted {
            "f overwrite anyway · n cancel".into()
        } else if self.redo {
            "y redo · n cancel".into()
        } else {
            "y undo · n cancel".into()
        }
    }
}

/// A read-only, scrollable view of diffs (`/diff`).
pub struct DiffOverlay {
    title: String,
    pane: DiffPane,
}

impl DiffOverlay {
    /// Show the unified `diff` under `title`.
    pub fn new(title: String, diff: String) -> DiffOverlay {
        DiffOverlay {
            title,
            pane: DiffPane::new(Vec::new(), diff),
        }
    }
}

impl Layer for DiffOverlay {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter => Outcome::close(Vec::new()),
            _ if self.pane.scroll_key(&key) => Outcome::consumed(),
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            _ => Outcome::consumed(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let rect = centered(
            area,
            area.width.saturating_sub(2),
            area.height.saturating_sub(1),
        );
        let inner = frame(rect, buf, &self.title, theme.accent);
        self.pane.render(body(inner), buf, theme);
        footer(inner, buf, "↑↓ PgUp/PgDn scroll · Esc close", theme);
    }

    fn hints(&self) -> String {
        "↑↓ scroll · Esc close".into()
    }
}

/// The help overlay: commands and keys, scrollable on small screens.
#[derive(Debug, Default)]
pub struct Help {
    scroll: Scroll,
}

/// Keys (shown by `/help`).
pub const KEYS: &[(&str, &str)] = &[
    ("Enter", "send"),
    ("Shift+Enter, Alt+Enter, Ctrl+J", "new line"),
    ("Up / Down", "earlier prompts"),
    ("Ctrl+A/E/K/U/W, Alt+B/F", "edit like readline"),
    ("Esc", "stop the running turn"),
    ("Tab", "move between panes"),
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
    fn section(
        lines: &mut Vec<StyledLine>,
        heading: &'static str,
        rows: &[(String, &'static str)],
        theme: &Theme,
    ) {
        let heading_style = Style::default()
            .fg(theme.heading)
            .add_modifier(Modifier::BOLD);
        let key_style = Style::default()
            .fg(theme.accent)
            .add_modifier(Modifier::BOLD);
        let column = rows
            .iter()
            .map(|(name, _)| super::wrap::width(name))
            .max()
            .unwrap_or(0)
            + 2;
        lines.push(StyledLine::plain(heading, heading_style));
        for (name, what) in rows {
            lines.push(StyledLine {
                spans: vec![
                    Span::styled(format!("  {name:<column$}"), key_style),
                    Span::raw(*what),
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
        let commands: Vec<(String, &'static str)> = super::slash::COMMANDS
            .iter()
            .map(|c| (c.synopsis(), c.help))
            .collect();
        let keys: Vec<(String, &'static str)> = KEYS
            .iter()
            .map(|(k, what)| (k.to_string(), *what))
            .collect();
        Help::section(&mut logical, "Commands", &commands, theme);
        logical.push(StyledLine::blank());
        Help::section(&mut logical, "Keys", &keys, theme);
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
