//! Why a model response ended, as far as Loom must act on it.
//!
//! A response cut by the token limit (`finish_reason: "length"`) once looked like a normal
//! end: the turn reported `done` and, in full-auto, all 110 complete calls of a cut
//! response ran (38 `write_file`s over one file). A complete tool call followed by an
//! in-stream error event was thrown away and the request retried. The client reports the
//! reason here; the agent decides what runs.

use serde::{Deserialize, Serialize};

/// How a response ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stop {
    /// The model finished (`stop`, `tool_calls`, or a server that says nothing).
    #[default]
    Complete,
    /// The output token limit cut the response (`length`): its last tool call may be
    /// incomplete, and its plan was not finished.
    Length,
    /// The provider's content filter stopped the response.
    ContentFilter,
    /// The server reported an error inside the stream after some of the response arrived.
    StreamError {
        /// What the server said.
        message: String,
    },
}

impl Stop {
    /// The stop a `finish_reason` names (unknown reasons count as complete, as servers
    /// invent their own: `eos`, `end_turn`).
    pub fn from_finish_reason(reason: Option<&str>) -> Stop {
        match reason {
            Some("length") | Some("max_tokens") => Stop::Length,
            Some("content_filter") => Stop::ContentFilter,
            _ => Stop::Complete,
        }
    }

    /// Whether the response is known not to be whole.
    pub fn is_cut(&self) -> bool {
        !matches!(self, Stop::Complete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reasons_map_to_what_loom_acts_on() {
        assert_eq!(Stop::from_finish_reason(Some("length")), Stop::Length);
        assert_eq!(Stop::from_finish_reason(Some("max_tokens")), Stop::Length);
        assert_eq!(
            Stop::from_finish_reason(Some("content_filter")),
            Stop::ContentFilter
        );
        for whole in [Some("stop"), Some("tool_calls"), Some("eos"), None] {
            assert_eq!(Stop::from_finish_reason(whole), Stop::Complete);
            assert!(!Stop::from_finish_reason(whole).is_cut());
        }
    }
}
