//! Reading a session line without serde's detour for tagged enums. `Record` and `Message`
//! are tagged by a field inside them (`"t"`, `"role"`), which serde reads by first copying
//! the whole line into a tree of its own and then reading that tree again: a resume of
//! 100,000 messages spent about a fifth of its CPU time there. Message lines are read
//! straight into their fields instead, and so are, when a session is loaded, the log lines
//! a long session has about as many of (each call's result and approval, each request's
//! usage, each prompt's mark, each turn's end), borrowed as [`Log`]; anything else, or a
//! line the direct reading does not accept, goes the ordinary way, so the outcome is the
//! same.

use std::borrow::Cow;

use serde::Deserialize;

use super::Record;
use crate::llm::image::Image;
use crate::llm::{Message, ToolCall, Usage};

/// The record's tag, borrowed from the line; the other fields are skipped.
#[derive(Deserialize)]
struct Tag<'a> {
    #[serde(borrow)]
    t: Cow<'a, str>,
}

#[derive(Deserialize)]
struct MessageLine {
    message: Flat,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// Every field any message has; which ones must be there depends on the role.
#[derive(Deserialize)]
struct Flat {
    role: Role,
    content: Option<String>,
    images: Option<Vec<Image>>,
    tool_calls: Option<Vec<ToolCall>>,
    tool_call_id: Option<String>,
    name: Option<String>,
}

impl Flat {
    fn into_message(self) -> Option<Message> {
        Some(match self.role {
            Role::System => Message::System {
                content: self.content?,
            },
            Role::User => Message::User {
                content: self.content?,
                images: self.images.unwrap_or_default(),
            },
            Role::Assistant => Message::Assistant {
                content: self.content?,
                tool_calls: self.tool_calls.unwrap_or_default(),
            },
            Role::Tool => Message::Tool {
                tool_call_id: self.tool_call_id?,
                name: self.name?,
                content: self.content?,
            },
        })
    }
}

/// The log records read straight into their fields (a long session has one of these for
/// about every message: each call's result and each request's usage). Their text is
/// borrowed from the line where it has no escapes: loading a session needs little of it.
/// The fields loading does not use are read all the same, so that a line is accepted
/// exactly where the full reading of a `Record` accepts it.
#[derive(Deserialize)]
#[expect(
    dead_code,
    reason = "name, success and files_changed are read only to check the line"
)]
struct ToolResultLine<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    success: bool,
    #[serde(borrow)]
    files_changed: Vec<Cow<'a, str>>,
    duration_ms: u64,
}

#[derive(Deserialize)]
struct ApprovalLine<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    approved: bool,
    #[serde(borrow)]
    by: Cow<'a, str>,
    #[serde(borrow)]
    reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct UsageLine {
    usage: Usage,
}

#[derive(Deserialize)]
#[expect(dead_code, reason = "end is read only to check the line")]
struct TurnEndLine<'a> {
    #[serde(borrow)]
    end: Cow<'a, str>,
}

#[derive(Deserialize)]
struct PromptLine {
    seq: u64,
}

/// A log line as loading a session reads it: what it needs, borrowed from the line.
#[derive(Debug, PartialEq)]
pub enum Log<'a> {
    /// A call's result was in (`tool_result`).
    Ran {
        /// The call.
        id: Cow<'a, str>,
        /// How long it ran.
        duration_ms: u64,
    },
    /// A call was approved or refused (`approval`).
    Decided {
        /// The call.
        id: Cow<'a, str>,
        /// Approved.
        approved: bool,
        /// Who decided (`policy`, `user`, `hook`).
        by: Cow<'a, str>,
        /// Why.
        reason: Option<Cow<'a, str>>,
    },
    /// A request's tokens (`usage`).
    Spent(Usage),
    /// The message before was a prompt (`prompt`).
    Prompt {
        /// The undo journal's sequence number then.
        seq: u64,
    },
    /// A turn ended (`turn_end`): nothing a loaded session keeps.
    TurnEnd,
}

/// A line of a session file as loading reads it: a log record (borrowed), or a record.
pub enum Line<'a> {
    /// A log record.
    Log(Log<'a>),
    /// Any other record.
    Record(Record),
}

