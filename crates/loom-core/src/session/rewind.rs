//! Rewind and fork (issue 28): which messages of a session are the person's prompts, and
//! a new session started from one of them.
//!
//! A prompt is marked in the transcript by a [`Record::Prompt`] line right after its
//! message, holding the undo journal's next sequence number when it was sent: the changes
//! from there on are what a rewind to just before it undoes. Notes Loom adds for the
//! model, hook output and compaction summaries are user messages too, but never marked.
//! A compaction rewrites the conversation without marks, so the prompts it summarised are
//! no longer listed (the file keeps them above).

use std::path::{Path, PathBuf};

use super::{LoadedSession, MessageAt, Record, SessionLog};
use crate::llm::Message;

pub use crate::protocol::stored::PromptMark;

/// The marks read so far while loading, by where their message is in the file (the
/// conversation's indices move when a crash's unanswered calls are repaired).
#[derive(Debug, Default)]
pub(super) struct Marks(Vec<(MessageAt, u64)>);

impl Marks {
    /// A `Prompt` record: it marks the message loaded last, when that is the person's.
    pub(super) fn note(&mut self, conversation: &[Message], at: &[Option<MessageAt>], seq: u64) {
        if let (Some(Message::User { .. }), Some(Some(place))) = (conversation.last(), at.last())
            && self.0.last().is_none_or(|(p, _)| p != place)
        {
            self.0.push((*place, seq));
        }
    }

    /// The conversation was cleared (or rewritten): its marks go with it.
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }

    /// The marks as indices of the final (repaired) conversation, whose messages are at
    /// `at` in the file.
    pub(super) fn resolve(self, at: &[Option<MessageAt>]) -> Vec<PromptMark> {
        let index: std::collections::HashMap<u64, usize> = at
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.map(|a| (a.offset, i)))
            .collect();
        self.0
            .into_iter()
            .filter_map(|(place, seq)| {
                index
                    .get(&place.offset)
                    .map(|&index| PromptMark { index, seq })
            })
            .collect()
    }
}

/// What the person typed in a prompt: the text before the attachments Loom added.
pub fn typed_text(message: &Message) -> String {
    match message {
        Message::User { content, .. } => content
            .split("\n\n<attachment name=\"")
            .next()
            .unwrap_or("")
            .to_string(),
        _ => String::new(),
    }
}

/// Where a conversation is cut for prompt `prompt` (from 1) of `marks`: the index of its
/// message (`None`: the whole conversation). Out of range is an error naming the range.
pub fn cut_at(marks: &[PromptMark], prompt: Option<usize>, len: usize) -> Result<usize, String> {
    match prompt {
        None => Ok(len),
        Some(n) if n >= 1 && n <= marks.len() => Ok(marks[n - 1].index),
        Some(n) if marks.is_empty() => Err(format!(
            "there is no prompt {n}: this conversation has no prompts to go back to (a \
             compaction or /clear starts the list over)"
        )),
        Some(n) => Err(format!(
            "there is no prompt {n}: choose one from 1 to {} (see /rewind)",
            marks.len()
        )),
    }
}

/// Start a new session in `dir` from `source` (a loaded session): its conversation up to
/// just before prompt `prompt` (`None`: all of it), with its prompts still marked. The
/// source's file is only read. Returns the new session's id and file; on a failure part
/// way, the new file is removed, so no half session is left.
pub fn fork(
    dir: &Path,
    source: &LoadedSession,
    prompt: Option<usize>,
) -> Result<(String, PathBuf), String> {
    let cut = cut_at(&source.prompts, prompt, source.conversation.len())?;
    let id = crate::base::id::new_session_id();
    let mut log = SessionLog::create_titled(
        dir,
        &id,
        Path::new(&source.workspace),
        &source.model,
        source.title.as_deref(),
    )
    .map_err(|e| format!("cannot create the forked session in {}: {e}", dir.display()))?;
    let path = log.path().to_path_buf();
    let written = write_fork(&mut log, source, prompt, cut);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&path);
        return Err(format!("cannot write the forked session: {e}"));
    }
    Ok((id, path))
}

/// The records of a fork after its header. Its prompts' marks say "every change of the
/// fork came after": the fork's undo journal starts empty, at sequence number 1.
fn write_fork(
    log: &mut SessionLog,
    source: &LoadedSession,
    prompt: Option<usize>,
    cut: usize,
) -> std::io::Result<()> {
    log.append(&Record::Forked {
        from: source.id.clone(),
        prompt,
    })?;
    if !source.loaded_tools.is_empty() {
        log.append(&Record::ToolsLoaded {
            names: source.loaded_tools.clone(),
        })?;
    }
    let mut marks = source.prompts.iter().peekable();
    for (i, message) in source.conversation[..cut].iter().enumerate() {
        log.append(&Record::Message {
            message: message.clone(),
        })?;
        if marks.next_if(|m| m.index == i).is_some() {
            log.append(&Record::Prompt { seq: 1 })?;
        }
    }
    Ok(())
}

/// Split `spec` of `loom --fork ID[@N]` into the session id and the prompt number.
pub fn parse_fork_spec(spec: &str) -> Result<(String, Option<usize>), String> {
    let (id, n) = match spec.rsplit_once('@') {
        Some((id, n)) => {
            let n = n.parse::<usize>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                format!("--fork {spec:?}: after @ comes a prompt number from 1 (see /rewind)")
            })?;
            (id, Some(n))
        }
        None => (spec, None),
    };
    if id.is_empty() {
        return Err(format!(
            "--fork {spec:?}: name a session id (see `loom sessions`)"
        ));
    }
    Ok((id.to_string(), n))
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
