//! Reading a session line without serde's detour for tagged enums. `Record` and `Message`
//! are tagged by a field inside them (`"t"`, `"role"`), which serde reads by first copying
//! the whole line into a tree of its own and then reading that tree again: a resume of
//! 100,000 messages spent about a fifth of its CPU time there. Message lines (nearly every
//! line) are read straight into their fields instead; anything else, or a message line the
//! direct reading does not accept, goes the ordinary way, so the outcome is the same.

use std::borrow::Cow;

use serde::Deserialize;

use super::Record;
use crate::llm::image::Image;
use crate::llm::{Message, ToolCall};

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

/// One line of a session file, as `serde_json::from_slice::<Record>` reads it.
pub fn parse_record(line: &[u8]) -> serde_json::Result<Record> {
    // Loom writes the tag first; a line that starts otherwise has its tag looked up.
    let message = line.starts_with(br#"{"t":"message","#)
        || serde_json::from_slice::<Tag>(line).is_ok_and(|tag| tag.t == "message");
    let direct = message
        .then(|| serde_json::from_slice::<MessageLine>(line).ok())
        .flatten()
        .and_then(|m| m.message.into_message());
    match direct {
        Some(message) => Ok(Record::Message { message }),
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
        }
    }
}
