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
use super::layers::{Layer, question};
use crate::protocol::events::ApprovalPreview;

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
        self.tools.on_awaiting(&id);
        self.mark(&id);
        match self.details.review(&id, preview) {
            None => self.review_takes_focus(),
            Some(preview) => {
                if let Some(question) = question(id, name, reason, preview) {
                    self.push_question(question);
                }
            }
        }
    }

    /// Whether the person typed within [`QUESTION_GRACE`] of `now`.
    fn typing(&self, now: Instant) -> bool {
        self.layers.typing(now, QUESTION_GRACE)
    }

    /// Put a question on the layer stack: it takes the keys unless the person is typing.
    pub(crate) fn push_question(&mut self, layer: Box<dyn Layer>) {
        self.layers.answering = !self.typing(Instant::now());
        if !self.layers.answering {
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
        self.layers.typeahead_window()
    }

    /// Whether the front layer is a question waiting while the message box has the keys.
    pub(crate) fn question_waits(&self) -> bool {
        self.layers.question_waits()
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
            self.layers.answering = !self.layers.answering;
            self.focus = Focus::Composer;
            return None;
        }
        // Typed ahead while Loom was starting (a trust prompt is up from the first
        // frame): meant for the message box.
        if self.layers.answering && self.layers.within_startup(now) {
            self.layers.answering = false;
            self.focus = Focus::Composer;
        }
        Some(self.layers.answering)
    }
}