/// One line of a session file as loading reads it, its tag looked at once: one of the log
/// records a long session has many of, read without copying their text, or else what
/// [`parse_record`] reads. It reads a log record exactly where [`parse_record`] would.
pub fn parse_line(line: &[u8]) -> serde_json::Result<Line<'_>> {
    if let Some(tag) = tag(line) {
        if let Some(log) = log_of(&tag, line) {
            return Ok(Line::Log(log));
        }
        if let Some(record) = direct(&tag, line) {
            return Ok(Line::Record(record));
        }
    }
    serde_json::from_slice::<Record>(line).map(Line::Record)
}

/// The log record of a line whose tag is `tag`; `None` for another tag, or a line this
/// reading does not accept (which [`parse_record`] then reads, or reports).
fn log_of<'a>(tag: &str, line: &'a [u8]) -> Option<Log<'a>> {
    Some(match tag {
        "tool_result" => {
            let r: ToolResultLine = serde_json::from_slice(line).ok()?;
            Log::Ran {
                id: r.id,
                duration_ms: r.duration_ms,
            }
        }
        "approval" => {
            let a: ApprovalLine = serde_json::from_slice(line).ok()?;
            Log::Decided {
                id: a.id,
                approved: a.approved,
                by: a.by,
                reason: a.reason,
            }
        }
        "usage" => Log::Spent(serde_json::from_slice::<UsageLine>(line).ok()?.usage),
        "prompt" => Log::Prompt {
            seq: serde_json::from_slice::<PromptLine>(line).ok()?.seq,
        },
        "turn_end" => {
            serde_json::from_slice::<TurnEndLine>(line).ok()?;
            Log::TurnEnd
        }
        _ => return None,
    })
}

/// The tag of a line: read off its start when Loom wrote it (the tag first, no escapes),
/// else looked up.
fn tag(line: &[u8]) -> Option<Cow<'_, str>> {
    let quick = line
        .strip_prefix(br#"{"t":""#)
        .and_then(|rest| rest.split(|&b| b == b'"').next())
        .filter(|t| !t.contains(&b'\\'))
        .and_then(|t| std::str::from_utf8(t).ok());
    match quick {
        Some(t) => Some(Cow::Borrowed(t)),
        None => serde_json::from_slice::<Tag>(line).ok().map(|tag| tag.t),
    }
}

/// The record of a message line (`tag` is the line's), read straight into its fields;
/// `None` for another tag, or a line this reading does not accept.
fn direct(tag: &str, line: &[u8]) -> Option<Record> {
    if tag != "message" {
        return None;
    }
    let message = serde_json::from_slice::<MessageLine>(line).ok()?.message;
    Some(Record::Message {
        message: message.into_message()?,
    })
}

