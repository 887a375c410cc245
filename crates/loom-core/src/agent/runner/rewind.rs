//! The runner's answers to rewind and fork (issue 28): the prompts listed from the session
//! file, a rewind planned and done through the undo journal (the files, including what
//! commands changed) and the conversation cut, and a new session forked from this one.

use super::*;
use crate::changelog::Plan;
use crate::protocol::rewind::PromptEntry;
use crate::session::rewind::{self as marks, PromptMark};

/// A prompt found for a rewind: where the conversation is cut, and its text.
struct Found {
    mark: PromptMark,
    text: String,
}

impl Runner {
    /// The conversation's prompts as the session file marks them, checked against the
    /// conversation in memory (they are the same unless the file could not be written).
    fn prompt_marks(&self) -> Result<Vec<PromptMark>, String> {
        let path = self.persistence.session_path().ok_or(
            "rewind needs the session file, and this session is not recorded (no data \
             directory)",
        )?;
        let loaded = crate::session::load(&path)
            .map_err(|e| format!("cannot read the session file {}: {e}", path.display()))?;
        let conversation = self.machine.conversation();
        if loaded.conversation.len() != conversation.len() {
            return Err(
                "the session file does not hold the whole conversation (was it not saved?), \
                 so rewind cannot tell where its prompts are"
                    .into(),
            );
        }
        Ok(loaded.prompts)
    }

    /// `/rewind`: list the prompts, with how many changes a rewind to each would undo.
    pub(super) fn rewind_list(&mut self) {
        let listed = self.prompt_marks().map(|list| {
            let journal = self.persistence.changelog();
            let journal = journal.as_ref().and_then(|c| c.lock().ok());
            list.iter()
                .enumerate()
                .map(|(i, m)| PromptEntry {
                    n: i + 1,
                    text: marks::typed_text(&self.machine.conversation()[m.index]),
                    changes: journal.as_ref().map_or(0, |j| j.live_since(m.seq)),
                })
                .collect::<Vec<_>>()
        });
        match listed {
            Ok(prompts) => self.emit(AgentEvent::RewindPrompts { prompts }),
            Err(message) => self.emit(AgentEvent::Error { message }),
        }
    }

    /// Plan (and with `apply`, do) a rewind to just before prompt `prompt`.
    pub(super) fn rewind(&mut self, prompt: usize, apply: bool, force: bool) {
        if let Err(message) = self.try_rewind(prompt, apply, force) {
            self.emit(AgentEvent::Error { message });
        }
    }

    fn try_rewind(&mut self, prompt: usize, apply: bool, force: bool) -> Result<(), String> {
        if self.machine.phase() != Phase::Idle {
            return Err(
                "rewind works between turns; press Esc to stop the current turn first".into(),
            );
        }
        let list = self.prompt_marks()?;
        let index = marks::cut_at(&list, Some(prompt), 0)?;
        let found = Found {
            mark: list[prompt - 1],
            text: marks::typed_text(&self.machine.conversation()[index]),
        };
        let plan = self.rewind_plan(found.mark.seq)?;
        if !apply {
            let (diff, files, conflicts) = match &plan {
                Some(p) => (p.diff(), p.files(), p.conflicts.clone()),
                None => Default::default(),
            };
            self.emit(AgentEvent::RewindPlanned {
                prompt,
                text: found.text,
                diff,
                files,
                conflicts,
            });
            return Ok(());
        }
        let files = match &plan {
            Some(plan) => self.apply_rewind(plan, force)?,
            None => Vec::new(),
        };
        self.cut_conversation(&list, prompt, &found)?;
        self.emit(AgentEvent::Rewound {
            prompt,
            text: found.text,
            files,
        });
        Ok(())
    }

    /// The undo of every change from `seq` on (`None`: there is none, or no journal).
    fn rewind_plan(&self, seq: u64) -> Result<Option<Plan>, String> {
        let Some(changelog) = self.persistence.changelog() else {
            return Ok(None);
        };
        let log = changelog
            .lock()
            .map_err(|_| "the undo journal is unusable")?;
        if log.live_since(seq) == 0 {
            return Ok(None);
        }
        log.plan_undo(Scope::Since(seq)).map(Some)
    }

    fn apply_rewind(&self, plan: &Plan, force: bool) -> Result<Vec<String>, String> {
        let changelog = self
            .persistence
            .changelog()
            .ok_or("changes cannot be undone in this session (no data directory)")?;
        let mut log = changelog
            .lock()
            .map_err(|_| "the undo journal is unusable")?;
        log.apply(plan, force)
    }

    /// Cut the conversation just before the prompt and save the rewound state.
    fn cut_conversation(
        &mut self,
        list: &[PromptMark],
        prompt: usize,
        found: &Found,
    ) -> Result<(), String> {
        if !self.machine.cut(found.mark.index) {
            return Err("the conversation could not be cut (a turn started)".into());
        }
        let kept: Vec<PromptMark> = list[..prompt - 1].to_vec();
        let conversation = self.machine.conversation().to_vec();
        if let Err(e) =
            self.persistence
                .rewind_transcript(&conversation, &kept, prompt, &found.text)
        {
            self.persistence.save_failed(format!(
                "the rewind could not be saved in the session file ({e}); a resume would \
                 see the conversation before it"
            ));
        }
        Ok(())
    }

    /// `/fork [N]`: a new session from this one's file, which is left as it is.
    pub(super) fn fork(&mut self, prompt: Option<usize>) {
        let forked = self.persistence.session_path().ok_or_else(|| {
            "fork needs the session file, and this session is not recorded (no data \
             directory)"
                .to_string()
        });
        let forked = forked.and_then(|path| {
            let source = crate::session::load(&path)
                .map_err(|e| format!("cannot read the session file {}: {e}", path.display()))?;
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            marks::fork(dir, &source, prompt)
        });
        match forked {
            Ok((id, _)) => self.emit(AgentEvent::Forked { id, prompt }),
            Err(message) => self.emit(AgentEvent::Error { message }),
        }
    }
}
