//! How the machine compacts the conversation: when the window is full mid-turn (then the
//! request is made again), or when the person asks between turns (then it ends idle).

use super::*;

impl Machine {
    /// The conversation does not fit the window: compact it once, then ask again.
    pub(super) fn on_context_full(&mut self, out: &mut Vec<Action>) {
        if self.phase == Phase::CallingLlm && !self.compacted {
            self.set_phase(Phase::Compacting, out);
            out.push(Action::Compact);
        }
    }

    /// `/compact`: compact between turns; during one, the person is told to wait.
    pub(super) fn on_compact_now(&mut self, out: &mut Vec<Action>) {
        if self.phase == Phase::Idle && !self.conversation.is_empty() {
            self.compacting_on_request = true;
            self.set_phase(Phase::Compacting, out);
            out.push(Action::Compact);
        } else if self.phase != Phase::Idle {
            out.push(Action::Emit(AgentEvent::Error {
                message: "compaction runs between turns: wait for this one to end \
                          (or Esc)"
                    .into(),
            }));
        }
    }

    /// The compacted conversation replaces the old one; the request goes on, or the
    /// person's compaction ends.
    pub(super) fn on_compacted(
        &mut self,
        conversation: Vec<Message>,
        report: crate::protocol::compaction::Report,
        out: &mut Vec<Action>,
    ) {
        if self.phase == Phase::Compacting {
            self.conversation = conversation;
            out.push(Action::Emit(AgentEvent::Compacted {
                before_tokens: report.before_tokens,
                after_tokens: report.after_tokens,
                trimmed_results: report.trimmed_results,
                trimmed_calls: report.trimmed_calls,
                summarized_messages: report.summarized_messages,
                summary_failed: report.summary_failed,
            }));
            if std::mem::take(&mut self.compacting_on_request) {
                self.end_request_compaction(out);
            } else {
                self.compacted = true;
                self.call_llm(out);
            }
        }
    }

    /// Compaction failed: the turn fails, or the person's compaction ends.
    pub(super) fn on_compact_failed(&mut self, message: &str, out: &mut Vec<Action>) {
        if self.phase == Phase::Compacting {
            out.push(Action::Emit(AgentEvent::Error {
                message: format!("the conversation could not be compacted: {message}"),
            }));
            if std::mem::take(&mut self.compacting_on_request) {
                self.end_request_compaction(out);
            } else {
                self.end_turn(TurnEnd::Failed, out);
            }
        }
    }
}
