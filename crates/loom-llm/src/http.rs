//! The HTTP side of one model request: sending it, reading an error status into what the
//! agent needs to decide about a retry, and the server-sent events of a success, pulled
//! one at a time through the bounded body.
//!
//! Nothing here retries (a hidden retry freezes the screen without a word), and nothing
//! reads ahead of the caller: the events are parsed only as the caller asks for the next
//! one, so a server faster than Loom fills the socket's buffer, not Loom's memory. (The
//! crate this replaced parsed the stream in a task of its own into an unbounded queue,
//! where each small event took about a kilobyte once parsed.)

use std::time::Duration;

use futures::{Stream, StreamExt};
use serde_json::Value;
use thiserror::Error;

use super::bounded::{LimitSlot, bounded, read_capped};
use super::error::LlmError;
use super::overflow::Overflow;
use super::retry::parse_retry_after;
use super::wire::error_message;

/// The most of an error status's body that is read: its message is in the first bytes,
/// and an endless body must not fill the memory.
const ERROR_BODY_CAP: usize = 64 << 10;

/// A non-success HTTP status, with what is needed to decide about a retry.
#[derive(Debug, Error, Clone)]
#[error("HTTP {status}: {message}")]
pub struct HttpFailure {
    /// The status code.
    pub status: u16,
    /// The server's message (from its JSON error, or the body text).
    pub message: String,
    /// How long the server asked us to wait.
    pub retry_after: Option<Duration>,
    /// Whether the server said the prompt does not fit its context.
    pub overflow: Option<Overflow>,
}

impl HttpFailure {
    /// Read an error status's headers and (the start of) its body.
    pub async fn read(response: reqwest::Response) -> HttpFailure {
        let status = response.status();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let retry_after = parse_retry_after(
            header("retry-after").as_deref(),
            header("retry-after-ms").as_deref(),
        );
        let (body, _) = read_capped(response, ERROR_BODY_CAP).await;
        let body = String::from_utf8_lossy(&body).into_owned();
        let overflow = super::overflow::detect(status.as_u16(), &body);
        let message = serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v.get("error").map(error_message))
            .unwrap_or_else(|| {
                let trimmed = body.trim();
                if trimmed.is_empty() {
                    status.canonical_reason().unwrap_or("error").to_string()
                } else {
                    loom_base::text::cut_middle(trimmed, 2000).0
                }
            });
        HttpFailure {
            status: status.as_u16(),
            message,
            retry_after,
            overflow,
        }
    }

    /// The error the agent sees: an overflow becomes [`LlmError::ContextExceeded`] (it
    /// compacts and tries again), 401/403 say where the key comes from.
    pub fn into_error(self) -> LlmError {
        if let Some(overflow) = self.overflow {
            return LlmError::ContextExceeded {
                message: self.message,
                overflow,
            };
        }
        LlmError::Http {
            status: self.status,
            message: if matches!(self.status, 401 | 403) {
                format!(
                    "{} (check the API key: set OPENAI_API_KEY, or name another variable with \
                     --api-key-env NAME)",
                    self.message
                )
            } else {
                self.message
            },
            retry_after: self.retry_after,
        }
    }
}

/// A reqwest error with its chain of causes (the top line alone often says only "error
/// sending request").
pub fn describe_reqwest(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

/// The bounds one response's body is read within.
#[derive(Debug, Clone, Copy)]
pub struct BodyBounds {
    /// Longest silence.
    pub idle: Duration,
    /// Most raw bytes.
    pub raw_cap: u64,
    /// Longest line.
    pub line_cap: u64,
}

/// One server-sent event's data, or the end of the stream.
pub type EventItem = Result<String, String>;

/// The data of the event that says the answer is complete.
pub const DONE: &str = "[DONE]";

/// The `data` of each event of a successful response, pulled through the bounded body:
/// `[DONE]` is the last item (so the reader can tell a complete answer from a body that
/// just stopped), keep-alive events are skipped, and an error (a bound hit, a broken
/// connection) ends it with the error's text (the slot says which bound).
pub fn events(
    response: reqwest::Response,
    bounds: BodyBounds,
    slot: LimitSlot,
) -> impl Stream<Item = EventItem> + Send + Unpin {
    let body = bounded(
        response.bytes_stream(),
        bounds.idle,
        bounds.raw_cap,
        bounds.line_cap,
        slot,
    );
    let parsed = Box::pin(eventsource_stream::EventStream::new(body));
    Box::pin(futures::stream::unfold(Some(parsed), |state| async move {
        let mut parsed = state?;
        loop {
            match parsed.next().await? {
                Ok(event) if event.data == DONE => return Some((Ok(event.data), None)),
                Ok(event) if event.event == "keepalive" => continue,
                Ok(event) => return Some((Ok(event.data), Some(parsed))),
                Err(e) => return Some((Err(e.to_string()), None)),
            }
        }
    }))
}
