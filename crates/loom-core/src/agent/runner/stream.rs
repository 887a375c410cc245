//! The runner's streaming state: the model client, the request (or compaction) under way
//! with the text streamed so far and what its prompt cost, a request waiting for the
//! window or the tokeniser, and the timer of a retry.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{Internal, NO_PROVIDER_AGAIN};
use crate::agent::state::Event;
use crate::llm::LlmClient;
use crate::llm::current::CurrentModel;
use crate::llm::retry::RetryPolicy;

/// The model client and the request under way.
pub(super) struct Stream {
    /// The model client (`None` when no provider is configured or found).
    pub(super) llm: Option<LlmClient>,
    /// What to tell the person when there is no provider.
    no_provider_message: String,
    /// Whether the person has been told in full how to connect a model server (after that,
    /// one line says it again).
    told_no_provider: bool,
    /// The session's model cell (see [`super::RunnerParts::current_model`]).
    current_model: Option<CurrentModel>,
    /// Stops the model request or the compaction under way.
    cancel: CancellationToken,
    /// The text the request under way has streamed so far.
    partial: Arc<Mutex<String>>,
    /// The estimated prompt tokens of the model request under way, so an interrupt
    /// reports what the request cost.
    pub(super) inflight_prompt: Option<u64>,
    /// A model request that waits for the server's answer about the model or for the
    /// tokeniser (so the very first request is already sized against the window).
    pub(super) call_waiting: bool,
    /// Retry schedule for model requests.
    retry: RetryPolicy,
    /// Stops the timer of a scheduled retry.
    timer_cancel: CancellationToken,
}

impl Stream {
    /// Nothing under way yet.
    pub(super) fn new(
        llm: Option<LlmClient>,
        no_provider_message: String,
        current_model: Option<CurrentModel>,
        retry: RetryPolicy,
    ) -> Stream {
        Stream {
            llm,
            no_provider_message,
            told_no_provider: false,
            current_model,
            cancel: CancellationToken::new(),
            partial: Arc::new(Mutex::new(String::new())),
            inflight_prompt: None,
            call_waiting: false,
            retry,
            timer_cancel: CancellationToken::new(),
        }
    }

    /// What to say for a request with no model server: the full how-to once, then a line.
    pub(super) fn no_provider(&mut self) -> String {
        if std::mem::replace(&mut self.told_no_provider, true) {
            NO_PROVIDER_AGAIN.to_string()
        } else {
            self.no_provider_message.clone()
        }
    }

    /// A new request begins: its cancel token, and where its text is streamed to.
    pub(super) fn begin_request(&mut self) -> (CancellationToken, Arc<Mutex<String>>) {
        self.partial = Arc::new(Mutex::new(String::new()));
        (self.begin_compaction(), self.partial.clone())
    }

    /// A compaction begins: its cancel token.
    pub(super) fn begin_compaction(&mut self) -> CancellationToken {
        self.cancel = CancellationToken::new();
        self.cancel.clone()
    }

    /// Stop the request under way; a request waiting for the window or the tokeniser is
    /// not made after all.
    pub(super) fn cancel(&mut self) {
        self.cancel.cancel();
        self.call_waiting = false;
    }

    /// The text streamed so far by the last request.
    pub(super) fn partial_text(&self) -> String {
        self.partial.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// Switch the client to `model` (and the session's model cell with it); the window
    /// the config names for it, or `None` when no model server is connected.
    pub(super) fn switch_model(&mut self, model: &str) -> Option<Option<u64>> {
        let client = self.llm.as_mut()?;
        client.set_model(model);
        if let Some(current) = &self.current_model {
            current.set(model);
        }
        Some(client.settings().context_window)
    }

    /// How long to wait before retry `attempt` (the server's `retry_after` if it said).
    pub(super) fn retry_delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        self.retry.delay(attempt - 1, retry_after, fastrand::f64())
    }

    /// Tell the machine on `tx` once `wait` has passed, unless the timers are cancelled.
    pub(super) fn start_timer(&mut self, wait: Duration, tx: &mpsc::UnboundedSender<Internal>) {
        self.timer_cancel = CancellationToken::new();
        let cancel = self.timer_cancel.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = tokio::time::sleep(wait) => {
                    let _ = tx.send(Internal::Machine(Event::RetryElapsed));
                }
                _ = cancel.cancelled() => {}
            }
        });
    }

    /// Stop the timer of a scheduled retry.
    pub(super) fn cancel_timers(&self) {
        self.timer_cancel.cancel();
    }
}
