//! Rewind and fork on the screen (issue 28). `/rewind` (or `Esc Esc` between turns) asks
//! the agent for the conversation's prompts and lists them; picking one asks for the
//! rewind's plan, shown as a diff to confirm; once done, the prompt comes back to the
//! message box. `/fork [N]` asks the agent for a new session. The screen knows only the
//! ops and events: the session file and the undo journal are the agent's.

use std::time::{Duration, Instant};

use super::app::App;
use super::layers::{Action, PickItem, Picker, RewindConfirm};
use super::transcript::NoticeLevel;
use crate::protocol::events::{AgentEvent, UserOp};
use crate::protocol::rewind::PromptEntry;

/// How soon a second Esc must follow the first (both between turns) to open the list.
pub const DOUBLE_ESC: Duration = Duration::from_millis(500);

impl App {
    /// An Esc between turns: the second within [`DOUBLE_ESC`] of the first asks for the
    /// rewind list. Returns whether it did.
    pub(crate) fn idle_esc(&mut self, at: Instant) -> bool {
        match self.outbox.esc_at.take() {
            Some(first) if at.duration_since(first) <= DOUBLE_ESC => {
                self.send(UserOp::RewindList);
                true
            }
            _ => {
                self.outbox.esc_at = Some(at);
                false
            }
        }
    }

    /// The agent's answers about rewinds and forks.
    pub(crate) fn on_rewind_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::RewindPrompts { prompts } => self.show_prompts(prompts),
            AgentEvent::RewindPlanned {
                prompt,
                text,
                diff,
                files,
                conflicts,
            } => {
                let confirm = RewindConfirm::new(prompt, text, diff, files, conflicts);
                self.layers.push(Box::new(confirm));
            }
            AgentEvent::Rewound {
                prompt,
                text,
                files,
            } => {
                let restored = if files.is_empty() {
                    "no file needed restoring".to_string()
                } else {
                    format!("restored {}", files.join(", "))
                };
                let mut note = format!(
                    "Rewound to just before prompt {prompt} ({restored}). The model no longer \
                     sees what was said from there on; your prompt is back in the message box."
                );
                // What was being typed is kept: the prompt takes its place in the box, and
                // the draft goes into the history (↑ brings it back).
                let draft = self.composer.text();
                if !draft.trim().is_empty() && draft != text {
                    self.composer.remember(&draft);
                    note.push_str(" What you were typing is in the history: ↑ brings it back.");
                }
                self.transcript.push_notice(NoticeLevel::Info, &note);
                self.composer.set_text(&text);
            }
            AgentEvent::Forked { id, prompt } => {
                let from = match prompt {
                    Some(n) => format!("the conversation before prompt {n}"),
                    None => "the whole conversation".to_string(),
                };
                let note = format!(
                    "Forked session {id} with {from}; this session goes on unchanged. \
                     `loom --resume {id}` continues the fork."
                );
                self.transcript.push_notice(NoticeLevel::Info, &note);
            }
            _ => {}
        }
    }

    /// The prompts to pick one from, newest selected.
    fn show_prompts(&mut self, prompts: Vec<PromptEntry>) {
        if prompts.is_empty() {
            self.transcript.push_notice(
                NoticeLevel::Info,
                "No prompt to rewind to (the list starts over at /clear and at compaction).",
            );
            return;
        }
        let selected = prompts.len() - 1;
        let items = prompts.into_iter().map(prompt_item).collect();
        let picker = Picker::new(
            "Rewind to just before which prompt? (Enter shows the diff)",
            items,
            selected,
            pick_prompt,
        );
        self.layers.push(Box::new(picker));
    }
}

/// A prompt as a line of the list: "3. fix the parser", noting the changes it undoes.
fn prompt_item(p: PromptEntry) -> PickItem {
    let first = p.text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    PickItem {
        value: format!("{}. {first}", p.n),
        note: match p.changes {
            0 => String::new(),
            1 => "undoes 1 change".into(),
            n => format!("undoes {n} changes"),
        },
    }
}

/// A picked line asks for the plan of a rewind to its prompt.
fn pick_prompt(value: String) -> Action {
    let n = value
        .split_once('.')
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0);
    Action::Send(UserOp::Rewind {
        prompt: n,
        apply: false,
        force: false,
    })
}

/// `/rewind [N]`: the list, or straight to prompt N's plan.
pub(crate) fn rewind_command(app: &mut App, arg: &str) {
    if arg.is_empty() {
        return app.send(UserOp::RewindList);
    }
    match arg.parse::<usize>() {
        Ok(n) if n >= 1 => app.send(UserOp::Rewind {
            prompt: n,
            apply: false,
            force: false,
        }),
        _ => app.transcript.push_notice(
            NoticeLevel::Error,
            "usage: /rewind [N] (N: a prompt's number)",
        ),
    }
}

/// `/fork [N]`: a new session with the whole conversation, or what came before prompt N.
pub(crate) fn fork_command(app: &mut App, arg: &str) {
    if arg.is_empty() {
        return app.send(UserOp::Fork { prompt: None });
    }
    match arg.parse::<usize>() {
        Ok(n) if n >= 1 => app.send(UserOp::Fork { prompt: Some(n) }),
        _ => app.transcript.push_notice(
            NoticeLevel::Error,
            "usage: /fork [N] (N: a prompt's number)",
        ),
    }
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
