//! A proposed file change and the one way to write it.
//!
//! Write tools compute a [`FileChange`] in `preview` without touching disk; the person sees
//! its diff; [`apply`] then writes exactly that change (or the hunks they selected), after
//! checking that the file still holds what the preview was computed from. If someone edited
//! the file in between, the write is refused rather than silently clobbering their work.
//!
//! A change may also delete a file or move it (with new content); several changes from one
//! call (a multi-file patch) are written by [`apply_all`] all or nothing: every file is
//! checked before the first is written, and a failure half-way restores what was written.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ToolError, ToolResult};
use crate::base::beneath::Beneath;
use crate::base::diff::FileDiff;
use crate::base::files::{Fingerprint, MAX_EDIT_BYTES};
use crate::base::text::cut_middle;
use crate::protocol::tool_data::{ApplyPatchData, FileChangeData};
use restore::rolled_back;

mod restore;

/// Bytes of diff the model gets back after a write.
const DIFF_BUDGET: usize = 16 * 1024;

/// The current contents of the file `path` inside the workspace `root`, read beneath it
/// (no symlink followed, regular files only, at most [`MAX_EDIT_BYTES`]); `None` when it
/// does not exist yet.
pub fn read_current(root: &Path, path: &Path, shown: &str) -> Result<Option<Vec<u8>>, ToolError> {
    Ok(read_current_with_mode(root, path, shown)?.map(|(bytes, _)| bytes))
}

/// [`read_current`] with the file's permission bits.
pub fn read_current_with_mode(
    root: &Path,
    path: &Path,
    shown: &str,
) -> Result<Option<(Vec<u8>, u32)>, ToolError> {
    let io = |e: std::io::Error| ToolError::io(shown, &e);
    let beneath = Beneath::open(root).map_err(io)?;
    let rel = beneath.relative(path).map_err(io)?;
    match beneath.read_regular(rel, MAX_EDIT_BYTES) {
        Ok(found) => Ok(found),
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            Err(ToolError::IsDirectory(shown.to_string()))
        }
        Err(e) => Err(io(e)),
    }
}

/// What a change does to its file besides giving it new content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ChangeOp {
    /// Create or replace the file at `path`.
    #[default]
    Write,
    /// Delete the file at `path` (its `new` text is empty).
    Delete,
    /// Write the new text at `path` (which must not exist) and delete `from`, whose text
    /// is `old`.
    Move {
        /// Where the file is now (canonical, inside the workspace).
        from: PathBuf,
        /// That path relative to the workspace.
        from_display: String,
    },
}

