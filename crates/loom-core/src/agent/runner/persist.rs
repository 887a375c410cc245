//! The runner's persistence: the session's transcript (the conversation and what happened
//! around it), the turn number changes are journalled under, and telling the person once
//! per streak when something could not be saved.
//!
//! It owns the transcript and the journal handle; the runner hands it the conversation and
//! the events it sends. It never decides anything about the turn.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::PersistenceParts;
use crate::agent::events::AgentEvent;
use crate::changelog::Changelog;
use crate::llm::Message;
use crate::session::{Record, SessionLog};

/// The session's transcript and undo journal, and whether writing them works.
pub(super) struct Persistence {
    /// Where the transcript is appended (none: not recorded).
    session: Option<SessionLog>,
    /// How many messages of the conversation the transcript holds.
    logged: usize,
    /// The undo journal (none: changes cannot be undone).
    changelog: Option<Arc<Mutex<Changelog>>>,
    /// The turn changes are recorded under.
    turn: u64,
    /// A sub-agent's changes are its parent's turn's: the turn never advances.
    fixed_turn: bool,
    /// Whether the last session or journal write failed (so a streak is reported once).
    save_failing: bool,
    /// Whether any write failed this session (shared with the agent's handle).
    unsaved: Arc<AtomicBool>,
    /// Where a failed save is reported: straight to the front ends, not through the
    /// transcript that just failed.
    alerts: mpsc::UnboundedSender<AgentEvent>,
    /// The size of a compaction's copy not yet recorded: the next clear written says so.
    compacted: Option<usize>,
}

impl Persistence {
    /// The transcript of `parts` (holding the first `logged` messages already) and its
    /// journal; the turn is the parent's or follows the journal's last.
    pub(super) fn new(
        parts: PersistenceParts,
        logged: usize,
        unsaved: Arc<AtomicBool>,
        alerts: mpsc::UnboundedSender<AgentEvent>,
    ) -> Persistence {
        let PersistenceParts {
            session,
            changelog,
            save_errors: _,
            parent_turn,
        } = parts;
        let turn = match parent_turn {
            Some(turn) => turn,
            None => changelog
                .as_ref()
                .and_then(|c| c.lock().ok().map(|c| c.last_turn()))
                .unwrap_or(0),
        };
        Persistence {
            session,
            logged,
            changelog,
            turn,
            fixed_turn: parent_turn.is_some(),
            save_failing: false,
            unsaved,
            alerts,
            compacted: None,
        }
    }

    /// The undo journal, if changes can be undone.
    pub(super) fn transcript_path(&self) -> Option<std::path::PathBuf> {
        self.session.as_ref().map(|s| s.path().to_path_buf())
    }

    /// The undo journal, if there is one.
    pub(super) fn changelog(&self) -> Option<Arc<Mutex<Changelog>>> {
        self.changelog.clone()
    }

    /// The turn changes are recorded under now.
    pub(super) fn turn(&self) -> u64 {
        self.turn
    }

    /// The conversation was replaced by a compaction's copy of `copy` messages: the
    /// transcript starts over from it (the full history stays earlier in the file, and a
    /// resumed screen still shows it).
    pub(super) fn restart_transcript(&mut self, copy: usize) {
        self.logged = usize::MAX;
        self.compacted = Some(copy);
    }

    /// Append conversation messages added since the last sync to the transcript. A message
    /// that cannot be written stays pending, with those after it, and is tried again at the
    /// next sync: the saved conversation is always a whole prefix of the real one (a gap
    /// would resume as a different conversation) and is completed once there is room.
    pub(super) fn sync_transcript(&mut self, conversation: &[Message]) {
        let Some(log) = &mut self.session else {
            return;
        };
        let mut result = Ok(());
        if conversation.len() < self.logged {
            result = log.append(&Record::Clear {
                compacted: self.compacted,
            });
            if result.is_ok() {
                self.logged = 0;
                self.compacted = None;
            }
        }
        if result.is_ok() && self.logged == conversation.len() {
            return;
        }
        for message in &conversation[self.logged.min(conversation.len())..] {
            if result.is_err() {
                break;
            }
            result = log.append(&Record::Message {
                message: message.clone(),
            });
            if result.is_ok() {
                self.logged += 1;
            }
        }
        match result {
            Ok(()) => self.save_worked(conversation.len()),
            Err(e) => self.save_failed(format!(
                "the session could not be saved ({e}); what was saved before still loads, \
                 and the rest of the conversation is saved once there is room again"
            )),
        }
    }

