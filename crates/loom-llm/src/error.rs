//! Why one model request failed, and what the agent may do about it (retry, wait, compact).
//! Named by the client and by the layers it reads the body through ([`super::http`],
//! [`super::budget`]), so it lives below all three.

use std::time::Duration;

use thiserror::Error;

/// Why one model request failed.
#[derive(Debug, Error, Clone)]
pub enum LlmError {
    /// The server answered with an error status.
    #[error("the model server answered {status}: {message}")]
    Http {
        /// Status code.
        status: u16,
        /// The server's message.
        message: String,
        /// Requested wait.
        retry_after: Option<Duration>,
    },
    /// The server could not be reached.
    #[error("cannot reach the model server: {0}")]
    Connection(String),
    /// The stream broke off before the model finished.
    #[error("the response stream was cut off: {0}")]
    StreamCut(String),
    /// The server sent something Loom cannot use.
    #[error("unexpected response from the model server: {0}")]
    Protocol(String),
    /// The response went past one of Loom's bounds (size, number of tool calls); trying
    /// again would repeat it.
    #[error("the model's response was stopped: {0}")]
    Limit(String),
    /// The conversation does not fit the model's context window: the agent compacts it
    /// and tries again once.
    #[error("the conversation does not fit the model's context window: {message}")]
    ContextExceeded {
        /// The server's message.
        message: String,
        /// What the server said about the window.
        overflow: super::overflow::Overflow,
    },
    /// The person interrupted.
    #[error("interrupted")]
    Cancelled,
}

impl LlmError {
    /// Whether trying again may help (429, 5xx, timeouts, connection failures, cut streams).
    pub fn retryable(&self) -> bool {
        match self {
            LlmError::Http { status, .. } => {
                *status == 429 || *status == 408 || *status == 409 || *status >= 500
            }
            LlmError::Connection(_) | LlmError::StreamCut(_) => true,
            LlmError::Protocol(_)
            | LlmError::Limit(_)
            | LlmError::ContextExceeded { .. }
            | LlmError::Cancelled => false,
        }
    }

    /// The server's requested wait, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// What the server said about its window, when the prompt did not fit.
    pub fn overflow(&self) -> Option<super::overflow::Overflow> {
        match self {
            LlmError::ContextExceeded { overflow, .. } => Some(*overflow),
            _ => None,
        }
    }
}
