//! The runner's model requests: waiting for the window and the tokeniser, fitting the
//! conversation, streaming the answer into machine events.

use super::window::{Calibration, Measured};
use super::*;
use crate::llm::{LlmFailure, LlmOutput};

impl Runner {
    pub(super) fn call_llm(&mut self) {
        self.stream.call_waiting = false;
        if (self.window.discovering && self.window.tokens.is_none()) || self.wait_for_tokenizer() {
            self.stream.call_waiting = true;
            return;
        }
        let Some(client) = self.stream.llm.clone() else {
            let message = self.stream.no_provider();
            let _ = self.internal_tx.send(Internal::Machine(Event::LlmFailed {
                message,
                retryable: false,
                partial_text: String::new(),
                emitted: false,
                retry_after: None,
                overflow: None,
            }));
            return;
        };
        self.stream.inflight_prompt = None;
        // Tools of MCP servers come and go: each request offers the ones there now, as
        // many as the window affords.
        self.choose_prefix();
        self.record_loaded_tools();
        let mut messages = Vec::with_capacity(self.machine.conversation().len() + 1);
        messages.push(Message::System {
            content: self.prefix.sent_system.clone(),
        });
        messages.extend_from_slice(self.machine.conversation());
        let prefix_chars = messages[0].char_len() + self.prefix.schema_chars;
        let conversation_chars = messages[1..].iter().map(Message::char_len).sum::<usize>();
        let counted = self
            .window
            .count(&messages, &self.prefix.tool_schemas)
            .map(|total| {
                let prefix = self
                    .window
                    .count(&messages[..1], &self.prefix.tool_schemas)
                    .unwrap_or(0);
                (prefix, total)
            });
        if let Some((prefix_tokens, tokens)) = counted {
            // The budget counts in characters; the tokeniser's count sets their worth.
            self.window.counted(
                prefix_tokens,
                Measured {
                    prefix_chars,
                    conversation_chars,
                    tokens,
                },
            );
        }
        if let Some(window) = self.window.tokens
            && !self.machine.compacted()
            && self.budget(window).is_full(self.machine.conversation())
        {
            let _ = self.internal_tx.send(Internal::Machine(Event::ContextFull));
            return;
        }
        let (cancel, partial) = self.stream.begin_request();
        let request = Request {
            client,
            prefix_chars,
            conversation_chars,
            messages,
            tools: self.offered_tools(),
            registry: self.work.registry.clone(),
            counted,
            estimated: self
                .budget(1)
                .request_tokens(prefix_chars, conversation_chars),
            window: self.window.tokens,
        };
        self.stream.inflight_prompt = Some(counted.map_or(request.estimated, |(_, total)| total));
        let events = self.events.clone();
        let tx = self.internal_tx.clone();
        tokio::spawn(request.run(cancel, partial, events, tx));
    }
}

/// One model request on its way: what is sent, and how its cost is counted.
struct Request {
    client: LlmClient,
    messages: Vec<Message>,
    tools: Vec<Value>,
    /// Resolves the answer's calls to tools.
    registry: Arc<ToolRegistry>,
    /// The prompt's tokens as the tokeniser counted them, the prefix's and the whole's
    /// (`None`: estimated).
    counted: Option<(u64, u64)>,
    /// Characters of the system prompt and the tools.
    prefix_chars: usize,
    /// Characters of the conversation.
    conversation_chars: usize,
    /// The prompt's tokens as estimated when the request was made.
    estimated: u64,
    /// The model's context window when the request was made, when known.
    window: Option<u64>,
}

