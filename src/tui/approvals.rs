//! Questions the agent asks (run this command? reach this domain? call this MCP tool?
//! schedule this job? apply this change?) and the rule that they are answered only on
//! purpose.
//!
//! A box takes the keyboard when it appears only if the person has not typed in the last
//! [`QUESTION_GRACE`]: someone typing "also add a test" as a command box appears keeps
//! typing into the message box, and the box waits, saying so, until they press `Tab` (which
//! moves between the box and the message box, as for the diff review). While the message
//! box has the keys, nothing typed answers the box. Keys typed ahead while Loom starts (a
//! trust prompt is up from the first frame) go to the message box the same way.

use std::time::{Duration, Instant};

use super::app::{App, Focus};
use super::call_diff::{CallDiff, DiffFile};
use super::layers::{CommandApproval, Layer, McpApproval, NetworkApproval, ScheduleApproval};
use super::tools_pane::ToolStatus;
use crate::agent::ApprovalPreview;

/// How long after a key a question that appears leaves the keys with the message box; and
/// how long after Loom starts typed-ahead keys still count as typing.
pub const QUESTION_GRACE: Duration = Duration::from_millis(500);

impl App {
    /// The agent asks before a call: mark it, and show the diff review or a question box.
    pub(crate) fn on_approval_request(
        &mut self,
        id: String,
        name: String,
        reason: String,
        preview: ApprovalPreview,
    ) {
        if let Some(row) = self.tools.row_mut(&id) {
            row.status = ToolStatus::Awaiting;
        }
        self.mark(&id);
        if let Some(i) = self.tools.rows.iter().rposition(|r| r.id == id) {
            self.tools.selected = i;
        }
        match preview {
            ApprovalPreview::FileChange {
                path,
                diff,
                creates,
                notes,
                ..
            } => {
                self.diffs.insert(
                    id.clone(),
                    CallDiff::single(
                        path.clone(),
                        std::sync::Arc::new(diff.hunks.clone()),
                        notes.clone(),
                        creates,
                    ),
                );
                self.diff
                    .show_diff(&path, &diff, Some(id.clone()), notes, creates);
                self.diff_call = Some(id.clone());
                self.review_takes_focus();
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
                self.diff.show_files(&files, Some(id.clone()));
                self.diffs.insert(id.clone(), CallDiff { files });
                self.diff_call = Some(id.clone());
                self.review_takes_focus();
            }
            ApprovalPreview::Command {
                command,
                cwd,
                risk,
                risk_reason,
                grant_prefix,
                network,
                outside_sandbox,
                ..
            } => {
                self.push_question(Box::new(CommandApproval {
                    id,
                    command,
                    cwd,
                    risk: Some(risk),
                    risk_reason,
                    reason,
                    grant_prefix,
                    network,
                    outside_sandbox,
                    scroll: 0,
                    max_scroll: Default::default(),
                    shown: Default::default(),
                }));
            }
            ApprovalPreview::Network {
                method,
                url,
                domain,
                risk,
                risk_reason,
            } => {
                self.push_question(Box::new(NetworkApproval {
                    id,
                    tool: name,
                    method,
                    url,
                    domain,
                    risk,
                    risk_reason,
                    reason,
                }));
            }
            ApprovalPreview::McpTool {
                server,
                tool,
                arguments,
                read_only_hint,
                grant_offered,
            } => {
                self.push_question(Box::new(McpApproval {
                    id,
                    server,
                    tool,
                    arguments,
                    read_only_hint,
                    reason,
                    grant_offered,
                }));
            }
            ApprovalPreview::Schedule { change } => {
                self.push_question(Box::new(ScheduleApproval { id, change, reason }));
            }
            ApprovalPreview::Other { arguments } => {
                self.push_question(Box::new(CommandApproval {
                    id,
                    command: format!("{name} {arguments}"),
                    cwd: ".".into(),
                    risk: None,
                    risk_reason: reason.clone(),
                    reason,
                    grant_prefix: None,
                    network: false,
                    outside_sandbox: false,
                    scroll: 0,
                    max_scroll: Default::default(),
                    shown: Default::default(),
                }));
            }
        }
    }

    /// Whether a key arriving `now` was typed ahead while Loom started.
    fn within_startup(&self, now: Instant) -> bool {
        self.typeahead_until.is_some_and(|t| now < t)
    }

    /// Whether the person typed within [`QUESTION_GRACE`] of `now`.
    fn typing(&self, now: Instant) -> bool {
        self.last_key
            .is_some_and(|t| now.saturating_duration_since(t) < QUESTION_GRACE)
    }

    /// Put a question on the layer stack: it takes the keys unless the person is typing.
    pub(crate) fn push_question(&mut self, layer: Box<dyn Layer>) {
        self.answering = !self.typing(Instant::now());
        if !self.answering {
            self.focus = Focus::Composer;
        }
        self.layers.push(layer);
    }

    /// A file change waits for review: the review takes the keys unless the person is
    /// typing (then `Tab` reaches it, as the message box's title says).
    fn review_takes_focus(&mut self) {
        if !self.typing(Instant::now()) {
            self.focus = Focus::Details;
        }
    }

    /// Whether keys typed now would still count as typed ahead while Loom started (a
    /// question shown now waits, and is drawn waiting, until this passes).
    pub(crate) fn typeahead_window(&self) -> bool {
        self.layers.last().is_some_and(|l| l.is_question()) && self.within_startup(Instant::now())
    }

    /// Whether the front layer is a question waiting while the message box has the keys.
    pub(crate) fn question_waits(&self) -> bool {
        !self.answering && self.layers.last().is_some_and(|l| l.is_question())
    }

    /// Route a key when the front layer is a question; `None` when the key was handled
    /// here (Tab moving between the box and the message box), `Some(true)` when it goes to
    /// the box, `Some(false)` when it goes on to the message box.
    pub(crate) fn question_key(&mut self, key: &crossterm::event::KeyEvent) -> Option<bool> {
        use crossterm::event::{KeyCode, KeyModifiers};
        let now = Instant::now();
        if matches!(key.code, KeyCode::Tab | KeyCode::BackTab)
            && !key.modifiers.contains(KeyModifiers::CONTROL)
        {
            self.answering = !self.answering;
            self.focus = Focus::Composer;
            return None;
        }
        // Typed ahead while Loom was starting (a trust prompt is up from the first
        // frame): meant for the message box.
        if self.answering && self.within_startup(now) {
            self.answering = false;
            self.focus = Focus::Composer;
        }
        Some(self.answering)
    }
}
