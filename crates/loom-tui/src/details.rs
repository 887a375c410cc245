//! The details pane's diffs as a component: every call's diff (a preview waiting for review
//! or a change applied), the order changes were applied in (for `/diff`) and the diff view
//! showing one of them. The app hands it the agent's file events and the selected call; it
//! keeps the view in step without comparing diffs on each frame.

use std::collections::HashMap;

use super::call_diff::{CallDiff, DiffFile};
use super::diff_view::DiffView;
use crate::protocol::events::{AgentEvent, ApprovalPreview};

/// The diffs of the session's calls and the view of the selected one.
#[derive(Default)]
pub struct Details {
    /// The selected call's diff, or the change waiting for review.
    pub view: DiffView,
    /// Per-call diffs (previews and applied changes).
    pub diffs: HashMap<String, CallDiff>,
    /// Order of applied changes, for `/diff`.
    pub applied: Vec<String>,
    /// The call whose diff the view holds (so a frame never compares diffs).
    pub(crate) shown: Option<String>,
}

impl Details {
    /// Whether a change waits for review.
    pub fn reviewing(&self) -> bool {
        self.view.reviewing.is_some()
    }

    /// Whether the details area shows a diff for the selected call `current` (rather than
    /// its output).
    pub fn visible(&self, current: Option<&str>) -> bool {
        self.reviewing() || current.is_some_and(|id| self.diffs.contains_key(id))
    }

    /// Show the diff of the selected call `current`, if it has one. Cheap when nothing
    /// changed: only the call ids are compared.
    pub fn sync(&mut self, current: Option<&str>) {
        let Some(id) = current else {
            return;
        };
        if self.view.reviewing.as_deref().is_some_and(|r| r != id) {
            return;
        }
        if self.shown.as_deref() == Some(id) {
            return;
        }
        match self.diffs.get(id) {
            Some(d) => {
                let reviewing = self.view.reviewing.clone().filter(|r| r == id);
                self.view.show_files(&d.files, reviewing);
                self.shown = Some(id.to_string());
            }
            None => {
                if self.view.reviewing.is_none() {
                    self.view = DiffView::default();
                    self.shown = None;
                }
            }
        }
    }

    /// The person answered about call `id`: stop reviewing it. True when it was the change
    /// under review.
    pub fn resolve_review(&mut self, id: &str) -> bool {
        if self.view.reviewing.as_deref() != Some(id) {
            return false;
        }
        self.view.reviewing = None;
        self.view.invalidate();
        true
    }

    /// The turn ended: no change waits for review any more.
    pub fn end_reviews(&mut self) {
        if self.view.reviewing.is_some() {
            self.view.reviewing = None;
            self.view.invalidate();
        }
    }

    /// Forget every diff (another session is shown).
    pub fn clear(&mut self) {
        self.view = DiffView::default();
        self.shown = None;
        self.diffs.clear();
        self.applied.clear();
    }

    /// Take `event` if it is the details pane's own (a file a call wrote).
    pub fn on_agent_event(&mut self, event: AgentEvent) {
        if let AgentEvent::ChangeApplied {
            id,
            path,
            hunks,
            creates,
            deleted,
            moved_from,
        } = event
        {
            let file = DiffFile {
                path,
                hunks,
                notes: Vec::new(),
                creates,
                deletes: deleted,
                moved_from,
            };
            self.on_change_applied(id, file);
        }
    }

    /// A file of call `id` was written: the structured diff of exactly what was written,
    /// shown whole, never parsed back from the model's (possibly cut) text. A call that
    /// wrote several files sends one event per file, one after the other.
    pub fn on_change_applied(&mut self, id: String, file: DiffFile) {
        match self.diffs.get_mut(&id) {
            Some(d) if self.applied.last() == Some(&id) => d.files.push(file),
            _ => {
                self.diffs
                    .insert(id.clone(), CallDiff { files: vec![file] });
                self.applied.push(id.clone());
            }
        }
        if self.shown.as_deref() == Some(id.as_str()) {
            self.shown = None;
        }
    }

    /// Call `id` asks to change files: show the change for review. Gives the preview back
    /// when it is not a file change (a question box asks instead).
    pub fn review(&mut self, id: &str, preview: ApprovalPreview) -> Option<ApprovalPreview> {
        match preview {
            ApprovalPreview::FileChange {
                path,
                diff,
                creates,
                notes,
                ..
            } => {
                self.diffs.insert(
                    id.to_string(),
                    CallDiff::single(
                        path.clone(),
                        std::sync::Arc::new(diff.hunks.clone()),
                        notes.clone(),
                        creates,
                    ),
                );
                self.view
                    .show_diff(&path, &diff, Some(id.to_string()), notes, creates);
            }
            ApprovalPreview::Files { files } => {
                let files: Vec<DiffFile> = files
                    .into_iter()
                    .map(|f| DiffFile {
                        path: f.path,
                        hunks: std::sync::Arc::new(f.diff.hunks),
                        notes: f.notes,
                        creates: f.creates,
                        deletes: f.deletes,
                        moved_from: f.moved_from,
                    })
                    .collect();
                self.view.show_files(&files, Some(id.to_string()));
                self.diffs.insert(id.to_string(), CallDiff { files });
            }
            other => return Some(other),
        }
        self.shown = Some(id.to_string());
        None
    }
}