impl Request {
    /// Stream the answer (text and reasoning to the front ends as it comes, the text also
    /// into `partial`) and tell the machine how it ended; nothing once cancelled.
    async fn run(
        self,
        cancel: CancellationToken,
        partial: Arc<Mutex<String>>,
        events: mpsc::UnboundedSender<AgentEvent>,
        tx: mpsc::UnboundedSender<Internal>,
    ) {
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
            messages: &self.messages,
            tools: &self.tools,
        };
        let event = match self.client.stream(req, &cancel, &mut sink).await {
            Ok(out) => self.finished(out, &tx),
            Err(failure) if matches!(failure.error, LlmError::Cancelled) => return,
            Err(failure) => self.failed(failure, &tx),
        };
        let _ = tx.send(Internal::Machine(event));
    }

    /// The answer arrived: the server's usage calibrates Loom's counting (or is estimated
    /// when it sent none).
    fn finished(&self, out: LlmOutput, tx: &mpsc::UnboundedSender<Internal>) -> Event {
        let prompt_chars = self.prefix_chars + self.conversation_chars;
        let completion_chars = out.text.len()
            + out
                .calls
                .iter()
                .map(|c| c.call.arguments.len())
                .sum::<usize>();
        if let Some(u) = out.usage.filter(|u| !u.estimated && u.prompt_tokens > 0) {
            self.calibrate(u.prompt_tokens, tx);
        }
        if let Some(overflow) = self.window_filled(&out, tx) {
            return overflow;
        }
        let usage = out.usage.unwrap_or_else(|| {
            let mut usage = Usage::estimate(prompt_chars, completion_chars);
            if let Some((_, n)) = self.counted {
                usage.prompt_tokens = n;
            }
            usage
        });
        Event::LlmFinished {
            text: out.text,
            calls: resolve_calls(out.calls, &self.registry),
            usage,
            stop: out.stop,
        }
    }

    /// The server counted this request's prompt as `tokens`: Loom's counting learns from
    /// it (before the machine hears how the request ended, so a compaction it starts
    /// counts with what was learned).
    fn calibrate(&self, tokens: u64, tx: &mpsc::UnboundedSender<Internal>) {
        let measured = Measured {
            prefix_chars: self.prefix_chars,
            conversation_chars: self.conversation_chars,
            tokens,
        };
        let calibration = match self.counted {
            Some((prefix, total)) => Calibration::Tokenizer {
                prefix,
                total,
                measured,
            },
            None => Calibration::Chars(measured),
        };
        let _ = tx.send(Internal::Calibrated(calibration));
    }

    /// An answer cut off because the prompt filled the window, leaving the answer less
    /// than its room (the server's count above Loom's estimate, say after a first dense
    /// tool output): that is an overflow, which compacts and asks again, not the output
    /// token limit the person would be told to raise.
    fn window_filled(
        &self,
        out: &LlmOutput,
        tx: &mpsc::UnboundedSender<Internal>,
    ) -> Option<Event> {
        let window = self.window?;
        let u = out.usage.filter(|u| !u.estimated)?;
        let reserve = crate::agent::budget::Budget::reserve_of(window);
        let filled = matches!(out.stop, crate::llm::Stop::Length)
            && u.completion_tokens < reserve
            && u.prompt_tokens + u.completion_tokens >= window.saturating_sub(window / 20);
        if !filled {
            return None;
        }
        // The attempt cost what the server counted.
        let _ = tx.send(Internal::Machine(Event::Spent(u)));
        Some(Event::LlmFailed {
            message: format!(
                "the prompt filled the model's context window ({} of {window} tokens) and \
                 left the answer {} tokens",
                u.prompt_tokens,
                window.saturating_sub(u.prompt_tokens)
            ),
            retryable: false,
            retry_after: None,
            overflow: Some(crate::llm::overflow::Overflow {
                window: Some(window),
                prompt: Some(u.prompt_tokens),
            }),
            partial_text: out.text.clone(),
            emitted: !out.text.is_empty(),
        })
    }

    /// The request failed: a response that had begun (or was cut or stopped mid-way) cost
    /// its prompt even when nothing visible arrived yet.
    fn failed(&self, failure: LlmFailure, tx: &mpsc::UnboundedSender<Internal>) -> Event {
        // A server that said the prompt did not fit, and how long it counted it, measured
        // it: the compaction that follows must not count it as fitting by Loom's estimate.
        if let Some(tokens) = failure
            .error
            .overflow()
            .and_then(|o| o.prompt)
            .filter(|&t| t > 0)
        {
            self.calibrate(tokens, tx);
        }
        let begun = failure.emitted
            || !failure.partial_text.is_empty()
            || matches!(failure.error, LlmError::StreamCut(_) | LlmError::Limit(_));
        if begun {
            // The server had begun to answer: the attempt cost tokens, which a failed
            // turn reports (as an estimate) rather than zero.
            let usage = Usage {
                prompt_tokens: self.counted.map_or(self.estimated, |(_, total)| total),
                completion_tokens: failure.partial_text.len().div_ceil(4) as u64,
                estimated: true,
                cached_prompt_tokens: 0,
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
}
