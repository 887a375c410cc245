//! Keys, pastes, mouse wheel and slash commands: how input changes the TUI's state and
//! which ops go to the agent. The front layer sees keys first; then global keys (Esc,
//! Ctrl+C, Tab, scrolling); then the focused pane.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};

use super::app::{App, Focus};
use super::composer::{ComposerOutcome, sanitize_paste};
use super::theme::Theme;
use super::transcript::NoticeLevel;
use crate::agent::{ApprovalAnswer, UserOp};

/// How long a first Ctrl+C waits for the second.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

impl App {
    /// Handle a key press.
    pub fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if let Some(layer) = self.layers.last_mut() {
            let outcome = layer.handle_key(key);
            if outcome.close {
                self.layers.pop();
            }
            for action in outcome.actions {
                self.run_action(action);
            }
            if outcome.consumed {
                return;
            }
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => {
                self.quit = true;
                return;
            }
            KeyCode::Esc => {
                if self.busy() {
                    self.send(UserOp::Interrupt);
                } else {
                    self.focus = Focus::Composer;
                }
                return;
            }
            KeyCode::Tab | KeyCode::BackTab if self.diff.reviewing.is_some() => {
                // A pending review keeps the keys; Tab steps out to the composer on purpose
                // and back.
                self.focus = if self.focus == Focus::Composer {
                    Focus::Details
                } else {
                    Focus::Composer
                };
                return;
            }
            KeyCode::Tab if self.focus == Focus::Composer && self.complete_command() => return,
            KeyCode::Tab => return self.cycle_focus(true),
            KeyCode::BackTab => return self.cycle_focus(false),
            KeyCode::PageUp => return self.scroll_focused(-(self.page() as isize)),
            KeyCode::PageDown => return self.scroll_focused(self.page() as isize),
            // Home/End scroll the chat when it has focus, with Ctrl from anywhere, and from
            // an empty message box (where there is no text for them to move in).
            KeyCode::Home if ctrl || self.scrolls_chat() => {
                self.transcript.scroll_home();
                return;
            }
            KeyCode::End if ctrl || self.scrolls_chat() => {
                self.transcript.scroll_end();
                return;
            }
            _ => {}
        }
        self.ctrl_c_at = None;
        if self.diff.reviewing.is_some() && self.focus != Focus::Composer {
            self.focus = Focus::Details;
            return self.review_key(key);
        }
        match self.focus {
            Focus::Composer => match self.composer.handle_key(key) {
                ComposerOutcome::Submit(text) => self.submit(&text),
                ComposerOutcome::Ignored => match key.code {
                    KeyCode::Up => self.transcript.scroll_up(1),
                    KeyCode::Down => self.transcript.scroll_down(1),
                    _ => {}
                },
                ComposerOutcome::Consumed => {}
            },
            Focus::Chat => match key.code {
                KeyCode::Up | KeyCode::Char('k') => self.transcript.scroll_up(1),
                KeyCode::Down | KeyCode::Char('j') => self.transcript.scroll_down(1),
                KeyCode::Char(_) | KeyCode::Enter => {
                    self.focus = Focus::Composer;
                    self.on_key(key);
                }
                _ => {}
            },
            Focus::Tools => match key.code {
                KeyCode::Up | KeyCode::Char('k') => {
                    self.tools.select(-1);
                    self.sync_details();
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.tools.select(1);
                    self.sync_details();
                }
                KeyCode::Enter | KeyCode::Right => self.focus = Focus::Details,
                _ => {}
            },
            Focus::Details => self.details_key(key),
        }
    }

    /// Whether plain Home/End go to the chat rather than the message box's text.
    fn scrolls_chat(&self) -> bool {
        self.focus == Focus::Chat || (self.focus == Focus::Composer && self.composer.is_empty())
    }

    /// Tab in a message box holding the start of a slash command completes it when there
    /// is exactly one way to; true when it did.
    fn complete_command(&mut self) -> bool {
        let text = self.composer.text();
        if !text.starts_with('/') || text.contains('\n') {
            return false;
        }
        match super::slash::complete(&text).as_slice() {
            [only] => {
                let with_space = if only.contains(' ') {
                    only.clone()
                } else {
                    format!("{only} ")
                };
                self.composer.set_text(&with_space);
                true
            }
            _ => false,
        }
    }

    fn page(&self) -> usize {
        (self.layout.chat.height as usize).saturating_sub(2).max(1)
    }

    fn ctrl_c(&mut self) {
        // Input timing uses the real clock: `self.now` is the last frame's time and can be
        // seconds old when the screen was idle.
        let now = std::time::Instant::now();
        if self
            .ctrl_c_at
            .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
        {
            self.quit = true;
            return;
        }
        self.ctrl_c_at = Some(now);
        if self.busy() {
            self.send(UserOp::Interrupt);
        } else if !self.composer.is_empty() {
            self.composer.take();
        }
    }

    /// Whether a first Ctrl+C waits for a second (the status line says so meanwhile).
    pub(crate) fn quit_pending(&self) -> bool {
        self.ctrl_c_at
            .is_some_and(|t| std::time::Instant::now().duration_since(t) < QUIT_WINDOW)
    }

    fn cycle_focus(&mut self, forward: bool) {
        let order = [Focus::Composer, Focus::Chat, Focus::Tools, Focus::Details];
        let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let next = if forward {
            (i + 1) % order.len()
        } else {
            (i + order.len() - 1) % order.len()
        };
        self.focus = order[next];
        if self.focus == Focus::Details {
            self.sync_details();
        }
    }

    fn scroll_focused(&mut self, lines: isize) {
        match self.focus {
            Focus::Details => {
                if self.diff_visible() {
                    self.diff.scroll_by(lines);
                } else {
                    self.tools.scroll_details(lines);
                }
            }
            Focus::Tools => self.tools.select(lines.signum() * 5),
            _ => {
                if lines < 0 {
                    self.transcript.scroll_up(lines.unsigned_abs());
                } else {
                    self.transcript.scroll_down(lines as usize);
                }
            }
        }
    }

    /// Whether the details area shows a diff (rather than tool output).
    pub(crate) fn diff_visible(&self) -> bool {
        self.diff.reviewing.is_some()
            || self
                .tools
                .current()
                .is_some_and(|r| self.diffs.contains_key(&r.id))
    }

    /// Keys while a file change waits for review: they go to the review whatever pane had
    /// focus (only the composer, reached on purpose with Tab, types instead).
    fn review_key(&mut self, key: KeyEvent) {
        if let Some(id) = self.diff.reviewing.clone() {
            let answer = |a: ApprovalAnswer| UserOp::Approve {
                id: id.clone(),
                answer: a,
            };
            match key.code {
                KeyCode::Char('?') => self
                    .layers
                    .push(Box::new(super::layers::review_keys::ReviewKeys)),
                KeyCode::Char('y') => {
                    self.resolve_review(&id);
                    self.send(answer(ApprovalAnswer::Approve));
                }
                KeyCode::Char('a') => {
                    self.status.edits_allowed = true;
                    self.resolve_review(&id);
                    self.send(answer(ApprovalAnswer::ApproveForSession));
                }
                KeyCode::Char('n') => self.run_action(super::layers::Action::AskReason(id.clone())),
                KeyCode::Enter => {
                    let hunks = self.diff.selected.clone();
                    self.resolve_review(&id);
                    if hunks.iter().all(|h| *h) {
                        self.send(answer(ApprovalAnswer::Approve));
                    } else {
                        self.send(answer(ApprovalAnswer::ApproveHunks { hunks }));
                    }
                }
                KeyCode::Char(' ') => self.diff.toggle(),
                KeyCode::Down | KeyCode::Char('j') => self.diff.move_hunk(1),
                KeyCode::Up | KeyCode::Char('k') => self.diff.move_hunk(-1),
                _ => {}
            }
        }
    }

    fn details_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.scroll_focused(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_focused(1),
            KeyCode::Left => self.focus = Focus::Tools,
            KeyCode::Char(_) | KeyCode::Enter => {
                self.focus = Focus::Composer;
                self.on_key(key);
            }
            _ => {}
        }
    }

    /// Handle bracketed paste: the whole block goes into the composer (or the front layer).
    pub fn on_paste(&mut self, text: &str) {
        let clean = sanitize_paste(text);
        if let Some(layer) = self.layers.last_mut()
            && layer.paste(&clean)
        {
            return;
        }
        self.focus = Focus::Composer;
        self.composer.insert(&clean);
    }

    /// Handle the mouse wheel over a pane.
    pub fn on_mouse(&mut self, event: MouseEvent) {
        let delta: isize = match event.kind {
            MouseEventKind::ScrollUp => -3,
            MouseEventKind::ScrollDown => 3,
            _ => return,
        };
        let pos = ratatui::layout::Position::new(event.column, event.row);
        if self.layout.details.contains(pos) {
            if self.diff_visible() {
                self.diff.scroll_by(delta);
            } else {
                self.tools.scroll_details(delta);
            }
        } else if self.layout.tools.contains(pos) {
            self.tools.select(delta.signum());
            self.sync_details();
        } else if delta < 0 {
            self.transcript.scroll_up(3);
        } else {
            self.transcript.scroll_down(3);
        }
    }

    /// A message or a slash command from the composer.
    pub fn submit(&mut self, text: &str) {
        let trimmed = text.trim();
        if let Some(command) = trimmed.strip_prefix('/')
            && !command.starts_with('/')
            && !command.contains('\n')
        {
            self.command(command);
            return;
        }
        self.transcript.scroll_end();
        self.send(UserOp::Submit {
            text: text.to_string(),
        });
    }

    /// Switch themes everywhere.
    pub fn set_theme(&mut self, theme: Theme) {
        self.transcript.set_theme(&theme);
        self.diff.invalidate();
        self.tools.restyle();
        self.theme = theme;
    }

    /// Show every change of the session in an overlay (`/diff`).
    pub(crate) fn show_session_diff(&mut self) {
        let text: Vec<String> = self
            .applied
            .iter()
            .filter_map(|id| self.diffs.get(id))
            .map(super::app::CallDiff::unified)
            .collect();
        if text.is_empty() {
            self.transcript
                .push_notice(NoticeLevel::Info, "no file changes in this session yet");
            return;
        }
        self.layers.push(Box::new(super::layers::DiffOverlay::new(
            format!(
                "Every change of this session ({} write{})",
                text.len(),
                if text.len() == 1 { "" } else { "s" }
            ),
            text.join(""),
        )));
    }
}