/// A change to one file, computed but not yet written.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileChange {
    /// The tool that proposed it.
    pub tool: String,
    /// Where it will be written (canonical, inside the workspace).
    pub path: PathBuf,
    /// The workspace root the write goes through ([`crate::base::beneath::Beneath`]).
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
    /// Tool-specific details of the result (e.g. `edits_applied`), completed with what
    /// was written when it is.
    #[serde(default)]
    pub details: FileChangeData,
    /// Things the model should know (e.g. that a whitespace-tolerant match was used).
    pub notes: Vec<String>,
    /// Whether the file is written, deleted or moved.
    #[serde(default)]
    pub op: ChangeOp,
    /// The permission bits of the file as it is (a move keeps them; a restore puts them
    /// back), when known.
    #[serde(default)]
    pub old_mode: Option<u32>,
    /// The exact bytes of a file to be deleted (it may not be text, and `old` is decoded
    /// lossily), so a failed patch can put it back as it was.
    #[serde(skip)]
    pub old_raw: Option<Vec<u8>>,
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
            details: FileChangeData::default(),
            notes: Vec::new(),
            op: ChangeOp::Write,
            old_mode: None,
            old_raw: None,
        }
    }

    /// A change deleting the file at `path`, which holds `old_bytes` now.
    pub fn deletion(
        tool: &str,
        path: PathBuf,
        display_path: String,
        old_bytes: &[u8],
    ) -> FileChange {
        let mut change = FileChange::new(tool, path, display_path, Some(old_bytes), String::new());
        change.op = ChangeOp::Delete;
        change.old_raw = Some(old_bytes.to_vec());
        change
    }

    /// This change, made as a move from `from` (whose current bytes the change's `old`
    /// side was computed from) to its path.
    pub fn moved_from(mut self, from: PathBuf, from_display: String) -> FileChange {
        self.op = ChangeOp::Move { from, from_display };
        self
    }

    /// Whether the change deletes its file.
    pub fn deletes(&self) -> bool {
        self.op == ChangeOp::Delete
    }

    /// The workspace-relative path a move starts from.
    pub fn move_source(&self) -> Option<&str> {
        match &self.op {
            ChangeOp::Move { from_display, .. } => Some(from_display),
            _ => None,
        }
    }

    /// Entries this change takes in a review's flat hunk selection: one per hunk, and one
    /// for a change with no hunks (a pure move, deleting an empty file) so it can be
    /// chosen too.
    pub fn review_slots(&self) -> usize {
        self.diff.hunks.len().max(1)
    }

    /// The unified diff with `a/` and `b/` headers (`/dev/null` for a new file).
    pub fn unified(&self) -> String {
        let old_name = match (&self.op, &self.old) {
            (ChangeOp::Move { from_display, .. }, _) => format!("a/{from_display}"),
            (_, Some(_)) => format!("a/{}", self.display_path),
            (_, None) => "/dev/null".to_string(),
        };
        let new_name = if self.deletes() {
            "/dev/null".to_string()
        } else {
            format!("b/{}", self.display_path)
        };
        self.diff.unified(&old_name, &new_name)
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
        HunkSelection::Only(_) if change.diff.hunks.is_empty() || change.deletes() => {
            change.new.clone()
        }
        HunkSelection::Only(mask) => change
            .diff
            .apply_selected(change.old.as_deref().unwrap_or(""), mask),
    }
}

/// Write `change` (or its selected hunks) atomically, refusing if the file changed since
/// the preview. Returns the result the model reads.
pub fn apply(change: &FileChange, selection: &HunkSelection) -> Result<ToolResult, ToolError> {
    let current = check_unchanged(change)?;
    if change.deletes() {
        return delete(change);
    }
    let selection = if change.diff.hunks.is_empty() {
        &HunkSelection::All
    } else {
        selection
    };
    let (content, picked) = match selection {
        HunkSelection::All => (change.new.clone(), None),
        HunkSelection::Only(mask) => (
            content_for(change, selection),
            Some(picked_hunks(change, current.as_deref(), mask)?),
        ),
    };
    write(change, &content)?;
    Ok(written(
        change,
        current.as_deref(),
        &content,
        picked.as_ref(),
    ))
}

/// The hunks a person picked, by number, and the ones left out.
struct Picked {
    applied: Vec<usize>,
    rejected: Vec<usize>,
}

/// Which hunks `mask` picks; refused for a file that is not UTF-8 (`current`).
fn picked_hunks(
    change: &FileChange,
    current: Option<&[u8]>,
    mask: &[bool],
) -> Result<Picked, ToolError> {
    if current.is_some_and(|b| std::str::from_utf8(b).is_err()) {
        return Err(ToolError::Edit(format!(
            "{} is not valid UTF-8, so it cannot be changed hunk by hunk",
            change.display_path
        )));
    }
    let applied: Vec<usize> = mask
        .iter()
        .enumerate()
        .filter(|(_, on)| **on)
        .map(|(i, _)| i + 1)
        .collect();
    let rejected = (1..=change.diff.hunks.len())
        .filter(|i| !applied.contains(i))
        .collect();
    Ok(Picked { applied, rejected })
}

