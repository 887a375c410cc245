//! One id per tool call for the whole session.
//!
//! A server may number its calls per response (`call_0` in every answer), and Loom's own
//! ids for calls that came without one are derived from the call, so the same read in two
//! turns gets the same id. The screen, the undo journal and the session file find a call's
//! output and diff by its id: a repeated id showed an earlier call's output under a later
//! call. So a call whose id was already used in the session is given a fresh one
//! (`call_0_2`) before anything sees it; the model reads its results under that id too, so
//! the request stays consistent.

use std::collections::HashSet;

use crate::agent::state::ProposedCall;
use crate::llm::Message;

/// The call ids the session has used.
#[derive(Debug, Default)]
pub(super) struct CallIds {
    /// `None` until the first answer with calls: then read from the conversation (a
    /// resumed one holds its calls already) and kept up to date.
    seen: Option<HashSet<String>>,
}

impl CallIds {
    /// Give each of `calls` an id no earlier call of the session has (`conversation`:
    /// the session's messages so far, read the first time only).
    pub(super) fn make_unique(&mut self, conversation: &[Message], calls: &mut [ProposedCall]) {
        if calls.is_empty() {
            return;
        }
        let seen = self.seen.get_or_insert_with(|| {
            conversation
                .iter()
                .flat_map(|m| match m {
                    Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
                    _ => &[],
                })
                .map(|c| c.id.clone())
                .collect()
        });
        for proposed in calls {
            let id = &mut proposed.call.id;
            if seen.contains(id.as_str()) {
                let fresh = (2u64..)
                    .map(|n| format!("{id}_{n}"))
                    .find(|candidate| !seen.contains(candidate))
                    .unwrap_or_else(|| id.clone());
                *id = fresh;
            }
            seen.insert(id.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;
    use crate::tools::ToolArgs;

    fn proposed(id: &str) -> ProposedCall {
        ProposedCall {
            call: ToolCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: "{}".into(),
            },
            kind: crate::tools::ToolKind::Read,
            args: ToolArgs::untyped(serde_json::json!({})),
            intent: None,
            invalid: None,
            note: None,
        }
    }

    fn ids(calls: &[ProposedCall]) -> Vec<&str> {
        calls.iter().map(|c| c.call.id.as_str()).collect()
    }

    /// Ids a resumed conversation holds, and ids of earlier answers, are not given again;
    /// an id not seen before is kept as the server sent it.
    #[test]
    fn a_repeated_id_gets_a_fresh_one_and_a_new_id_is_kept() {
        let conversation = vec![Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_0".into(),
                name: "bash".into(),
                arguments: "{}".into(),
            }],
        }];
        let mut call_ids = CallIds::default();
        let mut first = vec![proposed("call_0"), proposed("call_1")];
        call_ids.make_unique(&conversation, &mut first);
        assert_eq!(ids(&first), ["call_0_2", "call_1"]);
        let mut second = vec![proposed("call_0"), proposed("call_1"), proposed("call_0_2")];
        call_ids.make_unique(&conversation, &mut second);
        assert_eq!(ids(&second), ["call_0_3", "call_1_2", "call_0_2_2"]);
    }
}
