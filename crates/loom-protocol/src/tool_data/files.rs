//! The data of the tools that change files: `write_file`, `edit_file`, `apply_patch`.

use serde::{Deserialize, Serialize};

use super::is_false;

/// One file written, moved or deleted by a file tool. The first keys are the tool's own
/// (`edit_file`'s counts, `apply_patch`'s `files_in_patch`), then what was written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileChangeData {
    /// `edit_file`: how many edits applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits_applied: Option<u64>,
    /// `edit_file`: how many places they replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacements: Option<u64>,
    /// `edit_file`: the file's size before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_bytes: Option<u64>,
    /// `edit_file`: its size after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_bytes: Option<u64>,
    /// `apply_patch` (on its first file): how many files the patch changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_in_patch: Option<u64>,
    /// The file, as shown to the model.
    pub path: String,
    /// Set (true) when the file was deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<bool>,
    /// Bytes written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
    /// Whether the file is new.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<bool>,
    /// Lines added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_added: Option<u64>,
    /// Lines removed.
    pub lines_removed: u64,
    /// The unified diff written (cut in the middle past its budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Whether the diff was cut (written only then).
    #[serde(skip_serializing_if = "is_false")]
    pub diff_cut: bool,
    /// The hunks the person applied, when they picked some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunks_applied: Option<Vec<usize>>,
    /// The hunks they rejected, then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunks_rejected: Option<Vec<usize>>,
    /// For a move, where the file was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<String>,
}

/// `apply_patch`'s result: each file's [`FileChangeData`] and the totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ApplyPatchData {
    /// The files changed.
    pub files: Vec<FileChangeData>,
    /// The files the person rejected (left alone).
    pub files_rejected: Vec<String>,
    /// Lines added over all files.
    pub lines_added: u64,
    /// Lines removed over all files.
    pub lines_removed: u64,
}
