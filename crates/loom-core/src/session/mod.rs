//! Session transcripts: every session is a JSONL file in the data dir, appended as things
//! happen and flushed per record, so killing Loom (even with SIGKILL) loses at most the
//! message being streamed.
//!
//! Records are the conversation's messages (what a resumed session needs) and a log of what
//! happened around them (approvals, tool results, usage, errors). Loading is tolerant: a
//! line that does not parse (a cut last line, a corrupt byte) is skipped and reported, and
//! tool calls left without results by a crash get results saying so, so the model sees a
//! well-formed conversation.

pub mod append;
mod fast;
pub mod rewind;

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::base::dirs::data_dir;
use crate::llm::{Message, Usage};
use crate::protocol::stored::{Earlier, Refusal};
use fast::Log;

/// Where session files live.
pub fn sessions_dir() -> Option<PathBuf> {
    data_dir().map(|d| d.join("sessions"))
}

/// One line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Record {
    /// The first line: what the session is.
    Session {
        /// Session id.
        id: String,
        /// RFC 3339 start time.
        started_at: String,
        /// Workspace root.
        workspace: String,
        /// Model at start.
        model: String,
        /// A title given when the session started (a scheduled run's `cron: …`); without
        /// one, the title is the first prompt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// A conversation message, in order.
    Message {
        /// The message.
        message: Message,
    },
    /// The conversation was cleared (`/clear`), or replaced: by a rewind (after a
    /// [`Record::Rewind`]) or by a compaction's copy.
    Clear {
        /// When a compaction replaced the conversation: how many messages its copy has
        /// (the next ones in the file). What the screen showed before stays shown on a
        /// resume; the copy is what the model continues from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        compacted: Option<usize>,
    },
    /// An approval decision.
    Approval {
        /// Call id.
        id: String,
        /// Approved or denied.
        approved: bool,
        /// `policy`, `user` or `hook`.
        by: String,
        /// Why.
        reason: Option<String>,
    },
    /// A finished tool call (for the log; the model-facing result is a message).
    ToolResult {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Whether it succeeded.
        success: bool,
        /// Files changed.
        files_changed: Vec<String>,
        /// Duration.
        duration_ms: u64,
    },
    /// Tokens used by a request.
    Usage {
        /// The figures.
        usage: Usage,
    },
    /// An error shown to the person.
    Error {
        /// What.
        message: String,
    },
    /// A turn ended.
    TurnEnd {
        /// How (`done`, `failed`, ...).
        end: String,
    },
    /// Deferred tools were loaded (`load_tools`, or a call of one): their schemas are sent
    /// with every later request, also after a resume.
    ToolsLoaded {
        /// The tools loaded.
        names: Vec<String>,
    },
    /// The message before this one is a prompt the person sent; changes journaled from
    /// `seq` on came after it (what a rewind to just before it undoes).
    Prompt {
        /// The undo journal's next sequence number when the prompt was sent.
        seq: u64,
    },
    /// The conversation was rewound to just before prompt `prompt` (what follows is a
    /// `clear` and the conversation kept; the part cut stays above, in the file).
    Rewind {
        /// The prompt's number, from 1.
        prompt: usize,
        /// Its text.
        text: String,
    },
    /// This session was forked from session `from` (just before prompt `prompt`, or
    /// whole).
    Forked {
        /// The original session's id.
        from: String,
        /// The prompt it was forked before.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<usize>,
    },
}

/// Appends records to a session file.
#[derive(Debug)]
pub struct SessionLog {
    file: File,
    path: PathBuf,
    id: String,
}

impl SessionLog {
    /// Create the file for a new session and write its header.
    pub fn create(
        dir: &Path,
        id: &str,
        workspace: &Path,
        model: &str,
    ) -> std::io::Result<SessionLog> {
        SessionLog::create_titled(dir, id, workspace, model, None)
    }

    /// Create the file for a new session with `title` (when given) in its header.
    pub fn create_titled(
        dir: &Path,
        id: &str,
        workspace: &Path,
        model: &str,
        title: Option<&str>,
    ) -> std::io::Result<SessionLog> {
        crate::private::create_dir_all(dir)?;
        let path = dir.join(format!("{id}.jsonl"));
        let file = crate::private::options()
            .create_new(true)
            .append(true)
            .open(&path)?;
        let mut log = SessionLog {
            file,
            path,
            id: id.to_string(),
        };
        let header = log.append(&Record::Session {
            id: id.to_string(),
            started_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            workspace: workspace.display().to_string(),
            model: model.to_string(),
            title: title.map(str::to_string),
        });
        if let Err(e) = header {
            // An empty file would be a session that never was.
            let _ = std::fs::remove_file(&log.path);
            return Err(e);
        }
        Ok(log)
    }