    /// Note an event on its way to the front ends: a new turn advances the turn number,
    /// and approvals, results, usage, errors and turn ends go into the transcript.
    /// `conversation_len` is the conversation's length now.
    pub(super) fn record(&mut self, event: &AgentEvent, conversation_len: usize) {
        if let AgentEvent::UserMessage { queued: false, .. } = event
            && !self.fixed_turn
        {
            self.turn += 1;
            self.mark_prompt(conversation_len);
        }
        let Some(log) = &mut self.session else {
            return;
        };
        let Some(record) = transcript_record(event) else {
            return;
        };
        match log.append(&record) {
            Ok(()) => self.save_worked(conversation_len),
            Err(e) => self.save_failed(format!(
                "the session could not be saved ({e}); what was saved before still loads"
            )),
        }
    }

    /// A prompt was just sent (the conversation's last message, saved by the sync before
    /// its event): mark it, with the journal's next sequence number, so a rewind can find
    /// it and the changes made after it. Unmarked when the message is not saved yet.
    fn mark_prompt(&mut self, conversation_len: usize) {
        if self.logged != conversation_len {
            return;
        }
        let seq = self
            .changelog
            .as_ref()
            .and_then(|c| c.lock().ok().map(|c| c.next_seq()))
            .unwrap_or(1);
        let Some(log) = &mut self.session else {
            return;
        };
        if let Err(e) = log.append(&Record::Prompt { seq }) {
            self.save_failed(format!(
                "the session could not be saved ({e}); what was saved before still loads"
            ));
        }
    }

    /// The session file, if the session is recorded.
    pub(super) fn session_path(&self) -> Option<std::path::PathBuf> {
        self.session.as_ref().map(|s| s.path().to_path_buf())
    }

    /// After a rewind to just before prompt `prompt` (`text`): the transcript records the
    /// rewind, then starts over with the conversation kept (`conversation`, whose prompts
    /// are `marks`), so a resume sees the rewound state and the part cut stays above.
    pub(super) fn rewind_transcript(
        &mut self,
        conversation: &[Message],
        marks: &[crate::session::rewind::PromptMark],
        prompt: usize,
        text: &str,
    ) -> std::io::Result<()> {
        let Some(log) = &mut self.session else {
            return Ok(());
        };
        log.append(&Record::Rewind {
            prompt,
            text: text.to_string(),
        })?;
        log.append(&Record::Clear { compacted: None })?;
        self.logged = 0;
        for (i, message) in conversation.iter().enumerate() {
            log.append(&Record::Message {
                message: message.clone(),
            })?;
            self.logged += 1;
            if let Some(mark) = marks.iter().find(|m| m.index == i) {
                log.append(&Record::Prompt { seq: mark.seq })?;
            }
        }
        Ok(())
    }

    /// Record deferred tools loaded since the last request, so a resumed session sends
    /// them too.
    pub(super) fn tools_loaded(&mut self, names: Vec<String>) {
        let Some(log) = &mut self.session else {
            return;
        };
        if let Err(e) = log.append(&Record::ToolsLoaded { names }) {
            self.save_failed(format!(
                "the session could not be saved ({e}): a resumed session will not have the \
                 tools loaded now"
            ));
        }
    }

    /// A write to the transcript worked: once the conversation is saved in full, a streak
    /// of failures is over (and the next failure is reported again).
    fn save_worked(&mut self, conversation_len: usize) {
        if self.logged == conversation_len {
            self.save_failing = false;
        }
    }

    /// Tell the person, once per streak of failures, that something could not be saved
    /// (a full disk): a silent gap in the transcript or the undo journal would lose work
    /// they think is safe. The event goes straight to the front ends, not through the
    /// transcript that just failed.
    pub(super) fn save_failed(&mut self, message: String) {
        self.unsaved.store(true, Ordering::SeqCst);
        if !self.save_failing {
            self.save_failing = true;
            let _ = self.alerts.send(AgentEvent::Error { message });
        }
    }
}

/// The transcript's record of an event sent to the front ends (`None`: not recorded).
fn transcript_record(event: &AgentEvent) -> Option<Record> {
    match event {
        AgentEvent::Approval {
            id,
            approved,
            by,
            reason,
        } => Some(Record::Approval {
            id: id.clone(),
            approved: *approved,
            by: format!("{by:?}").to_lowercase(),
            reason: reason.clone(),
        }),
        AgentEvent::ToolResult {
            id,
            name,
            result,
            duration_ms,
        } => Some(Record::ToolResult {
            id: id.clone(),
            name: name.clone(),
            success: result.success,
            files_changed: result.files_changed.clone(),
            duration_ms: *duration_ms,
        }),
        AgentEvent::Usage { usage } => Some(Record::Usage { usage: *usage }),
        AgentEvent::Error { message } => Some(Record::Error {
            message: message.clone(),
        }),
        AgentEvent::TurnComplete { end, .. } => Some(Record::TurnEnd {
            end: format!("{end:?}").to_lowercase(),
        }),
        _ => None,
    }
}
