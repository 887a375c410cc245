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
//!
//! A box (or review) that took the keys while the person was idle still gets a message
//! they start typing without having seen it. So the answers that act — `y` (run, apply),
//! `a` (allow for the session), `t` (trust) — are held for [`ANSWER_HOLD`]: another letter
//! within it means a message is being typed, and both letters go to the message box, the
//! box waiting as above; nothing else within it, and the answer is given.

use std::time::{Duration, Instant};

use super::app::{App, Focus};
use super::layers::{Layer, question};
use crate::protocol::events::ApprovalPreview;

/// How long after a key a question that appears leaves the keys with the message box; and
/// how long after Loom starts typed-ahead keys still count as typing.
pub const QUESTION_GRACE: Duration = Duration::from_millis(500);

/// How long a `y`, `a` or `t` answer waits for a next letter that would make it the start of a
/// message: longer than the gap between two letters of a word, short enough not to be
/// felt as a delay.
pub const ANSWER_HOLD: Duration = Duration::from_millis(300);

impl App {
    /// Whether `key` is an answer that acts (`y`, `a`, `t`) for the question or review that
    /// has the keys now: it is held (see [`ANSWER_HOLD`]).
    pub(crate) fn holds_answer(&self, key: &crossterm::event::KeyEvent) -> bool {
        use crossterm::event::{KeyCode, KeyModifiers};
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if !plain || !matches!(key.code, KeyCode::Char('y' | 'a' | 't')) {
            return false;
        }
        let question = self.layers.last().is_some_and(|l| l.is_question())
            && self.layers.answering
            && !self.layers.within_startup(Instant::now());
        let review = self.layers.last().is_none()
            && self.details.reviewing()
            && self.focus != Focus::Composer;
        question || review
    }

    /// A key came while an answer was held (at `at`): a letter soon after it means the
    /// person is typing a message, which both go to (the question or review waits); any
    /// other key, or one after [`ANSWER_HOLD`], lets the held answer be given first.
    pub(crate) fn release_held(&mut self, next: &crossterm::event::KeyEvent, now: Instant) {
        use crossterm::event::{KeyCode, KeyModifiers};
        let Some((held, at)) = self.layers.held.take() else {
            return;
        };
        let letter = matches!(next.code, KeyCode::Char(_))
            && !next
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if letter && now.saturating_duration_since(at) < ANSWER_HOLD {
            self.layers.answering = false;
            self.focus = Focus::Composer;
            self.layers.last_key = Some(now);
        }
        self.route_key(held);
    }

    /// Give the held answer once [`ANSWER_HOLD`] has passed with no letter after it (the
    /// event loop asks on every pass, and passes keep coming while one is held); true when
    /// it was given.
    pub fn give_held_answer(&mut self, now: Instant) -> bool {
        match self.layers.held {
            Some((held, at)) if now.saturating_duration_since(at) >= ANSWER_HOLD => {
                self.layers.held = None;
                self.route_key(held);
                true
            }
            _ => false,
        }
    }
}

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
