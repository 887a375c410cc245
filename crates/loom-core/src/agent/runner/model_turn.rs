//! The runner's model requests: waiting for the window and the tokeniser, fitting the
//! conversation, streaming the answer into machine events (moved from runner.rs).

use super::*;

impl Runner {
    pub(super) fn call_llm(&mut self) {
        self.call_waiting = false;
        if (self.discovering && self.context_window.is_none()) || self.wait_for_tokenizer() {
            self.call_waiting = true;
            return;
        }
        let Some(client) = self.llm.clone() else {
            let message = if std::mem::replace(&mut self.told_no_provider, true) {
                NO_PROVIDER_AGAIN.to_string()
            } else {
                self.no_provider_message.clone()
            };
            let tx = self.internal_tx.clone();
            let _ = tx.send(Internal::Machine(Event::LlmFailed {
                message,
                retryable: false,
                partial_text: String::new(),
                emitted: false,
                retry_after: None,
                overflow: None,
            }));
            return;
        };
        self.inflight_prompt = None;
        // Tools of MCP servers come and go: each request offers the ones there now, as
        // many as the window affords.
        self.choose_prefix();
        self.record_loaded_tools();
        let mut messages = Vec::with_capacity(self.machine.conversation().len() + 1);
        messages.push(Message::System {
            content: self.sent_system.clone(),
        });
        messages.extend_from_slice(self.machine.conversation());
        let counted = match &mut self.tokenizer {
            Some((tokenizer, Loaded::Yes)) => Some(tokenizer.count(&messages, &self.tool_schemas)),
            _ => None,
        };
        if let Some(tokens) = counted {
            // The budget counts in characters; the tokeniser's count sets their worth.
            let chars = self.budget(1).overhead_chars
                + self
                    .machine
                    .conversation()
                    .iter()
                    .map(Message::char_len)
                    .sum::<usize>();
            let tokens = (tokens as f64 * self.tokenizer_correction).max(1.0);
            self.chars_per_token = (chars as f64 / tokens).clamp(0.5, 16.0);
        }
        if let Some(window) = self.context_window
            && !self.machine.compacted()
            && self.budget(window).is_full(self.machine.conversation())
        {
            let _ = self.internal_tx.send(Internal::Machine(Event::ContextFull));
            return;
        }
        let tools = self.tool_schemas.clone();
        let registry = self.registry.clone();
        self.llm_cancel = CancellationToken::new();
        let cancel = self.llm_cancel.clone();
        self.partial = Arc::new(Mutex::new(String::new()));
        let partial = self.partial.clone();
        let chars_per_token = self.chars_per_token;
        let schema_chars = self.schema_chars;
        let sent_chars = messages.iter().map(Message::char_len).sum::<usize>() + schema_chars;
        self.inflight_prompt =
            Some(counted.unwrap_or((sent_chars as f64 / chars_per_token) as u64));
        let events = self.events.clone();
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let prompt_chars: usize =
                messages.iter().map(Message::char_len).sum::<usize>() + schema_chars;
            let mut sink = |ev: StreamEvent| match ev {
                StreamEvent::Text(text) => {
                    if let Ok(mut p) = partial.lock() {
                        p.push_str(&text);
                    }
                    let _ = events.send(AgentEvent::TextDelta { text });
                }
                StreamEvent::Reasoning(text) => {
                    let _ = events.send(AgentEvent::ReasoningDelta { text });
                }
                StreamEvent::Notice(message) => {
                    let _ = events.send(AgentEvent::Notice { message });
                }
            };
            let req = ChatRequest {
                messages: &messages,
                tools: &tools,
            };
            let event = match client.stream(req, &cancel, &mut sink).await {
                Ok(out) => {
                    let completion_chars = out.text.len()
                        + out
                            .calls
                            .iter()
                            .map(|c| c.call.arguments.len())
                            .sum::<usize>();
                    if let Some(u) = out.usage.filter(|u| !u.estimated && u.prompt_tokens > 0) {
                        let calibration = match counted {
                            Some(n) => Calibration::Tokenizer {
                                ratio: u.prompt_tokens as f64 / n.max(1) as f64,
                                chars: prompt_chars as f64 / u.prompt_tokens as f64,
                            },
                            None => {
                                Calibration::Chars(prompt_chars as f64 / u.prompt_tokens as f64)
                            }
                        };
                        let _ = tx.send(Internal::Calibrated(calibration));
                    }
                    let usage = out.usage.unwrap_or_else(|| {
                        let mut usage = Usage::estimate(prompt_chars, completion_chars);
                        if let Some(n) = counted {
                            usage.prompt_tokens = n;
                        }
                        usage
                    });
                    Event::LlmFinished {
                        text: out.text,
                        calls: resolve_calls(out.calls, &registry),
                        usage,
                        stop: out.stop,
                    }
                }
                Err(failure) if matches!(failure.error, LlmError::Cancelled) => return,
                Err(failure) => {
                    // A response that had begun (or was cut or stopped mid-way) cost its
                    // prompt even when nothing visible arrived yet.
                    let begun = failure.emitted
                        || !failure.partial_text.is_empty()
                        || matches!(failure.error, LlmError::StreamCut(_) | LlmError::Limit(_));
                    if begun {
                        // The server had begun to answer: the attempt cost tokens, which a
                        // failed turn reports (as an estimate) rather than zero.
                        let usage = Usage {
                            prompt_tokens: (prompt_chars as f64 / chars_per_token) as u64,
                            completion_tokens: failure.partial_text.len().div_ceil(4) as u64,
                            estimated: true,
                        };
                        let _ = tx.send(Internal::Machine(Event::Spent(usage)));
                    }
                    Event::LlmFailed {
                        message: failure.error.to_string(),
                        retryable: failure.error.retryable(),
                        retry_after: failure.error.retry_after(),
                        overflow: failure.error.overflow(),
                        partial_text: failure.partial_text,
                        emitted: failure.emitted,
                    }
                }
            };
            let _ = tx.send(Internal::Machine(event));
        });
    }
}
