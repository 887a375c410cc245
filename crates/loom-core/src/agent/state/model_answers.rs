//! How the machine takes the model's answer: a finished response (its tool calls
//! scheduled), a cut one, and a failed request.

use super::*;

impl Machine {
    pub(super) fn on_llm_finished(
        &mut self,
        text: String,
        mut calls: Vec<ProposedCall>,
        usage: Usage,
        stop: Stop,
        out: &mut Vec<Action>,
    ) {
        self.turn_usage.add(usage);
        self.compacted = false;
        out.push(Action::Emit(AgentEvent::Usage { usage }));
        // A cut response's last call is incomplete when its arguments do not parse: it is
        // dropped, not answered with an error the model would take for a real failure.
        let dropped = stop.is_cut() && calls.last().is_some_and(|c| c.invalid.is_some());
        if dropped {
            calls.pop();
        }
        match stop {
            Stop::Complete => {}
            Stop::StreamError { message } => {
                self.on_stream_error(&message, calls.len(), dropped, out);
            }
            Stop::Length | Stop::ContentFilter => {
                return self.on_cut_response(text, calls, dropped, stop, out);
            }
        }
        if dropped && calls.is_empty() {
            // An error in the stream left nothing complete: the request failed.
            if !text.is_empty() {
                self.conversation.push(Message::Assistant {
                    content: text,
                    tool_calls: Vec::new(),
                });
            }
            self.end_turn(TurnEnd::Failed, out);
            return;
        }
        if !text.is_empty() {
            out.push(Action::Emit(AgentEvent::AssistantMessage {
                text: text.clone(),
            }));
        }
        self.conversation.push(Message::Assistant {
            content: text,
            tool_calls: calls.iter().map(|c| c.call.clone()).collect(),
        });
        if calls.is_empty() {
            self.end_answered_turn(out);
            return;
        }
        for c in &calls {
            out.push(Action::Emit(announced(c)));
        }
        self.round += 1;
        if self.round > self.limits.max_tool_rounds {
            return self.refuse_over_round_cap(&calls, out);
        }
        self.schedule_batch(calls, out);
    }

    /// The model's answer reported an error inside its stream (`calls` complete calls came
    /// before it): the person is told, and so is the model when calls are kept.
    fn on_stream_error(
        &mut self,
        message: &str,
        calls: usize,
        dropped: bool,
        out: &mut Vec<Action>,
    ) {
        if calls == 0 {
            out.push(Action::Emit(AgentEvent::Error {
                message: format!(
                    "the server reported an error inside its response ({message}) \
                     before any tool call was whole"
                ),
            }));
        } else {
            out.push(Action::Emit(AgentEvent::Error {
                message: format!(
                    "the server reported an error inside its response ({message}); \
                     the {calls} complete tool call(s) before it are kept and the model is \
                     told"
                ),
            }));
            self.note = Some(format!(
                "[loom] The server reported an error in the middle of your last \
                 response ({message}). The {calls} complete tool call(s) before it were \
                 handled as usual{}. Continue the task.",
                if dropped {
                    "; an incomplete one after them was dropped"
                } else {
                    ""
                }
            ));
        }
    }

    /// The turn used up its rounds of tool calls: `calls` are answered without running
    /// and the turn ends.
    fn refuse_over_round_cap(&mut self, calls: &[ProposedCall], out: &mut Vec<Action>) {
        let reason = format!(
            "not run: this turn reached the limit of {} tool rounds; the user must send a \
                 message to continue",
            self.limits.max_tool_rounds
        );
        for c in calls {
            let result = ToolResult::err(&reason);
            out.push(Action::Emit(AgentEvent::ToolResult {
                id: c.call.id.clone(),
                name: c.call.name.clone(),
                result: result.clone(),
                duration_ms: 0,
            }));
            self.conversation.push(tool_message(
                &c.call,
                &result,
                self.limits.tool_output_budget,
            ));
        }
        out.push(Action::Emit(AgentEvent::Error {
            message: format!(
                "Stopped: the model used {} rounds of tool calls in this turn. Send a message \
                     to let it continue.",
                self.limits.max_tool_rounds
            ),
        }));
        self.end_turn(TurnEnd::RoundCap, out);
    }

