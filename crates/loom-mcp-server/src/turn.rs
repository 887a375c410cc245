//! One prompt through a session's agent, from `Submit` to the turn's end: the final
//! answer, the files the turn changed with their line counts, and how it ended. The same
//! ops and events every front end uses (`UserOp`/`AgentEvent`), read for what an MCP
//! caller is given back.

use std::sync::atomic::Ordering;

use loom_core::agent::AgentHandle;
use loom_protocol::events::{AgentEvent, TurnEnd, UserOp};
use schemars::JsonSchema;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

/// A file a turn changed, as the caller is told it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FileChanges {
    /// The file, relative to the session's directory.
    pub path: String,
    /// Lines added, over the turn.
    pub lines_added: usize,
    /// Lines removed, over the turn.
    pub lines_removed: usize,
}

/// What a turn gave.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnReport {
    /// The model's last non-empty message of the turn.
    pub answer: String,
    /// The files written (by the file tools or a command), in the order first written.
    pub changes: Vec<FileChanges>,
    /// How the turn ended (`None`: the agent stopped without ending it).
    pub end: Option<TurnEnd>,
    /// The errors reported during the turn, in order.
    pub errors: Vec<String>,
    /// Whether something of the session could not be saved.
    pub unsaved: bool,
}

impl TurnReport {
    /// Whether the caller should read it as a failure.
    pub fn failed(&self) -> bool {
        self.unsaved || !matches!(self.end, Some(TurnEnd::Done))
    }

    /// The text given back: the answer, and after it what went wrong, if anything did.
    pub fn text(&self) -> String {
        let mut text = self.answer.clone();
        let why = match &self.end {
            Some(TurnEnd::Done) => None,
            Some(TurnEnd::Interrupted) => Some("the turn was interrupted".to_string()),
            Some(TurnEnd::Failed) => Some("the turn failed".to_string()),
            Some(TurnEnd::RoundCap) => {
                Some("the turn stopped at its cap of tool rounds (max_tool_rounds)".to_string())
            }
            Some(TurnEnd::Truncated) => Some("the model's answer was cut off".to_string()),
            None => Some("the session's agent stopped".to_string()),
        };
        let mut notes: Vec<String> = why.into_iter().collect();
        notes.extend(self.errors.iter().map(|e| format!("error: {e}")));
        if self.unsaved {
            notes.push("part of the session could not be saved".into());
        }
        for note in notes {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&format!("[loom: {note}]"));
        }
        text
    }
}

/// Submit `prompt` to `agent` and read its events until the turn ends. When `stop` is
/// cancelled (the caller cancelled the request), the turn is interrupted and still read to
/// its end. The agent keeps running for the next prompt.
pub async fn run(agent: &mut AgentHandle, prompt: String, stop: &CancellationToken) -> TurnReport {
    let mut report = TurnReport {
        answer: String::new(),
        changes: Vec::new(),
        end: None,
        errors: Vec::new(),
        unsaved: false,
    };
    if agent
        .ops
        .send(UserOp::Submit {
            text: prompt,
            images: Vec::new(),
        })
        .is_err()
    {
        return report;
    }
    let mut interrupted = false;
    loop {
        let event = tokio::select! {
            e = agent.events.recv() => e,
            () = stop.cancelled(), if !interrupted => {
                interrupted = true;
                let _ = agent.ops.send(UserOp::Interrupt);
                continue;
            }
        };
        let Some(event) = event else { break };
        if let AgentEvent::TurnComplete { end, .. } = &event {
            report.end = Some(end.clone());
            break;
        }
        take(&mut report, &event);
    }
    report.unsaved = agent.unsaved.load(Ordering::SeqCst);
    report
}

/// Note what `event` adds to the report (a sub-agent's writes and commands count as the
/// turn's).
fn take(report: &mut TurnReport, event: &AgentEvent) {
    match event {
        AgentEvent::AssistantMessage { text } if !text.trim().is_empty() => {
            report.answer.clone_from(text);
        }
        AgentEvent::Error { message } => report.errors.push(message.clone()),
        AgentEvent::ChangeApplied { path, hunks, .. } => {
            let added: usize = hunks.iter().map(|h| h.added()).sum();
            let removed: usize = hunks.iter().map(|h| h.removed()).sum();
            add_change(&mut report.changes, path, added, removed);
        }
        AgentEvent::CommandChanged { files, .. } => {
            for f in files {
                add_change(&mut report.changes, &f.path, f.lines_added, f.lines_removed);
            }
        }
        AgentEvent::SubAgent { event, .. } => {
            if let AgentEvent::ChangeApplied { .. }
            | AgentEvent::CommandChanged { .. }
            | AgentEvent::SubAgent { .. } = event.as_ref()
            {
                take(report, event);
            }
        }
        _ => {}
    }
}

