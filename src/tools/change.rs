//! A proposed file change and the one way to write it.
//!
//! Write tools compute a [`FileChange`] in `preview` without touching disk; the person sees
//! its diff; [`apply`] then writes exactly that change (or the hunks they selected), after
//! checking that the file still holds what the preview was computed from. If someone edited
//! the file in between, the write is refused rather than silently clobbering their work.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::beneath::Beneath;
use super::diff::FileDiff;
use super::output::cut_middle;
use super::{ToolError, ToolResult};

/// Bytes of diff the model gets back after a write.
const DIFF_BUDGET: usize = 16 * 1024;

/// Largest file write and edit tools read to change (a diff of anything larger is not
/// something a person reviews).
pub const MAX_EDIT_BYTES: u64 = 64 * 1024 * 1024;

/// The current contents of the file `path` inside the workspace `root`, read beneath it
/// (no symlink followed, regular files only, at most [`MAX_EDIT_BYTES`]); `None` when it
/// does not exist yet.
pub fn read_current(root: &Path, path: &Path, shown: &str) -> Result<Option<Vec<u8>>, ToolError> {
    let io = |e: std::io::Error| ToolError::io(shown, &e);
    let beneath = Beneath::open(root).map_err(io)?;
    let rel = beneath.relative(path).map_err(io)?;
    match beneath.read_regular(rel, MAX_EDIT_BYTES) {
        Ok(found) => Ok(found.map(|(bytes, _)| bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            Err(ToolError::IsDirectory(shown.to_string()))
        }
        Err(e) => Err(io(e)),
    }
}

/// Identifies file contents cheaply, to notice changes between preview and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Length in bytes.
    pub len: u64,
    /// Hash of the bytes.
    pub hash: u64,
}

impl Fingerprint {
    /// Fingerprint of `bytes`.
    pub fn of(bytes: &[u8]) -> Fingerprint {
        let mut h = DefaultHasher::new();
        bytes.hash(&mut h);
        Fingerprint {
            len: bytes.len() as u64,
            hash: h.finish(),
        }
    }
}

/// A change to one file, computed but not yet written.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileChange {
    /// The tool that proposed it.
    pub tool: String,
    /// Where it will be written (canonical, inside the workspace).
    pub path: PathBuf,
    /// The workspace root the write goes through ([`super::beneath::Beneath`]).
    #[serde(default)]
    pub root: PathBuf,
    /// The path relative to the workspace, as shown to people and the model.
    pub display_path: String,
    /// The current text, or `None` if the file does not exist yet.
    pub old: Option<String>,
    /// Fingerprint of the current bytes, or `None` if the file does not exist.
    pub old_fingerprint: Option<Fingerprint>,
    /// The proposed text.
    pub new: String,
    /// The line diff from old to new.
    pub diff: FileDiff,
    /// Tool-specific details merged into the result (e.g. `edits_applied`).
    pub details: Map<String, Value>,
    /// Things the model should know (e.g. that a whitespace-tolerant match was used).
    pub notes: Vec<String>,
}

impl FileChange {
    /// Build a change from the current state and the proposed text.
    pub fn new(
        tool: &str,
        path: PathBuf,
        display_path: String,
        old_bytes: Option<&[u8]>,
        new: String,
    ) -> FileChange {
        let old = old_bytes.map(|b| String::from_utf8_lossy(b).into_owned());
        let diff = FileDiff::compute(old.as_deref().unwrap_or(""), &new);
        let depth = Path::new(&display_path).components().count();
        let root = path
            .ancestors()
            .nth(depth.max(1))
            .unwrap_or(Path::new("/"))
            .to_path_buf();
        FileChange {
            tool: tool.to_string(),
            root,
            path,
            display_path,
            old_fingerprint: old_bytes.map(Fingerprint::of),
            old,
            new,
            diff,
            details: Map::new(),
            notes: Vec::new(),
        }
    }

    /// The unified diff with `a/` and `b/` headers (`/dev/null` for a new file).
    pub fn unified(&self) -> String {
        let old_name = if self.old.is_some() {
            format!("a/{}", self.display_path)
        } else {
            "/dev/null".to_string()
        };
        self.diff
            .unified(&old_name, &format!("b/{}", self.display_path))
    }

