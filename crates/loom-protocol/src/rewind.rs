//! Rewind and fork as front ends see them (issue 28): the prompts of the session a
//! rewind or fork can go back to. Plain data: the TUI lists these and sends their number
//! back in a [`crate::events::UserOp::Rewind`] or [`crate::events::UserOp::Fork`]; the
//! agent alone knows the session file and the undo journal behind them.

use serde::{Deserialize, Serialize};

/// One prompt of the current conversation, as the rewind list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptEntry {
    /// Its number in the conversation, from 1 (what `/fork N` names).
    pub n: usize,
    /// The prompt's text as the person typed it (attachments left out).
    pub text: String,
    /// How many recorded changes (file writes, commands that changed files) a rewind to
    /// just before it would undo.
    pub changes: usize,
}
