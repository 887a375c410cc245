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

/// Rows of the live region at the bottom, for a terminal `rows` high: two thirds, at
/// least 18, at most the screen. The region cannot grow once drawn, and it holds the
/// reviews and question boxes: at 14 rows an 80×24 review showed five diff lines and a
/// command box spilled over the message box.
pub fn viewport_rows(rows: u16) -> u16 {
    (rows * 2 / 3).max(18).min(rows)
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
    use crate::protocol::events::AgentEvent;
    use crate::snapshot_tests::{app, ev};

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
    fn the_live_region_is_two_thirds_within_bounds() {
        assert_eq!(viewport_rows(50), 33);
        assert_eq!(viewport_rows(24), 18);
        assert_eq!(viewport_rows(10), 10);
    }

    /// Regression (issue 25): `--inline` at 80×24 kept a region too small for a review (5
    /// diff lines) and a command box spilled over the message box. The region of an 80×24
    /// terminal now shows at least 10 diff lines, and a command box above the message box.
    #[test]
    fn the_live_region_of_an_80x24_terminal_holds_a_review_and_a_command_box() {
        use crate::snapshot_tests::{awaiting_diff, text};
        let rows = viewport_rows(24);
        let (mut reviewing, _rx) = app("dark");
        awaiting_diff(&mut reviewing);
        let screen = text(&mut reviewing, 80, rows);
        let lines: Vec<&str> = screen.lines().collect();
        let title = lines.iter().position(|l| l.contains("Review the change"));
        let keys = lines.iter().position(|l| l.contains("y apply · n refuse"));
        let diff_rows = keys.zip(title).map_or(0, |(k, t)| k - t - 1);
        assert!(diff_rows >= 10, "{diff_rows} rows of diff:\n{screen}");
        let (mut app, _rx) = app("dark");
        ev(
            &mut app,
            AgentEvent::ApprovalRequested {
                id: "b1".into(),
                name: "bash".into(),
                reason: "asks".into(),
                preview: crate::protocol::events::ApprovalPreview::Command {
                    command: "cargo test --workspace".into(),
                    cwd: ".".into(),
                    risk: crate::protocol::risk::Risk::Medium,
                    risk_reason: "builds and runs code".into(),
                    grant_offered: true,
                    grant_prefix: Some("cargo test".into()),
                    network: false,
                    outside_sandbox: false,
                },
            },
        );
        let screen = text(&mut app, 80, rows);
        let lines: Vec<&str> = screen.lines().collect();
        let box_bottom = lines
            .iter()
            .rposition(|l| l.trim_start().starts_with('└') && !l.starts_with('└'))
            .unwrap_or_else(|| panic!("no command box:\n{screen}"));
        let message = lines
            .iter()
            .position(|l| l.starts_with("┌ Message"))
            .unwrap_or_else(|| panic!("the message box is covered:\n{screen}"));
        assert!(box_bottom < message, "{screen}");
        assert!(screen.contains("$ cargo test --workspace"), "{screen}");
        assert!(screen.contains("y run"), "{screen}");
    }
}
