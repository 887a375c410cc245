//! The runner's answers to the person's operations: undo and redo, turning a
//! [`UserOp`] into a machine event, `/memory`, and carrying out the machine's actions
//! (moved from runner.rs).

use super::*;

impl Runner {
    pub(super) fn undo(
        &mut self,
        redo: bool,
        scope: Scope,
        apply: bool,
        force: bool,
    ) -> Option<Event> {
        if self.machine.phase() != Phase::Idle {
            self.emit(AgentEvent::Error {
                message: "undo works between turns; press Esc to stop the current turn first"
                    .into(),
            });
            return None;
        }
        let Some(changelog) = self.persistence.changelog() else {
            self.emit(AgentEvent::Error {
                message: "changes cannot be undone in this session (no data directory)".into(),
            });
            return None;
        };
        let Ok(mut log) = changelog.lock() else {
            return None;
        };
        let plan = match log.plan_step(redo, scope) {
            Ok(p) => p,
            Err(message) => {
                drop(log);
                self.emit(AgentEvent::Error { message });
                return None;
            }
        };
        if !apply {
            let event = AgentEvent::UndoPlanned {
                redo,
                diff: plan.diff(),
                files: plan.files(),
                conflicts: plan.conflicts.clone(),
            };
            drop(log);
            self.emit(event);
            return None;
        }
        let result = log.apply(&plan, force);
        drop(log);
        match result {
            Ok(files) => {
                self.emit(AgentEvent::UndoApplied {
                    redo,
                    files: files.clone(),
                });
                let what = if redo { "redid (re-applied)" } else { "undid" };
                Some(Event::Note(format!(
                    "[Loom] The user {what} your changes to: {}. Read those files again before \
                     changing them.",
                    files.join(", ")
                )))
            }
            Err(message) => {
                self.emit(AgentEvent::Error { message });
                None
            }
        }
    }

    pub(super) fn translate(&mut self, op: UserOp) -> Option<Event> {
        match op {
            UserOp::Submit { text, images } => {
                self.submit_prompt(crate::agent::events::UserInput { text, images })
            }
            UserOp::Approve { id, answer } if self.answer_command(&id, &answer) => None,
            UserOp::Approve { id, answer } => Some(Event::Answered { id, answer }),
            UserOp::Interrupt => Some(self.interrupt()),
            UserOp::SetAutonomy { autonomy } => self.set_autonomy(autonomy),
            UserOp::ApprovePlan { autonomy } => self.approve_plan(autonomy),
            UserOp::SetAutoCommit { on } => {
                self.set_auto_commit(on);
                None
            }
            UserOp::SetModel { model } => {
                self.set_model(&model);
                None
            }
            UserOp::Clear => Some(Event::Clear),
            UserOp::Undo {
                scope,
                apply,
                force,
            } => self.undo(false, scope, apply, force),
            UserOp::Redo { apply, force } => self.undo(true, Scope::Last, apply, force),
            UserOp::ListChanges => {
                self.list_changes();
                None
            }
            UserOp::Attach { path } => {
                self.attach(path);
                None
            }
            UserOp::Shell { command } => {
                self.shell(command);
                None
            }
            UserOp::ToSubAgent { parent_id, inner } => {
                self.route_to_sub_agent(&parent_id, *inner);
                None
            }
            UserOp::Memory { command } => {
                self.memory_command(command);
                None
            }
            UserOp::Shutdown => Some(Event::Shutdown),
            UserOp::Compact => Some(Event::CompactNow),
            UserOp::RewindList => {
                self.rewind_list();
                None
            }
            UserOp::Rewind {
                prompt,
                apply,
                force,
            } => {
                self.rewind(prompt, apply, force);
                None
            }
            UserOp::Fork { prompt } => {
                self.fork(prompt);
                None
            }
            UserOp::ListCustomCommands => {
                self.list_custom_commands();
                None
            }
            UserOp::RunCustomCommand { name, arguments } => {
                self.run_custom_command(&name, &arguments);
                None
            }
            UserOp::PromptHistory => {
                self.prompt_history();
                None
            }
            UserOp::Review { target, focus } => self.start_review(target, focus),
        }
    }

    /// Turn committing after each batch on or off, and say so.
    fn set_auto_commit(&mut self, on: bool) {
        self.work.hooks.set_auto_commit(on);
        let message = if on {
            "Auto-commit on: after each batch, the files Loom changed are committed"
        } else {
            "Auto-commit off"
        };
        self.emit(AgentEvent::Notice {
            message: message.into(),
        });
    }