    /// Run `calls` as the new batch; invalid ones are answered with why at once.
    fn schedule_batch(&mut self, calls: Vec<ProposedCall>, out: &mut Vec<Action>) {
        self.batch = calls
            .into_iter()
            .map(|c| Slot {
                call: c.call,
                kind: c.kind,
                args: c.args,
                intent: c.intent,
                status: SlotStatus::Pending,
                result: c.invalid.map(ToolResult::err),
                note: c.note,
            })
            .collect();
        self.set_phase(Phase::ExecutingTools, out);
        let invalid: Vec<String> = self
            .batch
            .iter()
            .filter(|s| s.result.is_some())
            .map(|s| s.call.id.clone())
            .collect();
        for id in invalid {
            let result = self
                .batch
                .iter()
                .find(|s| s.call.id == id)
                .and_then(|s| s.result.clone())
                .unwrap_or_else(|| ToolResult::err("invalid call"));
            self.complete(&id, result, 0, out);
        }
        self.advance(out);
    }

    /// A response the output limit or a content filter cut: none of its calls runs (its
    /// plan was not finished, and in full-auto nobody would stop a half plan). After the
    /// limit the model is told and asked to go on, within the turn's round cap; after a
    /// filter the turn ends. A cut text answer ends the turn as truncated.
    pub(super) fn on_cut_response(
        &mut self,
        text: String,
        calls: Vec<ProposedCall>,
        dropped: bool,
        stop: Stop,
        out: &mut Vec<Action>,
    ) {
        let filtered = stop == Stop::ContentFilter;
        let why = if filtered {
            "the provider's content filter stopped your response"
        } else {
            "your response was cut off by the output token limit (finish_reason \"length\")"
        };
        if !text.is_empty() {
            out.push(Action::Emit(AgentEvent::AssistantMessage {
                text: text.clone(),
            }));
        }
        if calls.is_empty() && !dropped {
            return self.cut_text_answer(text, filtered, out);
        }
        let not_run = format!(
            "not run: {why} before it ended, so none of its {} tool call(s) ran{}. Make \
             fewer or smaller calls per response.",
            calls.len(),
            if dropped {
                " and the last, incomplete one was dropped"
            } else {
                ""
            }
        );
        out.push(Action::Emit(AgentEvent::Error {
            message: cut_message(filtered, calls.len(), dropped),
        }));
        if !text.is_empty() || !calls.is_empty() {
            // (An assistant message with neither text nor calls is refused by some servers.)
            self.conversation.push(Message::Assistant {
                content: text,
                tool_calls: calls.iter().map(|c| c.call.clone()).collect(),
            });
        }
        self.refuse_cut_calls(&calls, &not_run, out);
        if calls.is_empty() {
            self.note = Some(format!(
                "[loom] {why} in the middle of a tool call, which was dropped. Make fewer or \
                 smaller calls per response, and continue."
            ));
        }
        self.round += 1;
        self.after_cut(filtered, out);
    }

    /// A text answer (no calls) was cut: the turn ends, truncated, or failed after a filter.
    fn cut_text_answer(&mut self, text: String, filtered: bool, out: &mut Vec<Action>) {
        if !text.is_empty() {
            self.conversation.push(Message::Assistant {
                content: text,
                tool_calls: Vec::new(),
            });
        }
        let (message, end) = if filtered {
            (
                "the provider's content filter stopped the answer".to_string(),
                TurnEnd::Failed,
            )
        } else {
            (
                "the answer was cut off by the model's output token limit; ask it to \
                     continue, or raise the server's limit (max_tokens, llama-server -n)"
                    .to_string(),
                TurnEnd::Truncated,
            )
        };
        out.push(Action::Emit(AgentEvent::Error { message }));
        self.end_turn(end, out);
    }

    /// Announce the cut response's `calls` and answer each with `not_run`.
    fn refuse_cut_calls(&mut self, calls: &[ProposedCall], not_run: &str, out: &mut Vec<Action>) {
        for c in calls {
            out.push(Action::Emit(AgentEvent::ToolCall {
                id: c.call.id.clone(),
                name: c.call.name.clone(),
                arguments: serde_json::from_str(&c.call.arguments)
                    .unwrap_or_else(|_| c.args.value().clone()),
                intent: c.intent.as_ref().map(|i| Box::new(i.shown())),
            }));
            let result = ToolResult::err(not_run);
            out.push(Action::Emit(AgentEvent::ToolResult {
                id: c.call.id.clone(),
                name: c.call.name.clone(),
                result: result.clone(),
                duration_ms: 0,
            }));
            self.conversation.push(tool_message(
                &c.call,
                &result,
                self.limits.tool_output_budget,
            ));
        }
    }

