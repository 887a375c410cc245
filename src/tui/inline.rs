//! Inline mode (`--inline`, `inline = true`): Loom draws in a region at the bottom of the
//! normal screen instead of the alternate screen, and each part of the conversation that
//! will not change any more (a prompt, a finished answer, a finished tool call, a notice) is
//! moved out of the chat pane into the terminal's own scrollback above it, the way Codex
//! does. The terminal keeps the history: its scrolling, search and selection work on it.
//! Here: which entries are ready and how they are laid out; `run.rs` writes them.

use ratatui::text::Line;

use super::app::App;
use super::tools_pane::ToolStatus;
use super::wrap::wrap;

/// Rows of the live region at the bottom, for a terminal `rows` high: two fifths, at
/// least 14 (a review needs room), at most the screen.
pub fn viewport_rows(rows: u16) -> u16 {
    (rows * 2 / 5).max(14).min(rows)
}

impl App {
    /// The entries that will not change any more, taken from the chat pane, as screen
    /// lines `width` columns wide for the scrollback (all of them when `all`, at exit).
    pub fn take_settled(&mut self, width: u16, all: bool) -> Vec<Line<'static>> {
        let n = if all {
            self.transcript.finish_answer();
            self.transcript.len()
        } else {
            let open: Vec<&str> = self
                .tools
                .rows
                .iter()
                .rev()
                .take(64)
                .filter(|r| !matches!(r.status, ToolStatus::Done { .. } | ToolStatus::Denied))
                .map(|r| r.id.as_str())
                .collect();
            self.transcript.settled_prefix(|id| !open.contains(&id))
        };
        self.transcript
            .drain_front(n)
            .iter()
            .flat_map(|l| wrap(l, width.max(1)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentEvent;
    use crate::tui::snapshot_tests::{app, ev};

    #[test]
    fn finished_entries_leave_and_open_ones_stay() {
        let (mut app, _rx) = app("dark");
        ev(
            &mut app,
            AgentEvent::UserMessage {
                text: "first".into(),
                queued: false,
            },
        );
        ev(
            &mut app,
            AgentEvent::ToolCall {
                id: "c1".into(),
                name: "bash".into(),
                arguments: serde_json::json!({"command": "make"}),
                intent: None,
            },
        );
        ev(&mut app, AgentEvent::ToolStarted { id: "c1".into() });
        let lines = app.take_settled(40, false);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text, ["› first", ""], "the running call stays live");
        assert_eq!(app.transcript.len(), 1);
        ev(
            &mut app,
            AgentEvent::TextDelta {
                text: "streaming".into(),
            },
        );
        assert!(app.take_settled(40, false).is_empty(), "still running");
        let all = app.take_settled(40, true);
        assert!(
            all.iter().any(|l| l.to_string().contains("streaming")),
            "at exit everything goes: {all:?}"
        );
        assert!(app.transcript.is_empty());
        assert_eq!(app.transcript.last_answer().as_deref(), Some("streaming"));
    }

    #[test]
    fn the_live_region_is_two_fifths_within_bounds() {
        assert_eq!(viewport_rows(50), 20);
        assert_eq!(viewport_rows(24), 14);
        assert_eq!(viewport_rows(10), 10);
    }
}
