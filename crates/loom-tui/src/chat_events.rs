//! The agent's events that only the chat shows: the person's messages, the streamed answer
//! and reasoning, retries, notices, errors, and the answers to `/undo` and `/changes`. The app hands
//! them to the transcript as they come.

use std::hash::{Hash, Hasher};

use super::transcript::{NoticeLevel, Transcript};
use crate::protocol::changes::ChangeSummary;
use crate::protocol::events::AgentEvent;

/// Errors of at least this many lines are said in full only once.
const LONG_ERROR_LINES: usize = 3;

impl Transcript {
    /// Show `event`, one of the chat's own (others are ignored here).
    pub fn on_agent_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::UserMessage { text, queued } => {
                self.push_user(&text);
                if queued {
                    self.push_notice(NoticeLevel::Info, "queued: sent when the current turn ends");
                }
            }
            AgentEvent::TextDelta { text } => self.push_delta(&text),
            AgentEvent::ReasoningDelta { text } => self.push_reasoning(&text),
            AgentEvent::AssistantMessage { .. } => self.finish_answer(),
            AgentEvent::Retry {
                attempt,
                max_attempts,
                reason,
                wait_ms,
            } => {
                self.push_notice(
                    NoticeLevel::Warning,
                    &format!(
                        "retrying in {:.1}s (attempt {attempt} of {max_attempts}): {reason}",
                        wait_ms as f64 / 1000.0
                    ),
                );
            }
            AgentEvent::Notice { message } => self.push_notice(NoticeLevel::Info, &message),
            AgentEvent::UndoApplied { redo, files } => {
                let verb = if redo { "Redid" } else { "Undid" };
                self.push_notice(
                    NoticeLevel::Info,
                    &format!("{verb} changes to {}", files.join(", ")),
                );
            }
            AgentEvent::Changes { changes } => self.show_changes(&changes),
            _ => {}
        }
    }

    /// Show an error from the agent: a long one seen before in one line, pointing up.
    pub fn push_error(&mut self, message: &str) {
        if message.lines().count() >= LONG_ERROR_LINES {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            message.trim().hash(&mut hasher);
            if !self.shown_errors.insert(hasher.finish()) {
                let first = message.lines().next().unwrap_or("").trim_end();
                let again = format!("{first} (again: the whole message is above)");
                self.push_notice(NoticeLevel::Error, &again);
                return;
            }
        }
        self.push_notice(NoticeLevel::Error, message);
    }

    /// The session's recorded changes (`/changes`), one line each.
    fn show_changes(&mut self, changes: &[ChangeSummary]) {
        if changes.is_empty() {
            self.push_notice(NoticeLevel::Info, "no changes recorded in this session yet");
            return;
        }
        let list: Vec<String> = changes
            .iter()
            .map(|c| {
                format!(
                    "#{} turn {} {}: {}{}",
                    c.seq,
                    c.turn,
                    c.tool,
                    c.what,
                    if c.undone { " (undone)" } else { "" }
                )
            })
            .collect();
        self.push_notice(NoticeLevel::Info, &format!("changes:\n{}", list.join("\n")));
    }
}