/// Add a write's counts to its file's entry (a new entry for a file not yet written).
fn add_change(changes: &mut Vec<FileChanges>, path: &str, added: usize, removed: usize) {
    match changes.iter_mut().find(|c| c.path == path) {
        Some(c) => {
            c.lines_added += added;
            c.lines_removed += removed;
        }
        None => changes.push(FileChanges {
            path: path.to_string(),
            lines_added: added,
            lines_removed: removed,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loom_base::diff::FileDiff;
    use std::sync::Arc;

    fn applied(path: &str, old: &str, new: &str) -> AgentEvent {
        AgentEvent::ChangeApplied {
            id: "c".into(),
            path: path.into(),
            hunks: Arc::new(FileDiff::compute(old, new).hunks),
            creates: old.is_empty(),
            deleted: false,
            moved_from: None,
        }
    }

    fn empty() -> TurnReport {
        TurnReport {
            answer: String::new(),
            changes: Vec::new(),
            end: Some(TurnEnd::Done),
            errors: Vec::new(),
            unsaved: false,
        }
    }

    /// Two writes to one file add up in one entry; a sub-agent's write counts; the answer
    /// is the last message with text.
    #[test]
    fn writes_add_up_per_file_and_the_last_message_is_the_answer() {
        let mut r = empty();
        let events = [
            AgentEvent::AssistantMessage {
                text: "Let me look.".into(),
            },
            applied("a.txt", "x\ny\n", "x\nY\nz\n"),
            AgentEvent::SubAgent {
                parent_id: "d".into(),
                event: Box::new(applied("b.txt", "", "1\n2\n")),
            },
            applied("a.txt", "x\nY\nz\n", "x\n"),
            AgentEvent::AssistantMessage {
                text: "Done.".into(),
            },
            AgentEvent::AssistantMessage { text: " ".into() },
        ];
        for e in &events {
            take(&mut r, e);
        }
        assert_eq!(r.answer, "Done.");
        assert_eq!(
            r.changes,
            vec![
                FileChanges {
                    path: "a.txt".into(),
                    lines_added: 2,
                    lines_removed: 3
                },
                FileChanges {
                    path: "b.txt".into(),
                    lines_added: 2,
                    lines_removed: 0
                },
            ]
        );
        assert!(!r.failed());
        assert_eq!(r.text(), "Done.");
    }

    /// A command's changed files add to the file tools' counts per file, a sub-agent's (and
    /// its own sub-agent's) too.
    #[test]
    fn command_changes_add_up_with_writes() {
        use loom_protocol::changes::FileLines;
        let lines = |path: &str, a, r| FileLines {
            path: path.into(),
            lines_added: a,
            lines_removed: r,
            binary: false,
        };
        let mut r = empty();
        let events = [
            applied("a.txt", "x\n", "x\ny\n"),
            AgentEvent::CommandChanged {
                id: "b".into(),
                files: vec![lines("a.txt", 1, 1), lines("made.txt", 2, 0)],
            },
            AgentEvent::SubAgent {
                parent_id: "d".into(),
                event: Box::new(AgentEvent::SubAgent {
                    parent_id: "e".into(),
                    event: Box::new(AgentEvent::CommandChanged {
                        id: "c".into(),
                        files: vec![lines("made.txt", 0, 1)],
                    }),
                }),
            },
        ];
        for e in &events {
            take(&mut r, e);
        }
        let got: Vec<(&str, usize, usize)> = r
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.lines_added, c.lines_removed))
            .collect();
        assert_eq!(got, vec![("a.txt", 2, 1), ("made.txt", 2, 1)]);
    }

    /// A turn that did not end done is a failure, and its text says why after the answer.
    #[test]
    fn a_failed_turn_says_why() {
        let mut r = empty();
        r.answer = "Partly.".into();
        r.end = Some(TurnEnd::Failed);
        take(
            &mut r,
            &AgentEvent::Error {
                message: "the server said 500".into(),
            },
        );
        assert!(r.failed());
        assert_eq!(
            r.text(),
            "Partly.\n\n[loom: the turn failed]\n\n[loom: error: the server said 500]"
        );
        let mut gone = empty();
        gone.end = None;
        assert!(gone.failed());
        assert_eq!(gone.text(), "[loom: the session's agent stopped]");
    }
}