/// Write `content` to the change's file beneath its root (and, for a move, remove the
/// source; if that fails, the new copy goes again).
fn write(change: &FileChange, content: &str) -> Result<(), ToolError> {
    let io = |e: std::io::Error| ToolError::io(&change.display_path, &e);
    let beneath = Beneath::open(&change.root).map_err(io)?;
    let rel = beneath.relative(&change.path).map_err(io)?;
    let moves = matches!(change.op, ChangeOp::Move { .. });
    let mode = change.old_mode.filter(|_| moves);
    beneath
        .write_atomic(rel, content.as_bytes(), mode)
        .map_err(io)?;
    if let ChangeOp::Move { from, from_display } = &change.op {
        let gone = beneath
            .relative(from)
            .and_then(|rel| beneath.remove_file(rel));
        if let Err(e) = gone {
            // The move is half done: take the new copy back, leaving the file where it was.
            let _ = beneath.remove_file(rel);
            return Err(ToolError::io(from_display, &e));
        }
    }
    Ok(())
}

/// The result the model reads once `content` was written over `current`: what changed,
/// the diff (cut in the middle past its budget) and, for picked hunks, which were left out.
fn written(
    change: &FileChange,
    current: Option<&[u8]>,
    content: &str,
    picked: Option<&Picked>,
) -> ToolResult {
    let partial = picked.map(|_| {
        FileChange::new(
            &change.tool,
            change.path.clone(),
            change.display_path.clone(),
            current,
            content.to_string(),
        )
    });
    let written = partial.as_ref().unwrap_or(change);
    let written_diff = written.unified();
    let (diff_text, cut) = cut_middle(&written_diff, DIFF_BUDGET);
    let mut data = FileChangeData {
        path: change.display_path.clone(),
        bytes_written: Some(content.len() as u64),
        created: Some(change.creates()),
        lines_added: Some(written.diff.added() as u64),
        lines_removed: written.diff.removed() as u64,
        diff: Some(diff_text.clone()),
        diff_cut: cut,
        moved_from: change.move_source().map(str::to_string),
        ..change.details.clone()
    };
    let applied_note = picked.map(|p| {
        // A count of edits, or the proposal's size, would describe the proposal.
        data.edits_applied = None;
        if data.new_bytes.is_some() {
            data.new_bytes = Some(content.len() as u64);
        }
        data.hunks_applied = Some(p.applied.clone());
        data.hunks_rejected = Some(p.rejected.clone());
        format!(
            "the user applied only hunk(s) {:?} of the {} proposed; hunk(s) {:?} were \
             rejected and are not in the file (the diff shows exactly what was written)",
            p.applied,
            change.diff.hunks.len(),
            p.rejected
        )
    });
    let verb = match change.move_source() {
        Some(from) => format!("Moved {from} to"),
        None if change.creates() => "Created".to_string(),
        None => "Updated".to_string(),
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
    let mut files = vec![change.display_path.clone()];
    files.extend(change.move_source().map(str::to_string));
    ToolResult::ok(output).with(&data).with_files(files)
}

/// The bytes the change's source file holds now, refusing when they are not what the
/// preview was computed from (and, for a move, when its destination appeared meanwhile).
fn check_unchanged(change: &FileChange) -> Result<Option<Vec<u8>>, ToolError> {
    let (source, shown) = match &change.op {
        ChangeOp::Move { from, from_display } => (from, from_display),
        _ => (&change.path, &change.display_path),
    };
    let current = read_current(&change.root, source, shown)?;
    if current.as_deref().map(Fingerprint::of) != change.old_fingerprint {
        return Err(ToolError::Stale(shown.clone()));
    }
    if change.move_source().is_some()
        && read_current(&change.root, &change.path, &change.display_path)?.is_some()
    {
        return Err(ToolError::Edit(format!(
            "{} appeared after the move was previewed; nothing was moved",
            change.display_path
        )));
    }
    Ok(current)
}

fn delete(change: &FileChange) -> Result<ToolResult, ToolError> {
    let io = |e: std::io::Error| ToolError::io(&change.display_path, &e);
    let beneath = Beneath::open(&change.root).map_err(io)?;
    let rel = beneath.relative(&change.path).map_err(io)?;
    beneath.remove_file(rel).map_err(io)?;
    let removed = change.diff.removed();
    let data = FileChangeData {
        path: change.display_path.clone(),
        deleted: Some(true),
        lines_removed: removed as u64,
        ..FileChangeData::default()
    };
    Ok(ToolResult::ok(format!(
        "Deleted {} (-{removed} lines)",
        change.display_path
    ))
    .with(&data)
    .with_files(vec![change.display_path.clone()]))
}

/// Which part of each change a flat review selection picks (`None`: the file is left
/// alone). Each change takes [`FileChange::review_slots`] entries, in order; a single
/// change takes the selection as it is.
pub fn split_selection(
    changes: &[FileChange],
    selection: &HunkSelection,
) -> Result<Vec<Option<HunkSelection>>, ToolError> {
    let mask = match selection {
        HunkSelection::All => return Ok(vec![Some(HunkSelection::All); changes.len()]),
        HunkSelection::Only(mask) => mask,
    };
    if let [_] = changes {
        let any = mask.iter().any(|on| *on) || mask.is_empty();
        return Ok(vec![any.then(|| selection.clone())]);
    }
    let wanted: usize = changes.iter().map(FileChange::review_slots).sum();
    if mask.len() != wanted {
        return Err(ToolError::InvalidArguments(format!(
            "the selection has {} entries but the change has {wanted} hunks",
            mask.len()
        )));
    }
    let mut at = 0;
    Ok(changes
        .iter()
        .map(|c| {
            let part = &mask[at..at + c.review_slots()];
            at += c.review_slots();
            if part.iter().all(|on| *on) {
                Some(HunkSelection::All)
            } else if part.iter().any(|on| *on) {
                Some(HunkSelection::Only(part.to_vec()))
            } else {
                None
            }
        })
        .collect())
}

/// Write several changes from one call, all or nothing: each selected file is checked
/// against its preview before anything is written, and if a write fails the files already
/// written are put back. A single change is [`apply`] itself.
pub fn apply_all(
    changes: &[FileChange],
    selection: &HunkSelection,
) -> Result<ToolResult, ToolError> {
    if let [one] = changes {
        return apply(one, selection);
    }
    apply_each(changes, selection, apply)
}

/// [`apply_all`] with the one-file write given (so the restore after a failed write can be
/// tested: on a real disk every failure it could meet is caught by the checks first).
fn apply_each(
    changes: &[FileChange],
    selection: &HunkSelection,
    write: impl Fn(&FileChange, &HunkSelection) -> Result<ToolResult, ToolError>,
) -> Result<ToolResult, ToolError> {
    let parts = split_selection(changes, selection)?;
    let chosen: Vec<(&FileChange, HunkSelection)> = changes
        .iter()
        .zip(parts)
        .filter_map(|(c, part)| part.map(|p| (c, p)))
        .collect();
    for (change, _) in &chosen {
        check_unchanged(change)?;
        if change.creates()
            && read_current(&change.root, &change.path, &change.display_path)?.is_some()
        {
            return Err(ToolError::Stale(change.display_path.clone()));
        }
    }
    // Deletions last: a failure before them needs no deleted file brought back.
    let mut order: Vec<usize> = (0..chosen.len()).collect();
    order.sort_by_key(|&i| chosen[i].0.deletes());
    let mut results: Vec<Option<ToolResult>> = vec![None; chosen.len()];
    for (k, &i) in order.iter().enumerate() {
        let (change, part) = &chosen[i];
        match write(change, part) {
            Ok(result) => results[i] = Some(result),
            Err(e) => {
                return Err(rolled_back(
                    &e,
                    order[..k].iter().rev().map(|&j| chosen[j].0),
                ));
            }
        }
    }
    let results: Vec<ToolResult> = results.into_iter().flatten().collect();
    let skipped = changes.len() - chosen.len();
    let mut output = format!(
        "Applied the patch to {} file(s){}:",
        chosen.len(),
        if skipped > 0 {
            format!(" ({skipped} rejected by the user and left alone)")
        } else {
            String::new()
        }
    );
    let mut files = Vec::new();
    let mut data = Vec::new();
    for r in results {
        output.push('\n');
        output.push_str(&r.output);
        if let Some(d) = r.data_as::<FileChangeData>() {
            data.push(d);
        }
        files.extend(r.files_changed);
    }
    let rejected: Vec<&str> = changes
        .iter()
        .filter(|c| !chosen.iter().any(|(k, _)| std::ptr::eq(*k, *c)))
        .map(|c| c.display_path.as_str())
        .collect();
    let summary = ApplyPatchData {
        lines_added: data.iter().filter_map(|d| d.lines_added).sum(),
        lines_removed: data.iter().map(|d| d.lines_removed).sum(),
        files: data,
        files_rejected: rejected.into_iter().map(str::to_string).collect(),
    };
    Ok(ToolResult::ok(output).with(&summary).with_files(files))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        c.details.edits_applied = Some(3);
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

    /// A write failing half-way through a multi-file change puts back every file already
    /// written (old text restored, created file removed), so nothing changed.
    #[test]
    fn a_failed_write_in_a_set_restores_the_files_written_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, "a\n").unwrap();
        let changes = vec![
            FileChange::new(
                "apply_patch",
                a.clone(),
                "a.txt".into(),
                Some(b"a\n"),
                "A\n".into(),
            ),
            FileChange::new(
                "apply_patch",
                dir.path().join("n.txt"),
                "n.txt".into(),
                None,
                "n\n".into(),
            ),
            FileChange::new(
                "apply_patch",
                dir.path().join("z.txt"),
                "z.txt".into(),
                None,
                "z\n".into(),
            ),
        ];
        let err = apply_each(&changes, &HunkSelection::All, |c, s| {
            if c.display_path == "z.txt" {
                Err(ToolError::Other("disk full".into()))
            } else {
                apply(c, s)
            }
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert!(
            err.to_string().contains("restored, so nothing changed"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a\n");
        assert!(!dir.path().join("n.txt").exists());
        assert!(!dir.path().join("z.txt").exists());
    }

    /// Review finding: restoring a deleted file after a later failure wrote back its
    /// lossily decoded text (a binary file was corrupted) with 0644.
    #[test]
    fn a_restored_deletion_gets_its_exact_bytes_and_mode_back() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("logo.png");
        let raw = b"\x89PNG\r\n\x1a\n\xff\xfe\x00binary".to_vec();
        std::fs::write(&bin, &raw).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o640)).unwrap();
        let other = dir.path().join("z.txt");
        std::fs::write(&other, "z\n").unwrap();
        let mut gone = FileChange::deletion("apply_patch", bin.clone(), "logo.png".into(), &raw);
        gone.old_mode = Some(0o640);
        let changes = vec![
            gone,
            FileChange::deletion("apply_patch", other.clone(), "z.txt".into(), b"z\n"),
        ];
        let err = apply_each(&changes, &HunkSelection::All, |c, s| {
            if c.display_path == "z.txt" {
                Err(ToolError::Other("disk gone".into()))
            } else {
                apply(c, s)
            }
        })
        .unwrap_err();
        assert!(err.to_string().contains("restored"), "{err}");
        assert_eq!(std::fs::read(&bin).unwrap(), raw);
        let mode = std::fs::metadata(&bin).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    /// Review finding: when putting files back failed, every journal entry was voided, so
    /// `/undo` could not take back what stayed changed. The error names those files, and
    /// the result carries them.
    #[test]
    fn a_partly_applied_set_names_the_files_that_stay_changed() {
        let result = ToolResult::from(ToolError::Partial {
            message: "half done".into(),
            changed: vec!["a.txt".into()],
        });
        assert!(!result.success);
        assert_eq!(result.error.as_deref(), Some("half done"));
        assert_eq!(result.files_changed, vec!["a.txt"]);
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
