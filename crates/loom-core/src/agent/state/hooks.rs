//! How the machine takes what hooks say: a prompt a UserPromptSubmit hook blocked, and
//! the Stop hooks that may make the model go on (at most [`STOP_HOOK_CAP`] times a turn).

use super::*;

impl Machine {
    /// The model ended its turn: with Stop hooks, they run first and may make it go on.
    pub(super) fn end_answered_turn(&mut self, out: &mut Vec<Action>) {
        if self.stop_hooks {
            self.set_phase(Phase::PostToolsHook, out);
            out.push(Action::RunStopHooks {
                stop_hook_active: self.stop_continues > 0,
            });
        } else {
            self.end_turn(TurnEnd::Done, out);
        }
    }

    /// A hook blocked the person's message: they are told why, and between turns the
    /// message ends a turn that never started, coming back to them unsent.
    pub(super) fn on_prompt_blocked(
        &mut self,
        input: crate::agent::events::UserInput,
        reason: String,
        out: &mut Vec<Action>,
    ) {
        out.push(Action::Emit(AgentEvent::Error {
            message: format!(
                "your message was not sent: a UserPromptSubmit hook blocked it: {reason}"
            ),
        }));
        if self.phase == Phase::Idle {
            out.push(Action::Emit(AgentEvent::TurnComplete {
                usage: Usage::default(),
                end: TurnEnd::Failed,
                unsent: vec![input.text],
                unsent_images: input.images,
            }));
        }
    }

    /// The Stop hooks ran: a block makes the model go on with the reason (at most
    /// [`STOP_HOOK_CAP`] times a turn), else the turn ends.
    pub(super) fn on_stop_hooks_finished(&mut self, block: Option<String>, out: &mut Vec<Action>) {
        if self.phase != Phase::PostToolsHook || !self.batch.is_empty() {
            return;
        }
        match block {
            Some(reason) if self.stop_continues < STOP_HOOK_CAP => {
                self.stop_continues += 1;
                self.conversation.push(Message::user(format!(
                    "[Loom] A Stop hook did not let you end your turn yet. Its reason:\n{reason}"
                )));
                self.call_llm(out);
            }
            Some(_) => {
                out.push(Action::Emit(AgentEvent::Notice {
                    message: format!(
                        "A Stop hook blocked the end of the turn {STOP_HOOK_CAP} times; the \
                         turn ends anyway"
                    ),
                }));
                self.end_turn(TurnEnd::Done, out);
            }
            None => self.end_turn(TurnEnd::Done, out),
        }
    }
}
