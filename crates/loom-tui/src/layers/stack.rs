//! The stack of modal layers as a component: the layers (front last) and what decides
//! which of a question box and the message box has the keys (see `approvals.rs`): when the
//! person last typed, until when keys count as typed ahead at start, and whether the front
//! question is being answered.

use std::time::{Duration, Instant};

use super::Layer;
use crate::protocol::changes::Scope;

/// The modal layers and the rule that questions are answered only on purpose.
pub struct Layers {
    /// The layers, front last.
    stack: Vec<Box<dyn Layer>>,
    /// Whether a question box in front has the keys (else the message box has them; Tab
    /// switches; see `approvals.rs`).
    pub(crate) answering: bool,
    /// When the last key that did not answer a question arrived (someone typing).
    pub(crate) last_key: Option<Instant>,
    /// Until when keys count as typed ahead while Loom starts, when a question (the trust
    /// prompt) is on screen from the first frame: they go to the message box.
    pub(crate) typeahead_until: Option<Instant>,
    /// What the undo planned last covers (the confirmation says it).
    pub(crate) pending_undo: Scope,
    /// A `y`, `a` or `t` for the question or review in front, held until it is clear the
    /// person is not typing a message that begins with it (see `approvals.rs`).
    pub(crate) held: Option<(crossterm::event::KeyEvent, Instant)>,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            stack: Vec::new(),
            answering: true,
            last_key: None,
            typeahead_until: None,
            pending_undo: Scope::Last,
            held: None,
        }
    }
}

impl Layers {
    /// Put `layer` in front.
    pub fn push(&mut self, layer: Box<dyn Layer>) {
        self.stack.push(layer);
    }

    /// Take the front layer away.
    pub fn pop(&mut self) -> Option<Box<dyn Layer>> {
        self.stack.pop()
    }

    /// The front layer.
    pub fn last(&self) -> Option<&dyn Layer> {
        self.stack.last().map(|l| &**l)
    }

    /// The front layer, to hand it a key.
    pub fn last_mut(&mut self) -> Option<&mut Box<dyn Layer>> {
        self.stack.last_mut()
    }

    /// Whether no layer is up.
    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    /// How many layers are up.
    pub fn len(&self) -> usize {
        self.stack.len()
    }

    /// The layers, back first.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Layer> {
        self.stack.iter().map(|l| &**l)
    }

    /// Keep only the layers `keep` says yes to.
    pub fn retain(&mut self, keep: impl FnMut(&Box<dyn Layer>) -> bool) {
        self.stack.retain(keep);
    }

    /// Close the question about call `id` (it was answered or ended).
    pub fn close_call(&mut self, id: &str) {
        self.stack.retain(|l| l.call_id() != Some(id));
    }

    /// Close every question about a call (the turn ended).
    pub fn close_calls(&mut self) {
        self.stack.retain(|l| l.call_id().is_none());
    }

    /// Whether a layer waits for something (its spinner needs frames).
    pub fn waiting(&self) -> bool {
        self.stack.iter().any(|l| l.waiting())
    }

    /// Advance each layer's clock before a frame.
    pub fn tick(&mut self) {
        for layer in &mut self.stack {
            layer.tick();
        }
    }

    /// Whether the front layer is a question.
    fn question_in_front(&self) -> bool {
        self.stack.last().is_some_and(|l| l.is_question())
    }

    /// Whether a key arriving `now` was typed ahead while Loom started.
    pub(crate) fn within_startup(&self, now: Instant) -> bool {
        self.typeahead_until.is_some_and(|t| now < t)
    }

    /// Whether the person typed within `grace` of `now`.
    pub(crate) fn typing(&self, now: Instant, grace: Duration) -> bool {
        self.last_key
            .is_some_and(|t| now.saturating_duration_since(t) < grace)
    }

    /// Whether keys typed now would still count as typed ahead while Loom started (a
    /// question shown now waits, and is drawn waiting, until this passes).
    pub(crate) fn typeahead_window(&self) -> bool {
        self.question_in_front() && self.within_startup(Instant::now())
    }

    /// Whether the front layer is a question waiting while the message box has the keys.
    pub(crate) fn question_waits(&self) -> bool {
        !self.answering && self.question_in_front()
    }
}