    /// Continue an existing session file. A cut last line is terminated first, so the next
    /// record starts on a line of its own.
    pub fn reopen(dir: &Path, id: &str) -> std::io::Result<SessionLog> {
        use std::os::unix::fs::FileExt;
        let path = dir.join(format!("{id}.jsonl"));
        // Only the last byte matters: a long session is not read again to learn it.
        let len = std::fs::metadata(&path)?.len();
        let mut last = *b"\n";
        if len > 0 {
            File::open(&path)?.read_exact_at(&mut last, len - 1)?;
        }
        let mut file = OpenOptions::new().append(true).open(&path)?;
        if last[0] != b'\n' {
            file.write_all(b"\n")?;
        }
        Ok(SessionLog {
            file,
            path,
            id: id.to_string(),
        })
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write one record as one line, flushed to the OS before returning. When the write
    /// fails (a full disk), the file is cut back to its last complete line, so what was
    /// saved stays loadable, and the error is returned for the person to see.
    pub fn append(&mut self, record: &Record) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        append::append_line(&mut self.file, &line, false)
    }
}

pub use crate::protocol::stored::{LoadedSession, MessageAt};

/// Read the message whose record is at `at` in `file` (a session file, which only grows,
/// so what was written stays where it was).
pub fn read_message(file: &File, at: MessageAt) -> std::io::Result<Message> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; at.len as usize];
    file.read_exact_at(&mut buf, at.offset)?;
    match fast::parse_record(&buf) {
        Ok(Record::Message { message }) => Ok(message),
        Ok(_) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the line there is no longer a message (was the file replaced?)",
        )),
        Err(e) => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
    }
}

