//! `/review` and `loom review` (issue 28): one turn in read-only mode with the review
//! prompt over a diff (only read-only tools offered, the policy refusing the rest), the
//! mode the person had coming back when the turn ends, and the findings parsed from the
//! answer sent as [`AgentEvent::ReviewFindings`] just before the turn's end.

use super::*;
use crate::policy::Autonomy;
use crate::protocol::review::{ReviewTarget, parse_findings};

/// A review turn under way.
pub(super) struct ReviewTurn {
    /// The mode to go back to when the turn ends.
    restore: Autonomy,
    /// The answer's text so far (every assistant message of the turn).
    answer: String,
}

/// The kinds of tool offered in a review turn: those that only read, and `bash` (the
/// read-only policy runs only read-only commands).
pub(super) fn offered_in_review(kind: ToolKind) -> bool {
    matches!(kind, ToolKind::Read | ToolKind::Execute)
}

impl Runner {
    /// Start a review of `target` (between turns only): compute its diff, switch to
    /// read-only mode for one turn and send the review prompt.
    pub(super) fn start_review(&mut self, target: ReviewTarget, focus: String) -> Option<Event> {
        if self.machine.phase() != Phase::Idle || self.review.is_some() || self.custom.expanding {
            self.emit(AgentEvent::Error {
                message: "a review runs between turns: wait for this one or stop it (Esc)".into(),
            });
            return None;
        }
        let Some(root) = self
            .work
            .ctx
            .workspace
            .as_deref()
            .map(|c| c.root().to_path_buf())
        else {
            self.emit(AgentEvent::Error {
                message: "cannot review: this session has no workspace".into(),
            });
            return None;
        };
        let diff = match crate::review::diff_for(&root, &target) {
            Ok(diff) => diff,
            Err(e) => {
                self.emit(AgentEvent::Error {
                    message: e.to_string(),
                });
                return None;
            }
        };
        let restore = self.work.policy.autonomy;
        self.review = Some(ReviewTurn {
            restore,
            answer: String::new(),
        });
        self.set_review_autonomy(Autonomy::ReadOnly);
        self.emit(AgentEvent::Notice {
            message: format!("Reviewing {target} in read-only mode"),
        });
        // Loom's own prompt, like an approved plan's: sent straight to the machine, so the
        // turn (and the mode's restoring at its end) always happens. The chat shows one
        // line; the instructions and the diff (up to 200 KiB) go to the model after it.
        let shown = match focus.trim() {
            "" => format!("Review {target}"),
            focus => format!("Review {target}, focusing on: {focus}"),
        };
        Some(Event::SubmitWithContext {
            input: crate::agent::events::UserInput::from(shown),
            context: Some(crate::review::prompt_for(&target, &diff, &focus)),
        })
    }

    /// Keep the review turn's answer text as it comes.
    pub(super) fn review_saw(&mut self, event: &AgentEvent) {
        if let (Some(turn), AgentEvent::AssistantMessage { text }) = (&mut self.review, event) {
            turn.answer.push_str(text);
            turn.answer.push('\n');
        }
    }

    /// A turn ended: if it was a review, the mode comes back (unless the person changed
    /// it during the turn) and the findings are sent.
    pub(super) fn end_review_turn(&mut self) {
        let Some(turn) = self.review.take() else {
            return;
        };
        if self.work.policy.autonomy == Autonomy::ReadOnly {
            self.set_review_autonomy(turn.restore);
        }
        let findings = parse_findings(&turn.answer);
        self.emit(AgentEvent::ReviewFindings { findings });
    }

    /// Whether the next request offers only the review's tools.
    pub(super) fn reviewing(&self) -> bool {
        self.review.is_some()
    }

    fn set_review_autonomy(&mut self, autonomy: Autonomy) {
        self.work.policy.autonomy = autonomy;
        if let Some(hub) = &self.services.subagents {
            hub.set_autonomy(autonomy);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_offers_reads_and_commands_only() {
        assert!(offered_in_review(ToolKind::Read));
        assert!(offered_in_review(ToolKind::Execute));
        for kind in [
            ToolKind::Write,
            ToolKind::Network,
            ToolKind::Mcp,
            ToolKind::Schedule,
        ] {
            assert!(!offered_in_review(kind), "{kind:?}");
        }
    }
}