    /// Whether the change creates the file.
    pub fn creates(&self) -> bool {
        self.old.is_none()
    }
}

/// Which hunks of a change to write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum HunkSelection {
    /// The whole change.
    #[default]
    All,
    /// Only hunks whose index is `true`.
    Only(Vec<bool>),
}

/// The exact text `apply` writes for `change` under `selection`.
pub fn content_for(change: &FileChange, selection: &HunkSelection) -> String {
    match selection {
        HunkSelection::All => change.new.clone(),
        HunkSelection::Only(mask) => change
            .diff
            .apply_selected(change.old.as_deref().unwrap_or(""), mask),
    }
}

/// Write `change` (or its selected hunks) atomically, refusing if the file changed since
/// the preview. Returns the result the model reads.
pub fn apply(change: &FileChange, selection: &HunkSelection) -> Result<ToolResult, ToolError> {
    let current = read_current(&change.root, &change.path, &change.display_path)?;
    if current.as_deref().map(Fingerprint::of) != change.old_fingerprint {
        return Err(ToolError::Stale(change.display_path.clone()));
    }
    let (content, applied_note, hunks_applied) = match selection {
        HunkSelection::All => (change.new.clone(), None, None),
        HunkSelection::Only(mask) => {
            let old = change.old.as_deref().unwrap_or("");
            if current
                .as_deref()
                .is_some_and(|b| std::str::from_utf8(b).is_err())
            {
                return Err(ToolError::Edit(format!(
                    "{} is not valid UTF-8, so it cannot be changed hunk by hunk",
                    change.display_path
                )));
            }
            let picked: Vec<usize> = mask
                .iter()
                .enumerate()
                .filter(|(_, on)| **on)
                .map(|(i, _)| i + 1)
                .collect();
            let rejected: Vec<usize> = (1..=change.diff.hunks.len())
                .filter(|i| !picked.contains(i))
                .collect();
            let note = format!(
                "the user applied only hunk(s) {picked:?} of the {} proposed; hunk(s) \
                 {rejected:?} were rejected and are not in the file (the diff shows exactly \
                 what was written)",
                change.diff.hunks.len()
            );
            let _ = old;
            (
                content_for(change, selection),
                Some(note),
                Some((picked, rejected)),
            )
        }
    };
    let io = |e: std::io::Error| ToolError::io(&change.display_path, &e);
    let beneath = Beneath::open(&change.root).map_err(io)?;
    let rel = beneath.relative(&change.path).map_err(io)?;
    beneath
        .write_atomic(rel, content.as_bytes(), None)
        .map_err(io)?;

    let partial = hunks_applied.as_ref().map(|_| {
        FileChange::new(
            &change.tool,
            change.path.clone(),
            change.display_path.clone(),
            current.as_deref(),
            content.clone(),
        )
    });
    let written = partial.as_ref().unwrap_or(change);
    let written_diff = written.unified();
    let (diff_text, cut) = cut_middle(&written_diff, DIFF_BUDGET);
    let mut data = change.details.clone();
    data.insert("path".into(), json!(change.display_path));
    data.insert("bytes_written".into(), json!(content.len()));
    data.insert("created".into(), json!(change.creates()));
    data.insert("lines_added".into(), json!(written.diff.added()));
    data.insert("lines_removed".into(), json!(written.diff.removed()));
    data.insert("diff".into(), json!(diff_text));
    if cut {
        data.insert("diff_cut".into(), json!(true));
    }
    if let Some((applied, rejected)) = &hunks_applied {
        // A count of edits would describe the proposal, not what was written.
        data.remove("edits_applied");
        data.insert("hunks_applied".into(), json!(applied));
        data.insert("hunks_rejected".into(), json!(rejected));
    }
    let verb = if change.creates() {
        "Created"
    } else {
        "Updated"
    };
    let mut output = format!(
        "{verb} {} ({} bytes, +{} -{} lines)",
        change.display_path,
        content.len(),
        written.diff.added(),
        written.diff.removed()
    );
    if cut {
        output.push_str(&format!(
            "\nNote: the diff in this result is cut in the middle ({} of {} characters \
             shown); read the file for the rest",
            diff_text.len(),
            written_diff.len()
        ));
    }
    for note in change.notes.iter().chain(applied_note.iter()) {
        output.push_str("\nNote: ");
        output.push_str(note);
    }
    Ok(ToolResult::ok(output)
        .with_data(Value::Object(data))
        .with_files(vec![change.display_path.clone()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change_for(path: &std::path::Path, old: Option<&str>, new: &str) -> FileChange {
        FileChange::new(
            "write_file",
            path.to_path_buf(),
            "f.txt".into(),
            old.map(str::as_bytes),
            new.to_string(),
        )
    }

    #[test]
    fn applies_whole_change() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "a\n").unwrap();
        let c = change_for(&p, Some("a\n"), "b\n");
        let r = apply(&c, &HunkSelection::All).unwrap();
        assert!(r.success);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "b\n");
        assert_eq!(r.files_changed, vec!["f.txt"]);
        assert!(r.data.unwrap()["diff"].as_str().unwrap().contains("-a\n+b"));
    }

    #[test]
    fn refuses_when_file_changed_since_preview() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "a\n").unwrap();
        let c = change_for(&p, Some("a\n"), "b\n");
        std::fs::write(&p, "user edit\n").unwrap();
        let err = apply(&c, &HunkSelection::All).unwrap_err();
        assert!(matches!(err, ToolError::Stale(_)));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "user edit\n");
    }

    #[test]
    fn refuses_when_a_new_file_appeared() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let c = change_for(&p, None, "b\n");
        std::fs::write(&p, "surprise").unwrap();
        assert!(apply(&c, &HunkSelection::All).is_err());
    }

    #[test]
    fn applies_selected_hunks_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let old: String = (1..=30).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l2\n", "L2\n").replace("l25\n", "L25\n");
        std::fs::write(&p, &old).unwrap();
        let c = change_for(&p, Some(&old), &new);
        let r = apply(&c, &HunkSelection::Only(vec![false, true])).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            old.replace("l25\n", "L25\n")
        );
        assert!(
            r.output.contains("only hunk(s) [2] of the 2 proposed"),
            "{}",
            r.output
        );
    }

    /// Regression (issue 11): a per-hunk result told the model `edits_applied 3` and the
    /// whole proposal's line counts when 2 of 3 hunks were written.
    #[test]
    fn a_per_hunk_apply_tells_the_model_the_hunks_written() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let old: String = (1..=60).map(|i| format!("l{i}\n")).collect();
        let new = old
            .replace("l2\n", "L2\n")
            .replace("l30\n", "L30\n")
            .replace("l55\n", "L55\n");
        std::fs::write(&p, &old).unwrap();
        let mut c = change_for(&p, Some(&old), &new);
        assert_eq!(c.diff.hunks.len(), 3);
        c.details.insert("edits_applied".into(), json!(3));
        let r = apply(&c, &HunkSelection::Only(vec![true, false, true])).unwrap();
        let data = r.data.unwrap();
        assert!(data.get("edits_applied").is_none(), "{data}");
        assert_eq!(data["hunks_applied"], json!([1, 3]));
        assert_eq!(data["hunks_rejected"], json!([2]));
        assert_eq!(data["lines_added"], 2);
        assert_eq!(data["lines_removed"], 2);
        let diff = data["diff"].as_str().unwrap();
        assert!(diff.contains("+L2") && diff.contains("+L55") && !diff.contains("L30"));
        assert!(r.output.contains("+2 -2 lines"), "{}", r.output);
    }

    #[test]
    fn a_cut_diff_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let new: String = (0..3000)
            .map(|i| format!("line {i} of a big file\n"))
            .collect();
        let c = change_for(&p, None, &new);
        let r = apply(&c, &HunkSelection::All).unwrap();
        let data = r.data.unwrap();
        assert_eq!(data["diff_cut"], true);
        assert!(r.output.contains("cut in the middle"), "{}", r.output);
    }
}
