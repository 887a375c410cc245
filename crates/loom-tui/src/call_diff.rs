//! A call's diff as the screen keeps it: the files one call changes, with the hunks the diff
//! pane shows and `/diff` prints. Plain data, shared by the app, the approval flow and the
//! diff view.

use crate::base::diff::Hunk;

/// A stored diff for a call: each file it changes (most calls change one; a patch may
/// change, add, delete and move several).
#[derive(Debug, Clone)]
pub struct CallDiff {
    /// The files, in the order they are written.
    pub files: Vec<DiffFile>,
}

impl CallDiff {
    /// A call changing one file.
    pub fn single(
        path: String,
        hunks: std::sync::Arc<Vec<Hunk>>,
        notes: Vec<String>,
        creates: bool,
    ) -> CallDiff {
        CallDiff {
            files: vec![DiffFile {
                path,
                hunks,
                notes,
                creates,
                deletes: false,
                moved_from: None,
            }],
        }
    }

    /// The diff as unified text (for `/diff`), from the hunks.
    pub fn unified(&self) -> String {
        self.files.iter().map(DiffFile::unified).collect()
    }
}

/// One file of a call's diff.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffFile {
    /// Path (the destination, for a move).
    pub path: String,
    /// Hunks (shared with the diff view).
    pub hunks: std::sync::Arc<Vec<Hunk>>,
    /// Notes from the tool.
    pub notes: Vec<String>,
    /// Whether the file is created.
    pub creates: bool,
    /// Whether the file is deleted.
    pub deletes: bool,
    /// Where the file moves from, for a move.
    pub moved_from: Option<String>,
}

impl DiffFile {
    /// The file's diff as unified text with `a/` and `b/` names.
    pub fn unified(&self) -> String {
        let old = match (&self.moved_from, self.creates) {
            (Some(from), _) => format!("a/{from}"),
            (None, true) => "/dev/null".to_string(),
            (None, false) => format!("a/{}", self.path),
        };
        let new = if self.deletes {
            "/dev/null".to_string()
        } else {
            format!("b/{}", self.path)
        };
        crate::base::diff::FileDiff {
            hunks: self.hunks.to_vec(),
        }
        .unified(&old, &new)
    }
}
