//! A saved session's conversation as the `session/update` notifications `session/load`
//! sends before it answers, so the editor shows the history: the person's messages, the
//! model's answers and its tool calls with their results.

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionUpdate, TextContent, ToolCall, ToolCallStatus,
};
use loom_core::llm::Message;
use loom_core::protocol::message::{is_loom_note, split_interrupted};
use loom_core::protocol::stored::{Earlier, LoadedSession};

use crate::translate;

/// The updates that show `session` as it was shown live: the messages shown before each
/// compaction (not the shorter copy the model goes on from), then the rest. Loom's system
/// prompt and its notes to the model were never shown, and an interrupted answer ends where
/// it was cut (the mark the model reads is not shown).
pub fn updates(session: &LoadedSession) -> Vec<SessionUpdate> {
    let earlier = session.earlier.iter().filter_map(|e| match e {
        // Live, a compaction is not shown to an editor either.
        Earlier::Compacted => None,
        Earlier::Message { message, .. } => Some(message),
    });
    let from = session.shown_from.min(session.conversation.len());
    let mut out = Vec::new();
    for message in earlier.chain(&session.conversation[from..]) {
        show(message, &mut out);
    }
    out
}

/// The updates that show one message.
fn show(message: &Message, out: &mut Vec<SessionUpdate>) {
    let chunk = |s: &str| ContentChunk::new(ContentBlock::Text(TextContent::new(s)));
    match message {
        Message::System { .. } => {}
        Message::User { content, .. } if is_loom_note(content) => {}
        Message::User { content, .. } => {
            out.push(SessionUpdate::UserMessageChunk(chunk(content)));
        }
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let (content, _) = split_interrupted(content);
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
    use loom_core::protocol::message::INTERRUPTED_MARK;

    fn session(conversation: Vec<Message>) -> LoadedSession {
        LoadedSession {
            conversation,
            ..LoadedSession::default()
        }
    }

    /// The text of each message chunk, `user: …` or `agent: …`; calls and results as
    /// `call ID` and `result ID`.
    fn said(updates: &[SessionUpdate]) -> Vec<String> {
        let text = |c: &ContentChunk| match &c.content {
            ContentBlock::Text(t) => t.text.clone(),
            other => format!("{other:?}"),
        };
        updates
            .iter()
            .map(|u| match u {
                SessionUpdate::UserMessageChunk(c) => format!("user: {}", text(c)),
                SessionUpdate::AgentMessageChunk(c) => format!("agent: {}", text(c)),
                SessionUpdate::ToolCall(c) => format!("call {}", c.tool_call_id.0),
                SessionUpdate::ToolCallUpdate(c) => format!("result {}", c.tool_call_id.0),
                other => format!("{other:?}"),
            })
            .collect()
    }

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
        let u = updates(&session(conversation));
        assert_eq!(u.len(), 4);
        assert!(matches!(&u[0], SessionUpdate::UserMessageChunk(_)));
        assert!(matches!(&u[1], SessionUpdate::AgentMessageChunk(_)));
        assert!(matches!(&u[2], SessionUpdate::ToolCall(c) if c.tool_call_id.0.as_ref() == "c1"));
        assert!(matches!(&u[3], SessionUpdate::ToolCallUpdate(c)
            if c.fields.status == Some(ToolCallStatus::Failed)));
    }

    /// Regression: a replay showed Loom's notes to the model (`[Loom] …`, `[loom] …`) as
    /// the person's messages, and an interrupted answer with the mark the model reads.
    #[test]
    fn notes_to_the_model_and_the_interruption_mark_are_not_replayed() {
        let u = updates(&session(vec![
            Message::user("fix the parser"),
            Message::user("[Loom] Plan mode is off: you are in supervised mode now."),
            Message::Assistant {
                content: format!("Half an answer{INTERRUPTED_MARK}"),
                tool_calls: Vec::new(),
            },
            Message::user("[loom] Your previous answer was cut off by a connection problem"),
            Message::user("go on"),
        ]));
        assert_eq!(
            said(&u),
            [
                "user: fix the parser",
                "agent: Half an answer",
                "user: go on"
            ]
        );
    }

    /// Regression: after a compaction, a replay showed the compacted copy (the summary as
    /// the person's message, "Understood" as the agent's) instead of the conversation
    /// shown live, which the session file still holds.
    #[test]
    fn a_compacted_session_replays_what_was_shown_not_the_copy() {
        let mut s = session(vec![
            Message::user("[loom] The earlier part of this conversation was compacted"),
            Message::Assistant {
                content: "Understood. I continue from this summary.".into(),
                tool_calls: Vec::new(),
            },
            Message::user("second"),
            Message::Assistant {
                content: "two".into(),
                tool_calls: Vec::new(),
            },
            Message::user("third"),
        ]);
        s.earlier = vec![
            Earlier::Message {
                message: Message::user("first"),
                at: None,
            },
            Earlier::Message {
                message: Message::Assistant {
                    content: "one".into(),
                    tool_calls: Vec::new(),
                },
                at: None,
            },
            Earlier::Compacted,
            Earlier::Message {
                message: Message::user("second"),
                at: None,
            },
            Earlier::Message {
                message: Message::Assistant {
                    content: "two".into(),
                    tool_calls: Vec::new(),
                },
                at: None,
            },
            Earlier::Compacted,
        ];
        s.shown_from = 4;
        assert_eq!(
            said(&updates(&s)),
            [
                "user: first",
                "agent: one",
                "user: second",
                "agent: two",
                "user: third"
            ]
        );
    }
}
