//! A saved session's conversation as the `session/update` notifications `session/load`
//! sends before it answers, so the editor shows the history: the person's messages, the
//! model's answers and its tool calls with their results.

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionUpdate, TextContent, ToolCall, ToolCallStatus,
};
use loom_core::llm::Message;

use crate::translate;

/// The updates that show `conversation` (system messages are Loom's, not shown).
pub fn updates(conversation: &[Message]) -> Vec<SessionUpdate> {
    let chunk = |s: &str| ContentChunk::new(ContentBlock::Text(TextContent::new(s)));
    let mut out = Vec::new();
    for message in conversation {
        match message {
            Message::System { .. } => {}
            Message::User { content, .. } => {
                out.push(SessionUpdate::UserMessageChunk(chunk(content)));
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if !content.is_empty() {
                    out.push(SessionUpdate::AgentMessageChunk(chunk(content)));
                }
                for call in tool_calls {
                    let input = serde_json::from_str(&call.arguments)
                        .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone()));
                    out.push(SessionUpdate::ToolCall(
                        ToolCall::new(call.id.clone(), call.name.clone())
                            .status(ToolCallStatus::Pending)
                            .raw_input(input),
                    ));
                }
            }
            Message::Tool {
                tool_call_id,
                content,
                ..
            } => {
                let failed = serde_json::from_str::<serde_json::Value>(content)
                    .ok()
                    .and_then(|v| v.get("success").and_then(serde_json::Value::as_bool))
                    == Some(false);
                let status = if failed {
                    ToolCallStatus::Failed
                } else {
                    ToolCallStatus::Completed
                };
                out.push(SessionUpdate::ToolCallUpdate(translate::status(
                    tool_call_id,
                    status,
                    Some(vec![translate::text(shorten(content))]),
                )));
            }
        }
    }
    out
}

/// A stored result cut for display.
fn shorten(s: &str) -> String {
    const SHOWN: usize = 2_000;
    match s.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loom_core::llm::ToolCall as LlmCall;

    #[test]
    fn a_conversation_replays_as_messages_and_tool_calls_without_the_system_prompt() {
        let conversation = vec![
            Message::System {
                content: "sys".into(),
            },
            Message::user("hi"),
            Message::Assistant {
                content: "ok".into(),
                tool_calls: vec![LlmCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\":\"a\"}".into(),
                }],
            },
            Message::Tool {
                tool_call_id: "c1".into(),
                name: "read_file".into(),
                content: "{\"success\":false,\"error\":\"no\"}".into(),
            },
        ];
        let u = updates(&conversation);
        assert_eq!(u.len(), 4);
        assert!(matches!(&u[0], SessionUpdate::UserMessageChunk(_)));
        assert!(matches!(&u[1], SessionUpdate::AgentMessageChunk(_)));
        assert!(matches!(&u[2], SessionUpdate::ToolCall(c) if c.tool_call_id.0.as_ref() == "c1"));
        assert!(matches!(&u[3], SessionUpdate::ToolCallUpdate(c)
            if c.fields.status == Some(ToolCallStatus::Failed)));
    }
}
