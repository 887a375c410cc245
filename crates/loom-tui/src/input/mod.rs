//! Keys, pastes and the mouse wheel: how input changes the TUI's state and which ops go to
//! the agent. The front layer sees keys first; then global keys (Esc, Ctrl+C, Tab,
//! scrolling); then the focused pane, each in its own file (chat, tools, details,
//! composer). Slash commands are in `slash.rs`.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};

use super::app::{App, Focus};
use super::composer::sanitize_paste;
use super::theme::Theme;
use super::transcript::NoticeLevel;
use crate::protocol::events::UserOp;

mod chat;
mod composer;
mod details;
mod search;
mod tools;

/// How long a first Ctrl+C waits for the second.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

impl App {
    /// Handle a key press.
    pub fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let now = std::time::Instant::now();
        self.release_held(&key, now);
        if self.holds_answer(&key) {
            self.layers.held = Some((key, now));
            return;
        }
        self.route_key(key);
    }

    /// Route a key press to what has the keys.
    pub(crate) fn route_key(&mut self, key: KeyEvent) {
        if self.layer_key(key) || self.search_key(key) || self.global_key(key) {
            return;
        }
        self.outbox.ctrl_c_at = None;
        self.outbox.esc_at = None;
        if self.details.reviewing() && self.focus != Focus::Composer {
            self.focus = Focus::Details;
            return self.review_key(key);
        }
        match self.focus {
            Focus::Composer => self.composer_key(key),
            Focus::Chat => self.chat_key(key),
            Focus::Tools => self.tools_key(key),
            Focus::Details => self.details_key(key),
        }
    }

    /// Hand `key` to the front layer when it has the keys; true when nothing else is to
    /// see it.
    fn layer_key(&mut self, key: KeyEvent) -> bool {
        let to_layer = match self.layers.last() {
            None => false,
            Some(l) if l.is_question() => match self.question_key(&key) {
                None => return true,
                Some(answering) => answering,
            },
            Some(_) => true,
        };
        if !to_layer {
            self.layers.last_key = Some(std::time::Instant::now());
        }
        if to_layer && let Some(layer) = self.layers.last_mut() {
            let outcome = layer.handle_key(key);
            if outcome.close {
                self.layers.pop();
            }
            for action in outcome.actions {
                self.run_action(action);
            }
            if outcome.consumed {
                return true;
            }
        }
        false
    }

    /// The keys that mean the same whichever pane has focus; true when `key` was one.
    fn global_key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => self.ctrl_c(),
            KeyCode::Char('o') if ctrl => self.transcript.toggle_outputs(),
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => self.outbox.quit = true,
            KeyCode::Esc => {
                if self.busy() || self.tools.shell_running() {
                    self.send(UserOp::Interrupt);
                } else if !self.idle_esc(std::time::Instant::now()) {
                    self.focus = Focus::Composer;
                }
            }
            KeyCode::Tab | KeyCode::BackTab if self.details.reviewing() => {
                // A pending review keeps the keys; Tab steps out to the composer on purpose
                // and back.
                self.focus = if self.focus == Focus::Composer {
                    Focus::Details
                } else {
                    Focus::Composer
                };
            }
            KeyCode::Tab if self.focus == Focus::Composer && self.complete_command() => {}
            KeyCode::Tab => self.cycle_focus(true),
            KeyCode::BackTab if self.focus == Focus::Composer => self.cycle_mode(),
            KeyCode::BackTab => self.cycle_focus(false),
            KeyCode::PageUp => self.scroll_focused(-(self.page() as isize)),
            KeyCode::PageDown => self.scroll_focused(self.page() as isize),
            // Home/End scroll the chat when it has focus, with Ctrl from anywhere, and from
            // an empty message box (where there is no text for them to move in).
            KeyCode::Home if ctrl || self.scrolls_chat() => self.transcript.scroll_home(),
            KeyCode::End if ctrl || self.scrolls_chat() => self.transcript.scroll_end(),
            _ => return false,
        }
        true
    }

    /// The rows a page key moves: the rows the pane it scrolls showed in the last frame
    /// (the review's diff without its key lines; the chat when the message box has focus).
    fn page(&self) -> usize {
        let rows = match self.focus {
            Focus::Details => self.layout.details_rows,
            Focus::Tools => self.layout.tools.height.saturating_sub(2),
            Focus::Chat | Focus::Composer => self.layout.chat.height.saturating_sub(2),
        };
        (rows as usize).max(1)
    }

    fn ctrl_c(&mut self) {
        // Input timing uses the real clock: `self.now` is the last frame's time and can be
        // seconds old when the screen was idle.
        let now = std::time::Instant::now();
        if self
            .outbox
            .ctrl_c_at
            .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
        {
            self.outbox.quit = true;
            return;
        }
        self.outbox.ctrl_c_at = Some(now);
        if self.busy() || self.tools.shell_running() {
            self.send(UserOp::Interrupt);
        } else if !self.composer.is_empty() {
            self.composer.take();
        }
    }

    /// Whether a first Ctrl+C waits for a second (the status line says so meanwhile).
    pub(crate) fn quit_pending(&self) -> bool {
        self.outbox
            .ctrl_c_at
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
                    self.details.view.scroll_by(lines);
                } else {
                    self.tools.scroll_details(lines);
                }
            }
            Focus::Tools => {
                self.tools.select(lines);
                self.sync_details();
            }
            _ => {
                if lines < 0 {
                    self.transcript.scroll_up(lines.unsigned_abs());
                } else {
                    self.transcript.scroll_down(lines as usize);
                }
            }
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
        // A pasted image path (what terminals paste for a dragged file) attaches the image.
        if let Some(path) = crate::protocol::image::pasted_path(&clean) {
            match crate::protocol::image::load(std::path::Path::new(&path)) {
                Ok(image) => {
                    self.transcript.push_notice(
                        NoticeLevel::Info,
                        &format!(
                            "image {} attached: it goes with your next message (for models \
                             that accept images)",
                            image.name
                        ),
                    );
                    self.draft.images.push(image);
                }
                Err(e) => self.transcript.push_notice(NoticeLevel::Error, &e),
            }
            return;
        }
        self.composer.insert(&clean);
    }

    /// Handle the mouse: the wheel scrolls the pane under it; pressing the left button on a
    /// chat message and releasing it (on the same or another message) copies the clean text
    /// of those messages, since a terminal's own selection is off while Loom takes the mouse.
    pub fn on_mouse(&mut self, event: MouseEvent) {
        use crossterm::event::MouseButton;
        let pos = ratatui::layout::Position::new(event.column, event.row);
        let chat = self.layout.chat;
        let in_chat = chat.contains(pos) && event.row > chat.y;
        let entry = || {
            in_chat
                .then(|| self.transcript.entry_at(event.row - chat.y - 1))
                .flatten()
        };
        match event.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                let start = entry();
                self.transcript.selecting = start;
                return;
            }
            MouseEventKind::Up(MouseButton::Left) => {
                let end = entry();
                if let (Some(start), Some(end)) = (self.transcript.selecting.take(), end) {
                    self.copy_entries(start.min(end)..=start.max(end));
                }
                return;
            }
            _ => {}
        }
        let delta: isize = match event.kind {
            MouseEventKind::ScrollUp => -3,
            MouseEventKind::ScrollDown => 3,
            _ => return,
        };
        let pos = ratatui::layout::Position::new(event.column, event.row);
        if self.layout.details.contains(pos) {
            if self.diff_visible() {
                self.details.view.scroll_by(delta);
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

    /// Copy the clean text of chat entries `range` (a mouse selection).
    fn copy_entries(&mut self, range: std::ops::RangeInclusive<usize>) {
        let count = range.clone().count();
        let text = self.transcript.clean_text(range);
        if text.trim().is_empty() {
            return;
        }
        if text.len() > crate::clipboard::MAX_COPY {
            let msg = format!(
                "the selection is {} KiB, more than a terminal takes at once ({} KiB)",
                text.len() / 1024,
                crate::clipboard::MAX_COPY / 1024
            );
            self.transcript.push_notice(NoticeLevel::Error, &msg);
            return;
        }
        let lines = text.lines().count();
        // The event loop copies it and says where it went (or why it could not).
        self.outbox.clipboard = Some(crate::clipboard::Pending {
            what: format!(
                "{count} message{} ({lines} line{}, as written: no wrapping or borders)",
                if count == 1 { "" } else { "s" },
                if lines == 1 { "" } else { "s" }
            ),
            text,
        });
    }

    /// Say where a copy went, or why it could go nowhere.
    pub fn copied(&mut self, what: &str, result: Result<String, String>) {
        match result {
            Ok(how) => self
                .transcript
                .push_notice(NoticeLevel::Info, &format!("copied {what} to {how}")),
            Err(why) => self
                .transcript
                .push_notice(NoticeLevel::Error, &format!("could not copy {what}: {why}")),
        }
    }

    /// Switch themes everywhere.
    pub fn set_theme(&mut self, theme: Theme) {
        self.transcript.set_theme(&theme);
        self.details.view.invalidate();
        self.tools.restyle();
        self.theme = theme;
    }

    /// Show every change of the session in an overlay (`/diff`).
    pub(crate) fn show_session_diff(&mut self) {
        let text: Vec<String> = self
            .details
            .applied
            .iter()
            .filter_map(|id| self.details.diffs.get(id))
            .map(super::call_diff::CallDiff::unified)
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
