//! A session read back from its file, as plain data a front end can show: the conversation,
//! where each message is in the file (so a screen can read a message back when it comes
//! into view instead of keeping it) and what was lost. `loom-core`'s session store reads
//! and writes the file; it re-exports these types where they were.

use std::fs::File;
use std::path::PathBuf;

use crate::message::Message;
use crate::usage::Usage;

/// Reads the message whose record is at a [`MessageAt`] in a session file (opened by the
/// caller). Given by the store that read the file, which knows its record format.
pub type ReadMessage = fn(&File, MessageAt) -> std::io::Result<Message>;

/// A session read back from disk.
#[derive(Debug, Clone, Default)]
pub struct LoadedSession {
    /// Session id.
    pub id: String,
    /// Start time.
    pub started_at: String,
    /// Workspace root.
    pub workspace: String,
    /// Model at start.
    pub model: String,
    /// The title given when it started, if any.
    pub title: Option<String>,
    /// The conversation, repaired so every tool call has a result.
    pub conversation: Vec<Message>,
    /// Where each message of `conversation` is in the file (`None` for the results
    /// `repair` made up), so a screen can read it back instead of keeping it.
    pub at: Vec<Option<MessageAt>>,
    /// The file it was read from.
    pub path: Option<PathBuf>,
    /// Line numbers (1-based) that could not be read.
    pub dropped: Vec<usize>,
    /// Tool calls that had no result (the session stopped while they ran).
    pub repaired: usize,
    /// The deferred tools the session loaded, in the order loaded.
    pub loaded_tools: Vec<String>,
    /// How a message is read back from `path` at its place in `at` (the store that read
    /// the file knows its format; a screen showing the session reads through this).
    pub read: Option<ReadMessage>,
    /// The prompts of `conversation` a rewind can go back to, oldest first.
    pub prompts: Vec<PromptMark>,
    /// What the file's log says about each call, by call id: a resumed screen shows its
    /// row as it was shown live (how long it ran, whether it was refused). Hashed with Fx:
    /// a long session has tens of thousands of calls, and SipHash was a tenth of loading.
    pub calls: rustc_hash::FxHashMap<String, CallLog>,
    /// The tokens of every request the session made, summed.
    pub usage: Usage,
    /// The tokens of the last request since the conversation was last cleared or rewound
    /// (how full the context was).
    pub last_request: Usage,
    /// What the screen showed before the conversation was last compacted, oldest first:
    /// the messages as they were (the model continues from a shorter copy of them) and
    /// where each compaction came. Empty when the session was never compacted (or was
    /// cleared or rewound since).
    pub earlier: Vec<Earlier>,
    /// How many messages at the start of `conversation` are the compacted copy the model
    /// reads instead of `earlier` (a summary, trimmed results): a screen shows
    /// `earlier`, then `conversation` from here on.
    pub shown_from: usize,
}

/// What a resumed screen shows before the conversation's compacted copy.
#[derive(Debug, Clone, PartialEq)]
pub enum Earlier {
    /// A message as it was shown live, and where it is in the file.
    Message {
        /// The message.
        message: Message,
        /// Its place in the file (a message `repair` made up has none).
        at: Option<MessageAt>,
    },
    /// The conversation above was compacted here.
    Compacted,
}

/// What a session file's log (beside the conversation) says about one tool call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallLog {
    /// How long it ran, when it ran to a result.
    pub duration_ms: Option<u64>,
    /// How it was refused, when it was.
    pub refusal: Option<Refusal>,
}

/// A refused call: by whom, and why when they said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// A person refused it (not the policy).
    pub by_person: bool,
    /// The reason given.
    pub reason: Option<String>,
}

/// A prompt of a loaded conversation: where a rewind or fork can go back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptMark {
    /// Its index in the conversation.
    pub index: usize,
    /// The undo journal's next sequence number when it was sent.
    pub seq: u64,
}

impl LoadedSession {
    /// What was lost, in words, or `None` when the file was whole.
    pub fn damage_report(&self) -> Option<String> {
        if self.dropped.is_empty() && self.repaired == 0 {
            return None;
        }
        let mut parts = Vec::new();
        if !self.dropped.is_empty() {
            parts.push(format!(
                "skipped {} unreadable line(s) ({}); everything else was loaded",
                self.dropped.len(),
                self.dropped
                    .iter()
                    .map(|n| format!("line {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if self.repaired > 0 {
            parts.push(format!(
                "{} tool call(s) had no result because the session stopped while they ran",
                self.repaired
            ));
        }
        Some(parts.join("; "))
    }
}

/// Where one message's record is in a session file: its line, without the newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageAt {
    /// Byte offset of the line.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u32,
}

/// A session file opened to read messages back, with the reader of its format.
#[derive(Debug)]
pub struct SessionFile {
    file: File,
    read: ReadMessage,
}

impl SessionFile {
    /// Open the session file at `path`, to be read with `read`.
    pub fn open(path: &std::path::Path, read: ReadMessage) -> std::io::Result<SessionFile> {
        Ok(SessionFile {
            file: File::open(path)?,
            read,
        })
    }

    /// The message whose record is at `at`.
    pub fn read(&self, at: MessageAt) -> std::io::Result<Message> {
        (self.read)(&self.file, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that takes the record's line as the user's text.
    fn as_text(file: &File, at: MessageAt) -> std::io::Result<Message> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; at.len as usize];
        file.read_exact_at(&mut buf, at.offset)?;
        Ok(Message::user(String::from_utf8_lossy(&buf)))
    }

    #[test]
    fn a_session_file_reads_the_message_at_its_place_with_the_reader_given() {
        let dir = std::env::temp_dir().join(format!("loom-stored-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        std::fs::write(&path, "first\nsecond\n").unwrap();
        let file = SessionFile::open(&path, as_text).unwrap();
        let second = MessageAt { offset: 6, len: 6 };
        assert_eq!(file.read(second).unwrap(), Message::user("second"));
        let past_the_end = MessageAt { offset: 20, len: 4 };
        assert!(file.read(past_the_end).is_err());
        assert!(SessionFile::open(&dir.join("none.jsonl"), as_text).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