/// One line of a session file, as `serde_json::from_slice::<Record>` reads it.
pub fn parse_record(line: &[u8]) -> serde_json::Result<Record> {
    match tag(line).and_then(|t| direct(&t, line)) {
        Some(record) => Ok(record),
        None => serde_json::from_slice::<Record>(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invariant: for every line, the direct reading and serde's agree (both the
    /// record, or both an error).
    #[test]
    fn the_direct_reading_agrees_with_serde_on_every_kind_of_line() {
        let lines = [
            r#"{"t":"message","message":{"role":"user","content":"hi"}}"#,
            r#"{"message":{"content":"hi","role":"user"},"t":"message"}"#,
            r#"{"t":"message","message":{"role":"user","content":"a\"b\n","images":[{"name":"x.png","mime":"image/png","data":"AAAA"}]}}"#,
            r#"{"t":"message","message":{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{\"command\":\"ls\"}"}]}}"#,
            r#"{"t":"message","message":{"role":"assistant","content":"ok"}}"#,
            r#"{"t":"message","message":{"role":"tool","tool_call_id":"c1","name":"bash","content":"{\"success\":true}"}}"#,
            r#"{"t":"message","message":{"role":"system","content":"be brief"}}"#,
            r#"{"t":"message","message":{"role":"user","content":"x","extra":[1,2]},"more":true}"#,
            r#"{"t":"message","message":{"role":"user","content":"x","tool_calls":7}}"#,
            r#"{"t":"message","message":{"role":"tool","content":"no id"}}"#,
            r#"{"t":"message","message":{"role":"robot","content":"x"}}"#,
            r#"{"t":"message","message":{"role":"user"}}"#,
            r#"{"t":"message"}"#,
            r#"{"t":"message","message":{"role":"user","content":"cut"#,
            r#"{"t":"clear"}"#,
            r#"{"t":"turn_end","end":"done"}"#,
            r#"{"end":"failed","t":"turn_end"}"#,
            r#"{"t":"turn_end"}"#,
            r#"{"t":"turn_end","end":3}"#,
            r#"{"t":"tool_result","id":"c1","name":"bash","success":true,"files_changed":[],"duration_ms":1200}"#,
            r#"{"t":"tool_result","id":"c1","name":"bash","success":true,"files_changed":["a.rs"],"duration_ms":5,"extra":{}}"#,
            r#"{"t":"tool_result","id":"c1","name":"bash","success":true,"duration_ms":5}"#,
            r#"{"t":"tool_result","id":"c1","name":"bash","success":"yes","files_changed":[],"duration_ms":5}"#,
            r#"{"t":"tool_result","id":"c1","name":"bash","success":true,"files_changed":[],"duration_ms":-1}"#,
            r#"{"t":"approval","id":"c1","approved":false,"by":"user","reason":"not now"}"#,
            r#"{"t":"approval","id":"c1","approved":true,"by":"policy","reason":null}"#,
            r#"{"t":"approval","id":"c1","approved":true,"by":"policy"}"#,
            r#"{"t":"approval","id":"c1","by":"policy"}"#,
            r#"{"t":"usage","usage":{"prompt_tokens":10,"completion_tokens":2}}"#,
            r#"{"t":"usage","usage":{"prompt_tokens":10,"completion_tokens":2,"estimated":true,"cached_prompt_tokens":4}}"#,
            r#"{"t":"usage","usage":{"prompt_tokens":10}}"#,
            r#"{"t":"usage"}"#,
            r#"{"t":"usa\u0067e","usage":{"prompt_tokens":1,"completion_tokens":1}}"#,
            r#"{"t":"message","t":"usage","usage":{"prompt_tokens":1,"completion_tokens":1}}"#,
            r#"{"t":"prompt","seq":3}"#,
            r#"{"t":"prompt","seq":"3"}"#,
            r#"{"t":"prompt"}"#,
            r#"{"t":"tool_result","id":"c\"1","name":"b\u0061sh","success":false,"files_changed":["a\nb.rs"],"duration_ms":7}"#,
            r#"{"t":"approval","id":"c1","approved":false,"by":"hook","reason":"no \"rm\""}"#,
            r#"{"t":"turn_end","end":"interrupted","usage":{}}"#,
            r#"{"t":"session","id":"s","started_at":"now","workspace":"/w","model":"m"}"#,
            r#"{"t":"nonsense"}"#,
            r#"{"t":7}"#,
            r#"[1,2]"#,
            r#"not json"#,
        ];
        for line in lines {
            let ours = parse_record(line.as_bytes()).ok();
            let serde = serde_json::from_slice::<Record>(line.as_bytes()).ok();
            assert_eq!(ours, serde, "{line}");
            // The invariant of loading's reading: it accepts a line exactly when the full
            // reading gives one of its records, and it reads the same from it.
            let (log, record) = match parse_line(line.as_bytes()) {
                Ok(Line::Log(log)) => (Some(log), None),
                Ok(Line::Record(record)) => (None, Some(record)),
                Err(_) => (None, None),
            };
            let expected = serde.as_ref().and_then(as_log);
            assert_eq!(log, expected, "{line}");
            if expected.is_none() {
                assert_eq!(record, serde, "{line}");
            }
        }
    }

    /// What loading reads of `record`, when it is one of the log records.
    fn as_log(record: &Record) -> Option<Log<'static>> {
        let owned = |s: &String| Cow::Owned(s.clone());
        Some(match record {
            Record::ToolResult {
                id, duration_ms, ..
            } => Log::Ran {
                id: owned(id),
                duration_ms: *duration_ms,
            },
            Record::Approval {
                id,
                approved,
                by,
                reason,
            } => Log::Decided {
                id: owned(id),
                approved: *approved,
                by: owned(by),
                reason: reason.as_ref().map(owned),
            },
            Record::Usage { usage } => Log::Spent(*usage),
            Record::Prompt { seq } => Log::Prompt { seq: *seq },
            Record::TurnEnd { .. } => Log::TurnEnd,
            _ => return None,
        })
    }
}
