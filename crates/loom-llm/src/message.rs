//! The conversation as the Chat Completions API sees it: system, user, assistant (with tool
//! calls) and tool messages, plus token usage. Pure data, shared by the agent (which owns
//! the conversation) and the client (which serialises it).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

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
        images: Vec<super::image::Image>,
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

    /// Rough size in characters, for token estimates.
    pub fn char_len(&self) -> usize {
        match self {
            Message::System { content } => content.len(),
            Message::User { content, images } => {
                content.len() + images.len() * super::image::IMAGE_CHARS
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

pub use loom_protocol::usage::Usage;

/// Check that every assistant tool call is answered by exactly one tool message (before the
/// next user or assistant message), and no tool message answers nothing.
pub fn check_tool_answers(conversation: &[Message]) -> Result<(), String> {
    let mut open: Vec<String> = Vec::new();
    for (i, m) in conversation.iter().enumerate() {
        match m {
            Message::Tool { tool_call_id, .. } => {
                let Some(pos) = open.iter().position(|id| id == tool_call_id) else {
                    return Err(format!(
                        "message {i}: tool result for unknown or answered id {tool_call_id}"
                    ));
                };
                open.remove(pos);
            }
            other => {
                if !open.is_empty() {
                    return Err(format!("message {i}: calls {open:?} have no result"));
                }
                if let Message::Assistant { tool_calls, .. } = other {
                    open = tool_calls.iter().map(|c| c.id.clone()).collect();
                }
            }
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("calls {open:?} have no result at the end"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_format_of_each_role() {
        let call = ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: "{\"path\":\"a\"}".into(),
        };
        let a = Message::Assistant {
            content: String::new(),
            tool_calls: vec![call],
        };
        let w = a.to_wire();
        assert_eq!(
            w["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"a\"}"
        );
        assert_eq!(w["tool_calls"][0]["type"], "function");
        let t = Message::Tool {
            tool_call_id: "c1".into(),
            name: "read_file".into(),
            content: "{}".into(),
        };
        assert_eq!(t.to_wire()["tool_call_id"], "c1");
        assert_eq!(
            Message::user("hi").to_wire(),
            json!({"role": "user", "content": "hi"})
        );
    }

    #[test]
    fn usage_estimates_and_sums() {
        let mut u = Usage::default();
        u.add(Usage::estimate(400, 40));
        assert_eq!(
            (u.prompt_tokens, u.completion_tokens, u.estimated),
            (100, 10, true)
        );
    }
}
