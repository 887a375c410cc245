//! What finished calls and failed turns leave on screen: a command's output under its row
//! in the chat, a `!command`'s output as a chip for the next message, and errors — a long
//! one (the how-to-connect block, a server's error page) said in full once and in one line
//! when it comes again (the chat keeps which; see `chat_events.rs`).

use super::app::{App, SHELL_ATTACH_BUDGET};
use super::tools_pane::ToolStatus;
use super::transcript::NoticeLevel;
use crate::protocol::tool_data::BashData;
use serde::Deserialize;

/// The argument of a `!command`'s `bash` call this file reads, as a type.
#[derive(Deserialize)]
struct CommandArg {
    command: String,
}

impl App {
    /// A finished command's output goes under its row in the chat.
    pub(crate) fn show_output(&mut self, id: &str) {
        let Some(row) = self.tools.rows.iter().rev().find(|r| r.id == id) else {
            return;
        };
        if let (true, Some(result), ToolStatus::Done { ms, .. }) =
            (row.name == "bash", &row.result, &row.status)
        {
            let output = super::command_output::CommandOutput::from_result(result, ms.unwrap_or(0));
            self.transcript.set_output(id, output);
        }
    }

    /// A `!command` finished: its output goes with the next message (as a chip).
    pub(crate) fn attach_shell_output(&mut self, id: &str) {
        let Some(row) = self.tools.rows.iter().rev().find(|r| r.id == id) else {
            return;
        };
        let Some(result) = &row.result else { return };
        if row.status == ToolStatus::Denied {
            return;
        }
        let command =
            CommandArg::deserialize(&row.args).map_or_else(|_| row.summary.clone(), |a| a.command);
        let ran: BashData = result.data_as().unwrap_or_default();
        let has_data = result.data.is_some();
        let mut text = format!("$ {command}\n");
        let (stdout, stderr) = (ran.stdout, ran.stderr);
        if !has_data {
            text.push_str(result.error.as_deref().unwrap_or(&result.output));
        }
        text.push_str(&stdout);
        if !stderr.is_empty() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[stderr]\n");
            text.push_str(&stderr);
        }
        if has_data {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("[{}]", result.output.lines().next().unwrap_or("")));
        }
        let (text, _) = crate::base::text::cut_middle(&text, SHELL_ATTACH_BUDGET);
        self.draft.attachments.push(super::attachments::Attachment {
            name: format!("!{}", crate::wrap::truncate(&command, 40)),
            text,
        });
        self.transcript.push_notice(
            NoticeLevel::Info,
            "the output goes with your next message (Backspace in an empty message box drops it)",
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::events::AgentEvent;
    use crate::snapshot_tests::{app, ev, text};

    /// Regression (issue 25): the how-to-connect block came back in full on later prompts.
    /// A long error is said in full once, then in one line.
    #[test]
    fn a_long_error_said_again_takes_one_line() {
        let (mut app, _rx) = app("dark");
        let how_to = crate::test_support::how_to_configure();
        for _ in 0..3 {
            ev(
                &mut app,
                AgentEvent::Error {
                    message: how_to.clone(),
                },
            );
        }
        let screen = text(&mut app, 120, 60);
        assert_eq!(screen.matches("OPENAI_API_KEY").count(), 1, "{screen}");
        assert_eq!(
            screen
                .matches("(again: the whole message is above)")
                .count(),
            2
        );
        ev(
            &mut app,
            AgentEvent::Error {
                message: "short\nerror".into(),
            },
        );
        ev(
            &mut app,
            AgentEvent::Error {
                message: "short\nerror".into(),
            },
        );
        assert_eq!(text(&mut app, 120, 60).matches("error").count(), 2);
    }
}