/// Read a session file.
pub fn load(path: &Path) -> std::io::Result<LoadedSession> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path)?);
    let mut s = LoadedSession {
        path: Some(path.to_path_buf()),
        read: Some(read_message),
        ..LoadedSession::default()
    };
    let mut offset = 0u64;
    // One buffer for every line (a line's bytes are parsed, never kept).
    let mut buf = Vec::new();
    let mut marks = rewind::Marks::default();
    for i in 0.. {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let at = MessageAt {
            offset,
            len: u32::try_from(line.len()).unwrap_or(u32::MAX),
        };
        offset += line.len() as u64 + 1;
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        match fast::parse_line(line) {
            Ok(fast::Line::Log(log)) => take_log(&mut s, &mut marks, log),
            Ok(fast::Line::Record(record)) => take(&mut s, &mut marks, record, at),
            Err(_) => s.dropped.push(i + 1),
        }
    }
    if s.id.is_empty() {
        s.id = path
            .file_stem()
            .map(|x| x.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    s.repaired = repair_located(&mut s.conversation, &mut s.at);
    s.prompts = marks.resolve(&s.at);
    Ok(s)
}

/// What one record of a session file adds to the session being loaded (`at`: where the
/// record is in the file).
fn take(s: &mut LoadedSession, marks: &mut rewind::Marks, record: Record, at: MessageAt) {
    match record {
        Record::Session {
            id,
            started_at,
            workspace,
            model,
            title,
        } => {
            s.id = id;
            s.started_at = started_at;
            s.workspace = workspace;
            s.model = model;
            s.title = title;
        }
        Record::Message { message } => {
            s.conversation.push(message);
            s.at.push((at.len < u32::MAX).then_some(at));
        }
        Record::Clear { compacted } => {
            match compacted {
                Some(copy) => keep_shown(s, copy),
                None => {
                    s.earlier.clear();
                    s.shown_from = 0;
                }
            }
            s.conversation.clear();
            s.at.clear();
            s.last_request = Usage::default();
            marks.clear();
        }
        Record::ToolsLoaded { names } => {
            for name in names {
                if !s.loaded_tools.contains(&name) {
                    s.loaded_tools.push(name);
                }
            }
        }
        // The log records, when `fast::parse_line` did not read them as such (written in
        // another field order): the same as when it did.
        Record::Prompt { seq } => take_log(s, marks, Log::Prompt { seq }),
        Record::ToolResult {
            id, duration_ms, ..
        } => take_log(
            s,
            marks,
            Log::Ran {
                id: id.into(),
                duration_ms,
            },
        ),
        Record::Approval {
            id,
            approved,
            by,
            reason,
        } => take_log(
            s,
            marks,
            Log::Decided {
                id: id.into(),
                approved,
                by: by.into(),
                reason: reason.map(Into::into),
            },
        ),
        Record::Usage { usage } => take_log(s, marks, Log::Spent(usage)),
        _ => {}
    }
}

/// A compaction replaced the conversation with a copy of `copy` messages: what the screen
/// showed of it stays shown, and the copy (the next `copy` messages) is not.
fn keep_shown(s: &mut LoadedSession, copy: usize) {
    let shown = s
        .conversation
        .drain(s.shown_from.min(s.conversation.len())..);
    let at = s.at.drain(s.shown_from.min(s.at.len())..);
    s.earlier.extend(
        shown
            .zip(at)
            .map(|(message, at)| Earlier::Message { message, at }),
    );
    s.earlier.push(Earlier::Compacted);
    s.shown_from = copy;
}

/// What one log record adds to the session being loaded.
fn take_log(s: &mut LoadedSession, marks: &mut rewind::Marks, log: Log<'_>) {
    match log {
        Log::Ran { id, duration_ms } => {
            s.calls.entry(id.into_owned()).or_default().duration_ms = Some(duration_ms);
        }
        Log::Decided {
            id,
            approved: false,
            by,
            reason,
        } => {
            s.calls.entry(id.into_owned()).or_default().refusal = Some(Refusal {
                by_person: by == "user",
                reason: reason.map(std::borrow::Cow::into_owned),
            });
        }
        // A call that ran was approved: a refusal recorded under its id was another call's
        // (a server that numbers its calls anew in every answer).
        Log::Decided {
            id, approved: true, ..
        } => {
            if let Some(call) = s.calls.get_mut(id.as_ref()) {
                call.refusal = None;
            }
        }
        Log::Spent(usage) => {
            s.usage.add(usage);
            s.last_request = usage;
        }
        Log::Prompt { seq } => marks.note(&s.conversation, &s.at, seq),
        Log::TurnEnd => {}
    }
}

/// Give every unanswered tool call a result explaining what happened; returns how many.
pub fn repair(conversation: &mut Vec<Message>) -> usize {
    let mut at = vec![None; conversation.len()];
    repair_located(conversation, &mut at)
}

/// Whether [`repair`] would change anything. Most files need nothing, and rebuilding the
/// conversation to find that out held a 100,000-message list twice for a moment.
fn needs_repair(conversation: &[Message]) -> bool {
    let mut open: Vec<&str> = Vec::new();
    for m in conversation {
        match m {
            Message::Tool { tool_call_id, .. } => {
                match open.iter().position(|id| id == tool_call_id) {
                    Some(i) => {
                        open.remove(i);
                    }
                    None => return true,
                }
            }
            _ => {
                if !open.is_empty() {
                    return true;
                }
                if let Message::Assistant { tool_calls, .. } = m {
                    open = tool_calls.iter().map(|c| c.id.as_str()).collect();
                }
            }
        }
    }
    !open.is_empty()
}

/// [`repair`], keeping `at` (where each message is in the file) beside the messages.
fn repair_located(conversation: &mut Vec<Message>, at: &mut Vec<Option<MessageAt>>) -> usize {
    at.resize(conversation.len(), None);
    if !needs_repair(conversation) {
        return 0;
    }
    let mut out = Vec::with_capacity(conversation.len());
    let mut out_at = Vec::with_capacity(conversation.len());
    let mut open: Vec<(String, String)> = Vec::new();
    let mut repaired = 0;
    let close = |open: &mut Vec<(String, String)>,
                 out: &mut Vec<Message>,
                 out_at: &mut Vec<Option<MessageAt>>,
                 n: &mut usize| {
        for (id, name) in open.drain(..) {
            *n += 1;
            out_at.push(None);
            out.push(Message::Tool {
                tool_call_id: id,
                name,
                content: serde_json::json!({
                    "success": false,
                    "output": "",
                    "error": "no result was recorded: Loom stopped while this call was pending or running; check the workspace before relying on it",
                })
                .to_string(),
            });
        }
    };
    for (m, place) in conversation.drain(..).zip(at.drain(..)) {
        match &m {
            Message::Tool { tool_call_id, .. } => {
                let known = open.iter().position(|(id, _)| id == tool_call_id);
                // A result that answers no open call is dropped: servers reject it.
                if let Some(i) = known {
                    open.remove(i);
                    out.push(m);
                    out_at.push(place);
                }
            }
            _ => {
                close(&mut open, &mut out, &mut out_at, &mut repaired);
                if let Message::Assistant { tool_calls, .. } = &m {
                    open = tool_calls
                        .iter()
                        .map(|c| (c.id.clone(), c.name.clone()))
                        .collect();
                }
                out.push(m);
                out_at.push(place);
            }
        }
    }
    close(&mut open, &mut out, &mut out_at, &mut repaired);
    *conversation = out;
    *at = out_at;
    repaired
}

/// A line of `loom sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    /// Session id.
    pub id: String,
    /// Start time.
    pub started_at: String,
    /// Workspace root.
    pub workspace: String,
    /// The first thing the person asked.
    pub first_prompt: String,
    /// The session's title: its first prompt, shortened to a line.
    pub title: String,
    /// Conversation messages recorded.
    pub messages: usize,
    /// When the file was last written (seconds since the Unix epoch).
    pub modified_secs: u64,
}

