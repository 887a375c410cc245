//! The undo journal as front ends see it: which changes to undo, and a recorded change as
//! `/changes` lists it. Plain data: the TUI and the agent's events name these without
//! knowing the journal.

use serde::{Deserialize, Serialize};

/// A recorded change, as listed by `/changes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeSummary {
    /// Sequence number in the session.
    pub seq: u64,
    /// The turn it happened in.
    pub turn: u64,
    /// `edit_file`, `write_file` or `bash`.
    pub tool: String,
    /// What changed: a path, or a command and its files.
    pub what: String,
    /// Whether it is currently undone.
    pub undone: bool,
}

/// Which changes to undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The most recent change.
    Last,
    /// Every change of the most recent turn with changes.
    Turn,
    /// Every change of the session.
    All,
    /// Every change from this sequence number on.
    Since(u64),
}

/// How many lines a change added to and removed from one file (what a command changed, as
/// the shadow repository's `git diff --numstat` counts it), so front ends can report a
/// turn's changes with their sizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLines {
    /// Workspace-relative path.
    pub path: String,
    /// Lines added (0 for a binary file).
    pub lines_added: usize,
    /// Lines removed (0 for a binary file).
    pub lines_removed: usize,
    /// Whether git saw the file as binary (its lines are not counted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
}
