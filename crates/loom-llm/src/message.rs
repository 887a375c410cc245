//! The conversation as the Chat Completions API sees it: system, user, assistant (with tool
//! calls) and tool messages, plus token usage. The messages are `loom-protocol`'s (pure
//! data, shared with the session file and the front ends), re-exported here; what is the
//! client's alone stays here.

pub use loom_protocol::message::{Message, ToolCall};

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
    use serde_json::json;

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

    /// Regression (found by a helper): a prompt interrupted before any answer came, then
    /// the next one, were sent as two user messages in a row, which strict chat templates
    /// refuse. Adjacent user messages go as one; every other message as it is.
    #[test]
    fn adjacent_user_messages_are_sent_as_one() {
        let image = crate::image::Image {
            name: "shot.png".into(),
            mime: "image/png".into(),
            data: "AAAA".into(),
        };
        let conversation = vec![
            Message::System {
                content: "sys".into(),
            },
            Message::user("first q"),
            Message::User {
                content: "second q".into(),
                images: vec![image],
            },
            Message::Assistant {
                content: "answer".into(),
                tool_calls: Vec::new(),
            },
            Message::user("[Loom] The user undid your changes"),
            Message::user("third q"),
        ];
        let wire = Message::wire_all(&conversation);
        let roles: Vec<&str> = wire.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        assert_eq!(wire[1]["content"][0]["text"], "first q\n\nsecond q");
        assert_eq!(wire[1]["content"][1]["type"], "image_url");
        assert_eq!(
            wire[3],
            json!({"role": "user", "content": "[Loom] The user undid your changes\n\nthird q"})
        );
        let single = [Message::user("hi")];
        assert_eq!(Message::wire_all(&single), [single[0].to_wire()]);
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
