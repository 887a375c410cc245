//! The provider client: one streamed Chat Completions request.
//!
//! Loom speaks the wire format itself (reqwest, and `eventsource-stream` for the event
//! framing) with its own lenient chunk types ([`super::wire`]): servers omit fields and
//! add their own (`reasoning_content`), and an error status is kept whole as an
//! [`HttpFailure`] (status, the server's message, `Retry-After`) so the agent retries
//! visibly; nothing here retries. The body is bounded in size, line length and silence
//! ([`super::bounded`]) and read one event at a time as this loop asks ([`super::http`]).
//!
//! One call is one attempt. Streaming text goes through [`TextCallFilter`] so tool calls
//! written as text are recovered and never shown as prose.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::ProviderSettings;
use super::accumulate::{AssembledCall, CallAssembler, finish_calls};
use super::bounded::{LimitHit, LimitSlot};
use super::budget::{BYTES_KEY, ResponseBudget};
use super::error::LlmError;
use super::http::{BodyBounds, HttpFailure, describe_reqwest};
use super::message::{Message, Usage};
use super::schema::refusal::blamed;
use super::schema::strict::make_strict;
use super::text_calls::TextCallFilter;
use super::wire::{Chunk, error_message};

/// Something to show while the response streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// Visible answer text.
    Text(String),
    /// Reasoning text, for servers that stream it separately.
    Reasoning(String),
    /// Something the person should know about the request itself (a tool left out
    /// because the provider refused its schema).
    Notice(String),
}

/// A complete response.
#[derive(Debug, Clone)]
pub struct LlmOutput {
    /// The visible text (tool-call markup removed).
    pub text: String,
    /// The tool calls, structured or recovered from text.
    pub calls: Vec<AssembledCall>,
    /// Token usage, when the server reported it.
    pub usage: Option<Usage>,
    /// Why the model stopped, as the server said it.
    pub finish_reason: Option<String>,
    /// Whether the response is whole, and if not why.
    pub stop: super::Stop,
}

/// A failed request and what had arrived before it failed.
#[derive(Debug, Clone)]
pub struct LlmFailure {
    /// What went wrong.
    pub error: LlmError,
    /// Visible text received before the failure.
    pub partial_text: String,
    /// Whether anything was already shown to the person (then a retry would repeat it).
    pub emitted: bool,
}

/// What one request sends.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The whole conversation, system prompt first.
    pub messages: &'a [Message],
    /// Tool schemas in OpenAI function format.
    pub tools: &'a [Value],
}

/// A client for one provider and model.
#[derive(Clone)]
pub struct LlmClient {
    http: reqwest::Client,
    /// The key and the configured extra headers, checked once.
    headers: HeaderMap,
    settings: ProviderSettings,
    bounds: BodyBounds,
    /// Tools left out of every request because the provider refused their schemas (shared
    /// by the client's clones: one session's requests).
    refused: Arc<Mutex<BTreeSet<String>>>,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("base_url", &self.settings.base_url)
            .field("model", &self.settings.model)
            .finish()
    }
}

