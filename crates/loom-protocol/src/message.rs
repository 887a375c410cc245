//! The conversation as the Chat Completions API sees it: system, user, assistant (with tool
//! calls) and tool messages. Pure data, shared by the agent (which owns the conversation),
//! the client (which serialises it), the session file (which stores it) and the front ends
//! (which show a resumed one); `loom-llm` re-exports it where it was.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What ends an answer the person interrupted, in the conversation: the model reads its
/// partial answer as cut off on purpose. A resumed screen shows the answer without it, and
/// the "interrupted" notice the live screen showed.
pub const INTERRUPTED_MARK: &str = "\n\n[interrupted by the user]";

/// `content` without [`INTERRUPTED_MARK`], and whether it had it.
pub fn split_interrupted(content: &str) -> (&str, bool) {
    match content.strip_suffix(INTERRUPTED_MARK) {
        Some(answer) => (answer, true),
        None => (content, false),
    }
}

/// How Loom's own notes to the model begin: user messages the person did not type (a mode
/// change, a hook's context, a retry's instruction). They were never shown live, so a
/// resumed screen hides them too.
pub const LOOM_NOTE: &str = "[Loom] ";

/// Whether a user message's `content` is one of Loom's notes to the model ([`LOOM_NOTE`],
/// or the `[loom] ` some notes began with).
pub fn is_loom_note(content: &str) -> bool {
    content.starts_with(LOOM_NOTE) || content.starts_with("[loom] ")
}

/// One tool call the model made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id its result must answer.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them (JSON text, possibly invalid).
    pub arguments: String,
}

/// A message in the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions from Loom.
    System {
        /// The text.
        content: String,
    },
    /// What the person asked (or a hook's report).
    User {
        /// The text.
        content: String,
        /// Images attached to it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<crate::image::Image>,
    },
    /// What the model answered.
    Assistant {
        /// Visible text (tool-call markup removed).
        content: String,
        /// Tool calls, in the order the model gave them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// The call this answers.
        tool_call_id: String,
        /// The tool's name (some servers want it).
        name: String,
        /// The result JSON the model reads.
        content: String,
    },
}

impl Message {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Message {
        Message::User {
            content: text.into(),
            images: Vec::new(),
        }
    }

    /// The message in the Chat Completions wire format.
    pub fn to_wire(&self) -> Value {
        match self {
            Message::System { content } => json!({"role": "system", "content": content}),
            Message::User { content, images } if images.is_empty() => {
                json!({"role": "user", "content": content})
            }
            Message::User { content, images } => {
                let mut parts = vec![json!({"type": "text", "text": content})];
                parts.extend(
                    images
                        .iter()
                        .map(|i| json!({"type": "image_url", "image_url": {"url": i.data_url()}})),
                );
                json!({"role": "user", "content": parts})
            }
            Message::Assistant {
                content,
                tool_calls,
            } if tool_calls.is_empty() => json!({"role": "assistant", "content": content}),
            Message::Assistant {
                content,
                tool_calls,
            } => json!({
                "role": "assistant",
                "content": content,
                "tool_calls": tool_calls.iter().map(|c| json!({
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                })).collect::<Vec<_>>(),
            }),
            Message::Tool {
                tool_call_id,
                name,
                content,
            } => json!({
                "role": "tool",
                "tool_call_id": tool_call_id,
                "name": name,
                "content": content,
            }),
        }
    }

    /// `messages` in the Chat Completions wire format, user messages that follow one
    /// another sent as one (their texts apart by a blank line, their images together).
    /// Strict chat templates (Mistral's, Gemma's under llama-server) refuse two user turns
    /// in a row, which Loom's conversation can hold: a prompt interrupted before any answer
    /// came, then the next one; a note of Loom's before the person's prompt.
    pub fn wire_all(messages: &[Message]) -> Vec<Value> {
        let mut out = Vec::with_capacity(messages.len());
        let mut i = 0;
        while let Some(m) = messages.get(i) {
            let run = messages[i..]
                .iter()
                .take_while(|m| matches!(m, Message::User { .. }))
                .count();
            if run < 2 {
                out.push(m.to_wire());
                i += 1;
                continue;
            }
            let mut text = String::new();
            let mut all_images = Vec::new();
            for m in &messages[i..i + run] {
                if let Message::User { content, images } = m {
                    if !text.is_empty() && !content.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(content);
                    all_images.extend(images.iter().cloned());
                }
            }
            out.push(
                Message::User {
                    content: text,
                    images: all_images,
                }
                .to_wire(),
            );
            i += run;
        }
        out
    }

    /// Rough size in characters, for token estimates.
    pub fn char_len(&self) -> usize {
        match self {
            Message::System { content } => content.len(),
            Message::User { content, images } => {
                content.len() + images.len() * crate::image::IMAGE_CHARS
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                content.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.len() + 16)
                        .sum::<usize>()
            }
            Message::Tool { content, .. } => content.len() + 16,
        }
    }
}