    /// Send the undo journal's changes (none without a journal).
    fn list_changes(&mut self) {
        let changes = self
            .persistence
            .changelog()
            .and_then(|c| c.lock().ok().map(|l| l.summaries()))
            .unwrap_or_default();
        self.emit(AgentEvent::Changes { changes });
    }

    /// Esc: stop the person's `!command`, and the turn with what it streamed so far.
    fn interrupt(&mut self) -> Event {
        // A `!command` runs between turns, outside the machine: Esc stops it too.
        self.schedule.cancel_shell();
        self.stop_command();
        let partial = self.stream.partial_text();
        // The request under way was sent: the turn reports what it cost so far
        // (estimated, as the server sends usage only at the end), not zero.
        if let Some(prompt_tokens) = self.stream.inflight_prompt.take()
            && self.machine.phase() == crate::agent::events::Phase::CallingLlm
        {
            let spent = Usage {
                prompt_tokens,
                completion_tokens: partial.len().div_ceil(4) as u64,
                estimated: true,
                cached_prompt_tokens: 0,
            };
            for action in self.machine.step(Event::Spent(spent)) {
                self.perform(action);
            }
        }
        Event::Interrupt {
            partial_text: partial,
        }
    }

    /// `/model`: switch the model; another model has another window (unless the config
    /// names one), so the server is asked again.
    fn set_model(&mut self, model: &str) {
        match self.stream.switch_model(model) {
            Some(configured) => {
                self.emit(AgentEvent::Notice {
                    message: format!("Model: {model}"),
                });
                self.window.model_switched();
                if configured.is_none() {
                    self.window.tokens = None;
                    self.discover();
                }
            }
            None => self.emit(AgentEvent::Error {
                message: format!(
                    "{NO_PROVIDER_AGAIN}, so there is no model to switch to; connect one \
                     and start Loom again"
                ),
            }),
        }
    }

    /// Pass `inner` to the sub-agent of call `parent_id`, or say it is gone.
    fn route_to_sub_agent(&mut self, parent_id: &str, inner: UserOp) {
        let routed = self
            .services
            .subagents
            .as_ref()
            .is_some_and(|hub| hub.route(parent_id, inner));
        if !routed {
            self.emit(AgentEvent::Error {
                message: format!(
                    "the sub-agent of call {parent_id} is no longer running; nothing \
                     was sent to it"
                ),
            });
        }
    }

    /// Carry out a `/memory` command off the runner's task; its answer comes as a notice.
    pub(super) fn memory_command(&mut self, command: crate::protocol::memory::MemoryCommand) {
        let Some(memory) = self.services.memory.clone() else {
            self.emit(AgentEvent::Error {
                message: "long-term memory is off in this session (see the notice at start)".into(),
            });
            return;
        };
        let tx = self.internal_tx.clone();
        tokio::task::spawn_blocking(move || {
            let event = match memory.run(&command) {
                Ok(message) => AgentEvent::Notice { message },
                Err(e) => AgentEvent::Error {
                    message: format!("memory: {e}"),
                },
            };
            let _ = tx.send(Internal::Applied(event));
        });
    }

    /// Perform one action; true means stop.
    pub(super) fn perform(&mut self, action: Action) -> bool {
        match action {
            Action::CallLlm { .. } => self.call_llm(),
            Action::ScheduleRetry {
                attempt,
                max_attempts,
                reason,
                retry_after,
            } => {
                let wait = self.stream.retry_delay(attempt, retry_after);
                self.emit(AgentEvent::Retry {
                    attempt,
                    max_attempts,
                    reason,
                    wait_ms: wait.as_millis() as u64,
                });
                self.stream.start_timer(wait, &self.internal_tx);
            }
            Action::Decide { id } => self.decide(id),
            Action::AskUser { id, reason } => self.ask_user(id, reason),
            Action::RunTool { id, answer } => self.run_tool(id, answer),
            Action::Grant { id } => self.grant(&id),
            Action::RunHooks { files } => self.run_hooks(files),
            Action::RunStopHooks { stop_hook_active } => self.run_stop_hooks(stop_hook_active),
            Action::CancelLlm => self.stream.cancel(),
            Action::CancelTools => self.schedule.cancel_calls(),
            Action::CancelTimers => self.stream.cancel_timers(),
            Action::Compact => self.compact(),
            Action::Emit(event) => {
                if matches!(event, AgentEvent::TurnComplete { .. }) {
                    self.end_command_turn();
                    self.end_review_turn();
                }
                self.emit(event)
            }
            Action::Stop => return true,
        }
        false
    }
}
