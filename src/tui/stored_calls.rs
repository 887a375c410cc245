//! The calls of a resumed session keep, in the tools pane, only what their rows show (name,
//! summary, status); their arguments and results stay in the session file and are read
//! back when a row is selected. At 100,000 messages the pane held every call's arguments
//! and result (whose data repeats the command's output) for rows nobody opens.

use std::fs::File;

use serde_json::Value;

use super::tools_pane::ToolRow;
use crate::llm::Message;
use crate::session::{MessageAt, read_message};
use crate::tools::ToolResult;

/// Where a resumed call's arguments and result are in the session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredCall {
    /// The answer that made the call.
    pub call: MessageAt,
    /// Which of that answer's tool calls it is.
    pub index: usize,
    /// The call's result message, once there is one.
    pub result: Option<MessageAt>,
}

/// A call's arguments as the pane shows them: JSON when they parse, else the text.
pub fn parse_args(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

/// `row` with its arguments and result read back from `file` (a row that was not
/// resumed is returned as it is). What cannot be read is said in the result.
pub fn read_back(row: &ToolRow, file: Option<&File>) -> ToolRow {
    let mut full = row.clone();
    let (Some(stored), Some(file)) = (row.stored, file) else {
        return full;
    };
    let unreadable = |e: &dyn std::fmt::Display| {
        ToolResult::err(format!(
            "this call could not be read back from the session file ({e}); the file may have been changed or cut"
        ))
    };
    match read_message(file, stored.call) {
        Ok(Message::Assistant { tool_calls, .. }) => match tool_calls.get(stored.index) {
            Some(c) => full.args = parse_args(&c.arguments),
            None => {
                full.result = Some(unreadable(&"the answer there has no such call"));
                return full;
            }
        },
        Ok(_) => {
            full.result = Some(unreadable(
                &"the message there is not the answer that made it",
            ));
            return full;
        }
        Err(e) => {
            full.result = Some(unreadable(&e));
            return full;
        }
    }
    if let Some(at) = stored.result {
        full.result = match read_message(file, at) {
            Ok(Message::Tool { content, .. }) => serde_json::from_str(&content).ok(),
            Ok(_) => Some(unreadable(&"the message there is not the call's result")),
            Err(e) => Some(unreadable(&e)),
        };
    }
    full
}
