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
        let Some(changelog) = self.changelog.clone() else {
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
                Some(Event::Submit(crate::agent::events::UserInput {
                    text,
                    images,
                }))
            }
            UserOp::Approve { id, answer } => Some(Event::Answered { id, answer }),
            UserOp::Interrupt => {
                // A `!command` runs between turns, outside the machine: Esc stops it too.
                self.shell_cancel.cancel();
                self.shell_cancel = CancellationToken::new();
                let partial = self.partial.lock().map(|p| p.clone()).unwrap_or_default();
                // The request under way was sent: the turn reports what it cost so far
                // (estimated, as the server sends usage only at the end), not zero.
                if let Some(prompt_tokens) = self.inflight_prompt.take()
                    && self.machine.phase() == crate::agent::events::Phase::CallingLlm
                {
                    let spent = Usage {
                        prompt_tokens,
                        completion_tokens: partial.len().div_ceil(4) as u64,
                        estimated: true,
                    };
                    for action in self.machine.step(Event::Spent(spent)) {
                        self.perform(action);
                    }
                }
                Some(Event::Interrupt {
                    partial_text: partial,
                })
            }
            UserOp::SetAutonomy { autonomy } => {
                self.policy.autonomy = autonomy;
                if let Some(hub) = &self.subagents {
                    hub.set_autonomy(autonomy);
                }
                self.emit(AgentEvent::Notice {
                    message: format!("Approval mode: {autonomy}"),
                });
                None
            }
            UserOp::SetAutoCommit { on } => {
                self.hooks.set_auto_commit(on);
                let message = if on {
                    "Auto-commit on: after each batch, the files Loom changed are committed"
                } else {
                    "Auto-commit off"
                };
                self.emit(AgentEvent::Notice {
                    message: message.into(),
                });
                None
            }
            UserOp::SetModel { model } => {
                match &mut self.llm {
                    Some(client) => {
                        client.set_model(&model);
                        if let Some(current) = &self.current_model {
                            current.set(&model);
                        }
                        let configured = client.settings().context_window;
                        self.emit(AgentEvent::Notice {
                            message: format!("Model: {model}"),
                        });
                        // Another model has another window (unless the config names one).
                        if configured.is_none() {
                            self.context_window = None;
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
                let changes = self
                    .changelog
                    .as_ref()
                    .and_then(|c| c.lock().ok().map(|l| l.summaries()))
                    .unwrap_or_default();
                self.emit(AgentEvent::Changes { changes });
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
                let routed = self
                    .subagents
                    .as_ref()
                    .is_some_and(|hub| hub.route(&parent_id, *inner));
                if !routed {
                    self.emit(AgentEvent::Error {
                        message: format!(
                            "the sub-agent of call {parent_id} is no longer running; nothing \
                             was sent to it"
                        ),
                    });
                }
                None
            }
            UserOp::Memory { command } => {
                self.memory_command(command);
                None
            }
            UserOp::Shutdown => Some(Event::Shutdown),
            UserOp::Compact => Some(Event::CompactNow),
        }
    }

    /// Carry out a `/memory` command off the runner's task; its answer comes as a notice.
    pub(super) fn memory_command(&mut self, command: crate::protocol::memory::MemoryCommand) {
        let Some(memory) = self.memory.clone() else {
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
                let wait = self
                    .options
                    .retry
                    .delay(attempt - 1, retry_after, fastrand::f64());
                self.emit(AgentEvent::Retry {
                    attempt,
                    max_attempts,
                    reason,
                    wait_ms: wait.as_millis() as u64,
                });
                self.timer_cancel = CancellationToken::new();
                let cancel = self.timer_cancel.clone();
                let tx = self.internal_tx.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {
                            let _ = tx.send(Internal::Machine(Event::RetryElapsed));
                        }
                        _ = cancel.cancelled() => {}
                    }
                });
            }
            Action::Decide { id } => self.decide(id),
            Action::AskUser { id, reason } => self.ask_user(id, reason),
            Action::RunTool { id, answer } => self.run_tool(id, answer),
            Action::Grant { id } => {
                let kind = self.machine.call(&id).map(|c| c.kind);
                if let (Some(kind), Some(ruling)) = (kind, self.rulings.get(&id)) {
                    let message = self.policy.grant(kind, &ruling.assessment);
                    self.emit(AgentEvent::Notice { message });
                }
            }
            Action::RunHooks { files } => self.run_hooks(files),
            Action::CancelLlm => {
                self.llm_cancel.cancel();
                // A request waiting for the window or the tokeniser is not made after all.
                self.call_waiting = false;
            }
            Action::CancelTools => {
                self.tool_cancel.cancel();
                self.tool_cancel = CancellationToken::new();
                self.prepared.clear();
                self.rulings.clear();
            }
            Action::CancelTimers => self.timer_cancel.cancel(),
            Action::Compact => self.compact(),
            Action::Emit(event) => self.emit(event),
            Action::Stop => return true,
        }
        false
    }
}