/// Most characters of a session title.
pub const TITLE_CHARS: usize = 60;

/// A session's title from its first prompt: attachments left out, the first non-empty
/// line, cut to [`TITLE_CHARS`] with `…`.
pub fn title(first_prompt: &str) -> String {
    // Attachments (`@file`, `!command` output) follow the typed text as tagged blocks.
    let typed = first_prompt
        .split("\n\n<attachment name=\"")
        .next()
        .unwrap_or("");
    let line = typed
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    // A slash command that sends a prompt of its own (`/init: write an AGENTS.md …`) is
    // titled with the command the person typed.
    if let Some((command, _)) = line.split_once(':')
        && command.starts_with('/')
        && command.len() > 1
        && command[1..]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '-')
    {
        return command.to_string();
    }
    if line.chars().count() > TITLE_CHARS {
        let cut: String = line.chars().take(TITLE_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        line.to_string()
    }
}

/// Remove session `id`: its transcript and its undo journal. Errors name what could not
/// be removed; an unknown id is an error.
pub fn remove(data_dir: &Path, id: &str) -> Result<(), String> {
    let dir = data_dir.join("sessions");
    let path =
        path_of(&dir, id).ok_or_else(|| format!("no session {id:?}; see `loom sessions`"))?;
    std::fs::remove_file(&path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    // Its sub-agents' transcripts.
    let _ = std::fs::remove_dir_all(dir.join(id));
    let changes = data_dir.join("changes").join(id);
    match std::fs::remove_dir_all(&changes) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!(
            "the session is removed, but its undo journal {} is not: {e}",
            changes.display()
        )),
    }
}

/// Recent sessions that reached a model (an answer was recorded), newest first (by file
/// modification time). Sessions that were opened and left, or whose every request failed,
/// are left out: there is nothing in them to go back to.
pub fn list(dir: &Path) -> Vec<SessionSummary> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| {
            let t = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (t, e.path())
        })
        .collect();
    files.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    files
        .into_iter()
        .filter_map(|(modified, path)| {
            let s = load(&path).ok()?;
            let reached_model = s
                .conversation
                .iter()
                .any(|m| matches!(m, Message::Assistant { .. }));
            if !reached_model {
                return None;
            }
            let prompt = s
                .conversation
                .iter()
                .find_map(|m| match m {
                    Message::User { content, .. } => Some(content.as_str()),
                    _ => None,
                })
                .unwrap_or_default();
            let modified_secs = modified
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            Some(SessionSummary {
                first_prompt: prompt.lines().next().unwrap_or("").to_string(),
                title: s
                    .title
                    .as_deref()
                    .map(title)
                    .unwrap_or_else(|| title(prompt)),
                id: s.id,
                started_at: s.started_at,
                workspace: s.workspace,
                messages: s.conversation.len(),
                modified_secs,
            })
        })
        .collect()
}

/// The most recent session recorded for `workspace`.
pub fn latest_for(dir: &Path, workspace: &Path) -> Option<String> {
    let ws = workspace.display().to_string();
    list(dir)
        .into_iter()
        .find(|s| s.workspace == ws)
        .map(|s| s.id)
}

/// The file of session `id` (ids are file stems; no path separators allowed).
pub fn path_of(dir: &Path, id: &str) -> Option<PathBuf> {
    if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
        return None;
    }
    let p = dir.join(format!("{id}.jsonl"));
    p.exists().then_some(p)
}

/// A record's JSON, for tests and tools.
pub fn to_value(r: &Record) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests;