    /// After a cut response's calls were answered: a filter ends the turn, the round cap
    /// stops it, else the model is asked to go on.
    fn after_cut(&mut self, filtered: bool, out: &mut Vec<Action>) {
        if filtered {
            self.end_turn(TurnEnd::Failed, out);
        } else if self.round > self.limits.max_tool_rounds {
            self.note = None;
            out.push(Action::Emit(AgentEvent::Error {
                message: format!(
                    "Stopped: the model used {} rounds of tool calls in this turn. Send a \
                     message to let it continue.",
                    self.limits.max_tool_rounds
                ),
            }));
            self.end_turn(TurnEnd::RoundCap, out);
        } else {
            self.call_llm(out);
        }
    }

    pub(super) fn on_llm_failed(&mut self, failure: Failure, out: &mut Vec<Action>) {
        if failure.overflow.is_some() && !self.compacted {
            // The server says the prompt does not fit: compact, then try once more. Its
            // words are said first: the compaction's own report may be that Loom counts the
            // conversation as fitting.
            out.push(Action::Emit(AgentEvent::Notice {
                message: format!("{}; compacting, then trying once more", failure.message),
            }));
            self.set_phase(Phase::Compacting, out);
            out.push(Action::Compact);
            return;
        }
        let Failure {
            overflow: _,
            message,
            retryable,
            partial_text,
            emitted,
            retry_after,
        } = failure;
        if retryable
            && emitted
            && !partial_text.is_empty()
            && self.attempt < self.limits.max_llm_attempts
        {
            // The connection broke mid-answer: what arrived is kept, and the model is
            // asked to go on from there rather than the turn failing.
            self.conversation.push(Message::Assistant {
                content: partial_text,
                tool_calls: Vec::new(),
            });
            // Said only when the next attempt is really sent (an Esc meanwhile leaves no
            // stale instruction behind).
            self.note = Some(
                "[loom] Your previous answer was cut off by a connection problem after the \
                 text above. Continue exactly where it stopped, without repeating it."
                    .into(),
            );
            self.attempt += 1;
            self.set_phase(Phase::Error, out);
            out.push(Action::ScheduleRetry {
                attempt: self.attempt,
                max_attempts: self.limits.max_llm_attempts,
                reason: format!("{message}; the model will continue where the answer stopped"),
                retry_after,
            });
            return;
        }
        if retryable && !emitted && self.attempt < self.limits.max_llm_attempts {
            self.attempt += 1;
            self.set_phase(Phase::Error, out);
            out.push(Action::ScheduleRetry {
                attempt: self.attempt,
                max_attempts: self.limits.max_llm_attempts,
                reason: message,
                retry_after,
            });
            return;
        }
        if !partial_text.is_empty() {
            self.conversation.push(Message::Assistant {
                content: partial_text,
                tool_calls: Vec::new(),
            });
        }
        let message = if retryable && !emitted {
            format!("{message} (gave up after {} attempts)", self.attempt)
        } else {
            message
        };
        out.push(Action::Emit(AgentEvent::Error { message }));
        self.end_turn(TurnEnd::Failed, out);
    }
}

/// The event announcing call `c`: its recorded arguments, or the text the model wrote
/// when it did not parse (the conversation records `{}` instead).
fn announced(c: &ProposedCall) -> AgentEvent {
    AgentEvent::ToolCall {
        id: c.call.id.clone(),
        name: c.call.name.clone(),
        arguments: match (&c.invalid, c.args.value()) {
            // The recorded form (credentials masked), which is the canonical
            // arguments for every tool that masks nothing.
            (None, args) => {
                serde_json::from_str(&c.call.arguments).unwrap_or_else(|_| args.clone())
            }
            (Some(_), Value::String(raw)) => Value::String(raw.clone()),
            (Some(_), _) => Value::String(c.call.arguments.clone()),
        },
        intent: c.intent.as_ref().map(|i| Box::new(i.shown())),
    }
}

/// What the person is told when a response with `calls` complete calls was cut.
fn cut_message(filtered: bool, calls: usize, dropped: bool) -> String {
    format!(
        "the model's response was cut off ({}) after {calls} complete tool call(s){}; none \
         of them was run{}",
        if filtered {
            "content filter"
        } else {
            "output token limit"
        },
        if dropped {
            " and an incomplete one"
        } else {
            ""
        },
        if filtered {
            ""
        } else {
            ", and the model is asked to continue"
        }
    )
}
