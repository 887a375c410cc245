//! The calls of a resumed session keep, in the tools pane, only what their rows show (name,
//! summary, status); their arguments and results stay in the session file and are read
//! back when a row is selected. At 100,000 messages the pane held every call's arguments
//! and result (whose data repeats the command's output) for rows nobody opens.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;

use serde_json::Value;

use super::tool_row::ToolRow;
use crate::protocol::message::Message;
use crate::protocol::stored::SessionFile;
use crate::protocol::tool_result::ToolResult;

/// Where a resumed call's arguments and result are in the session file (defined with the
/// row that holds it).
pub use super::tool_row::StoredCall;

/// A call's arguments as the pane shows them: JSON when they parse, else the text.
pub fn parse_args(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

/// `row` with its arguments and result read back from `file` (a row that was not
/// resumed is returned as it is). What cannot be read is said in the result.
pub fn read_back(row: &ToolRow, file: Option<&SessionFile>) -> ToolRow {
    let mut full = row.clone();
    let (Some(stored), Some(file)) = (row.stored, file) else {
        return full;
    };
    let unreadable = |e: &dyn std::fmt::Display| {
        ToolResult::err(format!(
            "this call could not be read back from the session file ({e}); the file may have been changed or cut"
        ))
    };
    match file.read(stored.call) {
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
        full.result = match file.read(at) {
            Ok(Message::Tool { content, .. }) => serde_json::from_str(&content).ok(),
            Ok(_) => Some(unreadable(&"the message there is not the call's result")),
            Err(e) => Some(unreadable(&e)),
        };
    }
    full
}

/// The fields a [`ToolResult`] must have, read without keeping them (its data is skipped);
/// all but `success` are read only to check their types.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Outcome<'a> {
    success: bool,
    #[serde(borrow)]
    output: Cow<'a, str>,
    #[serde(default)]
    data: Option<IgnoredAny>,
    #[serde(default)]
    files_changed: Vec<String>,
    #[serde(default, borrow)]
    error: Option<Cow<'a, str>>,
}

/// Whether a result message's `content` is a [`ToolResult`] that succeeded, as
/// `serde_json::from_str::<ToolResult>` would say, without building it: a resumed row
/// needs only its status.
pub fn succeeded(content: &str) -> bool {
    serde_json::from_str::<Outcome>(content).is_ok_and(|o| o.success)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invariant: the status read without building the result is the one the whole
    /// result gives, for every kind of content.
    #[test]
    fn a_status_read_alone_is_the_status_of_the_whole_result() {
        let contents = [
            r#"{"success":true,"output":"ok"}"#,
            r#"{"success":false,"output":"","error":"no such file"}"#,
            r#"{"success":true,"output":"a\"b","data":{"diff":"@@ -1 +1 @@","n":[1,2]},"files_changed":["a.rs"]}"#,
            r#"{"success":true,"output":"x","error":null,"data":null}"#,
            r#"{"success":true}"#,
            r#"{"output":"x"}"#,
            r#"{"success":"yes","output":"x"}"#,
            r#"{"success":true,"output":"x","files_changed":[1]}"#,
            r#"{"success":true,"output":"x","error":5}"#,
            r#"{"success":true,"output":"x","extra":{"y":1}}"#,
            r#"{"success":true,"output":"cut"#,
            "plain text",
        ];
        for content in contents {
            let whole = serde_json::from_str::<ToolResult>(content).is_ok_and(|r| r.success);
            assert_eq!(succeeded(content), whole, "{content}");
        }
    }
}
