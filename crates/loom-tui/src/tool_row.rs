//! One call as the tools pane keeps it: its row (name, summary, arguments, status, result)
//! and, for a resumed call, where its arguments and result are in the session file. Plain
//! data shared by the pane, the resumed-call reader and the app.

use std::time::Instant;

use serde_json::Value;

use crate::protocol::stored::MessageAt;
use crate::protocol::tool_result::ToolResult;

/// Where a call stands.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolStatus {
    /// Proposed, not started.
    Queued,
    /// Waiting for the person.
    Awaiting,
    /// Running since.
    Running(Instant),
    /// Finished.
    Done {
        /// Succeeded.
        ok: bool,
        /// How long it ran (`None`: not known, a resumed call of a file that did not
        /// record it).
        ms: Option<u64>,
    },
    /// Refused (by the policy or the person).
    Denied,
}

/// One call.
#[derive(Debug, Clone)]
pub struct ToolRow {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// One-line summary of the arguments.
    pub summary: String,
    /// The arguments.
    pub args: Value,
    /// Status.
    pub status: ToolStatus,
    /// The result, when finished.
    pub result: Option<ToolResult>,
    /// For a resumed call, where its arguments and result are in the session file (then
    /// `args` and `result` are not kept: they are read back when the row is selected).
    pub stored: Option<StoredCall>,
}

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