impl LlmClient {
    /// A client for `settings`. Fails only on header values that are not valid HTTP.
    pub fn new(settings: ProviderSettings) -> Result<LlmClient, LlmError> {
        super::ensure_tls();
        let mut headers = HeaderMap::new();
        if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
            let value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                LlmError::Protocol("the API key is not a valid header value".into())
            })?;
            headers.insert(AUTHORIZATION, value);
        }
        for (k, v) in &settings.headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|e| LlmError::Protocol(format!("bad header name {k:?}: {e}")))?;
            let value = HeaderValue::from_str(v)
                .map_err(|e| LlmError::Protocol(format!("bad header {k}: {e}")))?;
            headers.insert(name, value);
        }
        let idle = Duration::from_secs(settings.read_timeout_secs.max(1));
        // reqwest's own read timeout is a backstop behind Loom's idle bound, which reports
        // the setting to change.
        let http = super::net::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(idle.saturating_mul(2))
            .build()
            .map_err(|e| LlmError::Protocol(e.to_string()))?;
        // Raw bytes carry the JSON and event framing around each piece of text (often ten
        // times the text itself), so the raw cap is a generous multiple of the text cap;
        // the text cap proper is counted on what the model says.
        let raw_cap = settings
            .max_response_bytes
            .saturating_mul(16)
            .saturating_add(1 << 20);
        // One event carries one piece of the answer, at most all of it: twice the text cap
        // leaves room for JSON escapes, and bounds what is held of a line not yet ended.
        let line_cap = settings
            .max_response_bytes
            .saturating_mul(2)
            .saturating_add(64 << 10)
            .min(raw_cap);
        Ok(LlmClient {
            http,
            headers,
            settings,
            bounds: BodyBounds {
                idle,
                raw_cap,
                line_cap,
            },
            refused: Arc::default(),
        })
    }

    /// The settings in force.
    pub fn settings(&self) -> &ProviderSettings {
        &self.settings
    }

    /// Switch the model for later requests.
    pub fn set_model(&mut self, model: &str) {
        self.settings.model = model.to_string();
    }

    /// The request body for `req`.
    pub fn body(&self, req: ChatRequest<'_>) -> Value {
        let mut body = json!({
            "model": self.settings.model,
            "messages": Message::wire_all(req.messages),
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if !req.tools.is_empty() {
            let mut tools = req.tools.to_vec();
            if self.settings.strict_tools {
                tools.iter_mut().for_each(make_strict);
            }
            body["tools"] = Value::Array(tools);
        }
        if let Some(t) = self.settings.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(m) = self.settings.max_tokens {
            body["max_tokens"] = json!(m);
        }
        body
    }

    /// The tools the provider refused, left out of every request.
    pub fn refused_tools(&self) -> Vec<String> {
        self.refused
            .lock()
            .map(|r| r.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Send one request and stream the answer into `sink`. One attempt, but for a provider
    /// that refuses one tool's schema (a 400 naming it): then the request is sent once more
    /// without that tool, which stays out for the session, and `sink` gets a
    /// [`StreamEvent::Notice`] saying so. Other failures are the caller's to retry.
    pub async fn stream(
        &self,
        req: ChatRequest<'_>,
        cancel: &CancellationToken,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<LlmOutput, LlmFailure> {
        let refused = self.refused_tools();
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .filter(|t| {
                !t["function"]["name"]
                    .as_str()
                    .is_some_and(|n| refused.iter().any(|r| r == n))
            })
            .cloned()
            .collect();
        let first = self
            .stream_once(
                ChatRequest {
                    messages: req.messages,
                    tools: &tools,
                },
                cancel,
                sink,
            )
            .await;
        let refusal = match &first {
            Err(LlmFailure {
                error: LlmError::Http {
                    status, message, ..
                },
                ..
            }) => blamed(*status, message, &tools),
            _ => None,
        };
        let Some(refusal) = refusal else {
            return first;
        };
        if let Ok(mut r) = self.refused.lock() {
            r.insert(refusal.tool.clone());
        }
        tools.retain(|t| t["function"]["name"].as_str() != Some(refusal.tool.as_str()));
        sink(StreamEvent::Notice(refusal.explain()));
        self.stream_once(
            ChatRequest {
                messages: req.messages,
                tools: &tools,
            },
            cancel,
            sink,
        )
        .await
    }

    /// Send one request and stream the answer into `sink`.
    async fn stream_once(
        &self,
        req: ChatRequest<'_>,
        cancel: &CancellationToken,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<LlmOutput, LlmFailure> {
        let known: Vec<String> = req
            .tools
            .iter()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
            .collect();
        let body = self.body(req);
        let slot = LimitSlot::default();
        let response = self.send(&body, cancel, &slot).await?;
        let limits = &self.settings;
        let mut stream = super::http::events(response, self.bounds, slot.clone());
        let mut reader = Reader::new(
            ResponseBudget::new(limits.max_response_bytes, limits.max_tool_calls),
            known,
        );
        loop {
            let item = tokio::select! {
                item = stream.next() => item,
                _ = cancel.cancelled() => return Err(reader.fail(LlmError::Cancelled)),
            };
            let data = match item {
                None => break,
                Some(Ok(data)) if data == super::http::DONE => {
                    reader.done = true;
                    break;
                }
                Some(Ok(data)) => data,
                Some(Err(cause)) => {
                    let error = limit_error(&slot, limits.max_response_bytes, cause);
                    return Err(reader.fail(error));
                }
            };
            let Ok(chunk) = serde_json::from_str::<Chunk>(&data) else {
                continue;
            };
            match reader.chunk(chunk, sink) {
                Ok(Reading::More) => {}
                Ok(Reading::Stop) => break,
                Err(e) => return Err(reader.fail(e)),
            }
        }
        reader.finish(sink)
    }

    /// Post `body` and wait for the answer's head: an error status, a refused connection,
    /// a redirect loop or silence past the idle bound comes back as the failure.
    async fn send(
        &self,
        body: &Value,
        cancel: &CancellationToken,
        slot: &LimitSlot,
    ) -> Result<reqwest::Response, LlmFailure> {
        let fail = |error: LlmError| LlmFailure {
            error,
            partial_text: String::new(),
            emitted: false,
        };
        let limits = &self.settings;
        let url = format!("{}/chat/completions", limits.base_url.trim_end_matches('/'));
        let request = self
            .http
            .post(url)
            .headers(self.headers.clone())
            .json(body)
            .send();
        let idle = self.bounds.idle;
        let sent = tokio::select! {
            r = tokio::time::timeout(idle, request) => r,
            _ = cancel.cancelled() => return Err(fail(LlmError::Cancelled)),
        };
        let response = match sent {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => {
                // A redirect loop answers the same way every time: said once, not retried.
                let error = if e.is_redirect() {
                    LlmError::Protocol(format!(
                        "it redirects again and again ({}); check base_url, which usually \
                         ends in /v1",
                        e.url().map(|u| u.as_str()).unwrap_or("no address")
                    ))
                } else {
                    LlmError::Connection(describe_reqwest(&e))
                };
                return Err(fail(error));
            }
            Err(_) => {
                slot.set_idle(idle);
                let error = limit_error(slot, limits.max_response_bytes, String::new());
                return Err(fail(error));
            }
        };
        if !response.status().is_success() {
            let failure = tokio::select! {
                f = HttpFailure::read(response) => f,
                _ = cancel.cancelled() => return Err(fail(LlmError::Cancelled)),
            };
            return Err(fail(failure.into_error()));
        }
        Ok(response)
    }
}

/// The error for a body cut off by `cause`: the limit the body crossed when one did (its
/// hit is in `slot`), else the cut itself. `max_bytes` is the configured text limit.
fn limit_error(slot: &LimitSlot, max_bytes: u64, cause: String) -> LlmError {
    match slot.take() {
        Some(LimitHit::Idle(d)) => LlmError::StreamCut(format!(
            "the server sent nothing for {} s; raise stream_idle_timeout_secs in the \
             config if it is only slow",
            d.as_secs()
        )),
        Some(LimitHit::Size(raw)) => LlmError::Limit(format!(
            "the server sent more than {raw} bytes for one response, the most that \
             {max_bytes} bytes of text ({BYTES_KEY}) may take with their framing; raise \
             {BYTES_KEY} in the config if the answer really is that long"
        )),
        Some(LimitHit::Line(line)) => LlmError::Limit(format!(
            "the server sent a line of more than {line} bytes, more than one piece of \
             {max_bytes} bytes of text ({BYTES_KEY}) takes; raise {BYTES_KEY} in the config if \
             the answer really is that long"
        )),
        None => LlmError::StreamCut(cause),
    }
}

/// Whether [`Reader::chunk`] wants the next chunk.
enum Reading {
    More,
    /// An error arrived inside the stream after whole calls: keep them and stop.
    Stop,
}

/// One streamed answer as it is put together, chunk by chunk.
struct Reader {
    budget: ResponseBudget,
    filter: TextCallFilter,
    assembler: CallAssembler,
    usage: Option<Usage>,
    finish_reason: Option<String>,
    /// Whether anything was shown to the person.
    emitted: bool,
    /// Whether any choice arrived.
    received: bool,
    /// An error the server sent inside the stream after whole calls.
    stream_error: Option<String>,
    /// Whether the server said the answer is complete (`data: [DONE]`).
    done: bool,
}

impl Reader {
    fn new(budget: ResponseBudget, known: Vec<String>) -> Reader {
        Reader {
            budget,
            filter: TextCallFilter::new(known),
            assembler: CallAssembler::new(),
            usage: None,
            finish_reason: None,
            emitted: false,
            received: false,
            stream_error: None,
            done: false,
        }
    }

    /// The failure `error`, with what had been shown so far.
    fn fail(&self, error: LlmError) -> LlmFailure {
        LlmFailure {
            error,
            partial_text: self.filter.visible().to_string(),
            emitted: self.emitted,
        }
    }

    /// Take in one chunk, showing its text and reasoning through `sink`.
    fn chunk(
        &mut self,
        chunk: Chunk,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Reading, LlmError> {
        if let Some(error) = &chunk.error {
            // Calls that arrived whole before the error are kept (the agent runs them
            // and tells the model); with nothing whole to keep, the request failed
            // like any other and may be retried.
            let whole = self
                .assembler
                .clone()
                .into_raw()
                .iter()
                .any(|(_, name, args)| {
                    !name.trim().is_empty()
                        && !args.trim().is_empty()
                        && serde_json::from_str::<Value>(args).is_ok()
                });
            if whole {
                self.stream_error = Some(error_message(error));
                return Ok(Reading::Stop);
            }
            return Err(LlmError::Http {
                status: 500,
                message: format!("error inside the stream: {}", error_message(error)),
                retry_after: None,
            });
        }
        if let Some(u) = chunk.usage {
            self.usage = Some(u.into());
        }
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            self.received = true;
            if let Some(delta) = choice.delta.or(choice.message) {
                self.delta(delta, sink)?;
            }
            if choice.finish_reason.is_some() {
                self.finish_reason = choice.finish_reason;
            }
        }
        Ok(Reading::More)
    }

    /// Take in one increment of the first choice.
    fn delta(
        &mut self,
        delta: super::wire::Delta,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<(), LlmError> {
        self.budget.spend(&delta)?;
        if let Some(reasoning) = delta.reasoning_content.or(delta.reasoning)
            && !reasoning.is_empty()
        {
            self.emitted = true;
            sink(StreamEvent::Reasoning(reasoning));
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            let shown = self.filter.push(&text);
            if !shown.is_empty() {
                self.emitted = true;
                sink(StreamEvent::Text(shown));
            }
        }
        for call in delta.tool_calls.unwrap_or_default() {
            self.assembler.push(&call);
        }
        self.budget.check_calls(self.assembler.len())
    }

    /// The whole answer once the stream ended: the text held back for tool-call markup
    /// shown, the calls written as text added to the structured ones.
    fn finish(self, sink: &mut (dyn FnMut(StreamEvent) + Send)) -> Result<LlmOutput, LlmFailure> {
        if self.finish_reason.is_none() && !self.received {
            return Err(LlmFailure {
                error: LlmError::StreamCut(
                    "the stream ended before the model sent anything".into(),
                ),
                partial_text: String::new(),
                emitted: false,
            });
        }
        // A body that stopped with neither a finish reason nor `[DONE]` was cut (a closed
        // connection ends a body that is not chunked cleanly): acted on, its last call
        // could be missing, or its text half a sentence. It fails like any cut stream, so
        // the request is made again, or the model asked to continue what was shown.
        if self.finish_reason.is_none() && !self.done && self.stream_error.is_none() {
            return Err(self.fail(LlmError::StreamCut(
                "the stream ended before the answer was complete (no finish_reason and no \
                 [DONE])"
                    .into(),
            )));
        }
        let mut visible = self.filter.visible().to_string();
        let (rest, text_calls) = self.filter.finish();
        if !rest.is_empty() {
            sink(StreamEvent::Text(rest.clone()));
            visible.push_str(&rest);
        }
        let mut raw = self.assembler.into_raw();
        raw.extend(text_calls.into_iter().map(|c| (None, c.name, c.arguments)));
        if let Err(error) = self.budget.check_calls(raw.len()) {
            return Err(LlmFailure {
                error,
                partial_text: visible,
                emitted: self.emitted,
            });
        }
        let stop = match self.stream_error {
            Some(message) => super::Stop::StreamError { message },
            None => super::Stop::from_finish_reason(self.finish_reason.as_deref()),
        };
        Ok(LlmOutput {
            text: visible,
            calls: finish_calls(raw),
            usage: self.usage,
            finish_reason: self.finish_reason,
            stop,
        })
    }
}
