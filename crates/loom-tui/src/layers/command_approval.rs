//! The command approval: the command, where it runs, its risk and why it is asked, with
//! its keys always visible (a long command scrolls above them).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::contrast::legible;
use crate::highlight::CodeHighlighter;
use crate::wrap::{StyledLine, wrap};

/// "Run this command?"
pub struct CommandApproval {
    /// Call id.
    pub id: String,
    /// The command.
    pub command: String,
    /// Its working directory.
    pub cwd: String,
    /// Its risk, or `None` where nothing classified it (shown as "unknown").
    pub risk: Option<crate::protocol::risk::Risk>,
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
    /// The furthest `scroll` can go, as the last drawing found (so scrolling past the end
    /// does not pile up presses that Up must undo).
    pub max_scroll: std::cell::Cell<usize>,
    /// How many command lines the last drawing showed (a page key moves by that many).
    pub shown: std::cell::Cell<usize>,
}

/// The most rows a command takes in its approval box; a longer one scrolls.
const MAX_COMMAND_ROWS: usize = 14;

impl CommandApproval {
    fn draw(&self, area: Rect, buf: &mut Buffer, theme: &Theme, waiting: bool) {
        let risk_color = risk_color(self.risk, theme);
        let width = area.width.saturating_sub(4).min(100);
        let inner_w = width.saturating_sub(2);
        let mut command = self.command_lines(inner_w, theme);
        let mut lines = self.fact_lines(inner_w, risk_color, theme);
        lines.push(Line::default());
        lines.extend(wrap(&StyledLine::from_spans(self.keys(theme)), inner_w));
        // The keys are never cut off: on a short screen the command gives way, scrolls,
        // and says which part of it is shown.
        // On a very short screen the blank spacer lines go first, so at least two rows show
        // the command (one of it and where it stands): a box that hides what `y` would run
        // must not happen.
        let inside = area.height.saturating_sub(2) as usize;
        while inside.saturating_sub(lines.len()) < 2
            && let Some(blank) = lines.iter().position(|l| l.width() == 0)
        {
            lines.remove(blank);
        }
        let room = inside.saturating_sub(lines.len()).min(MAX_COMMAND_ROWS);
        let total = command.len();
        if total > room {
            let keep = if room >= 2 { room - 1 } else { room };
            let first = self.scroll.min(total - keep);
            self.max_scroll.set(total - keep);
            command = command.split_off(first);
            command.truncate(keep);
            self.shown.set(keep);
            if room >= 2 {
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
        let inner = question_frame(rect, buf, "Run this command?", risk_color, waiting, theme);
        draw_lines(&lines, inner, buf);
    }

    /// The command, highlighted, wrapped to `inner_w`.
    fn command_lines(&self, inner_w: u16, theme: &Theme) -> Vec<Line<'static>> {
        let mut command: Vec<Line<'static>> = Vec::new();
        let mut hl = CodeHighlighter::new(
            "bash",
            &theme.id.syntax,
            theme.id.depth,
            Style::default().fg(theme.text),
        );
        for l in self.command.lines() {
            let mut spans = vec![Span::styled("$ ", Style::default().fg(theme.dim))];
            spans.extend(hl.line(l).into_iter().map(|s| {
                let style = legible(s.style, theme);
                s.style(style)
            }));
            command.extend(wrap(
                &StyledLine {
                    spans,
                    continuation: vec![Span::raw("  ")],
                    fill: None,
                },
                inner_w,
            ));
        }
        command
    }

    /// Where it runs, its risk and why, and what approving it opens.
    fn fact_lines(
        &self,
        inner_w: u16,
        risk_color: ratatui::style::Color,
        theme: &Theme,
    ) -> Vec<Line<'static>> {
        let mut lines: Vec<Line<'static>> = vec![Line::default()];
        lines.push(Line::from(vec![
            Span::styled("in ", Style::default().fg(theme.dim)),
            Span::styled(self.cwd.clone(), Style::default().fg(theme.text)),
        ]));
        lines.extend(wrap(
            &StyledLine::from_spans(vec![
                Span::styled("risk ", Style::default().fg(theme.dim)),
                Span::styled(
                    super::risk_name(self.risk),
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
        lines
    }

    /// The keys: run, refuse, the session grant when one is offered, stop the turn.
    fn keys(&self, theme: &Theme) -> Vec<Span<'static>> {
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
        keys
    }
}

impl Layer for CommandApproval {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        // Only `y` runs a command (see `approval_key`): an Enter meant for the message
        // box, typed as the question appears, must not approve it.
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => {
                self.scroll = (self.scroll + 1).min(self.max_scroll.get());
                Outcome::consumed()
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.scroll = self.scroll.saturating_sub(1);
                Outcome::consumed()
            }
            KeyCode::PageDown => {
                let page = self.shown.get().max(1);
                self.scroll = (self.scroll + page).min(self.max_scroll.get());
                Outcome::consumed()
            }
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(self.shown.get().max(1));
                Outcome::consumed()
            }
            _ => approval_key(&self.id, key, self.grant_prefix.is_some()),
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
