//! `loom-llm`, the model side: any OpenAI-compatible Chat Completions server, streamed.
//!
//! Owns the wire format, the lenient parsing of what real servers send, tool-call assembly
//! and recovery, error classification for retries, and local server discovery. It knows
//! nothing of the agent's states or of any screen; one [`client::LlmClient::stream`] call is
//! one attempt, and the agent decides about retries.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod accumulate;
pub mod bounded;
pub mod budget;
pub mod client;
pub mod current;
pub mod discover;
pub mod error;
pub mod http;
pub mod image;
pub mod message;
pub mod net;
pub mod overflow;
pub mod retry;
pub mod schema;
pub mod stop;
pub mod text_calls;
pub mod token_tables;
pub mod tokens;
pub mod window;
pub mod wire;

pub use client::{ChatRequest, LlmClient, LlmFailure, LlmOutput, StreamEvent};
pub use error::LlmError;
pub use message::{Message, ToolCall, Usage};
pub use stop::Stop;

/// Install the TLS crypto provider (ring) once per process. reqwest is built without a
/// default provider to keep aws-lc (a large C build) out of the tree; every HTTP client in
/// Loom is created after this call.
pub fn ensure_tls() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Where and how to reach the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSettings {
    /// Base URL including the API version path, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The API key, if the server needs one.
    pub api_key: Option<String>,
    /// The model id.
    pub model: String,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Cap on generated tokens per request.
    pub max_tokens: Option<u32>,
    /// Extra HTTP headers (e.g. OpenRouter's `HTTP-Referer`).
    pub headers: Vec<(String, String)>,
    /// The model's context window in tokens, when known.
    pub context_window: Option<u64>,
    /// Longest silence (before the answer starts, or between streamed chunks) before the
    /// attempt fails and is retried like a cut stream.
    pub read_timeout_secs: u64,
    /// Most bytes of text, reasoning and tool-call arguments one response may carry.
    pub max_response_bytes: u64,
    /// Most tool calls one response may carry.
    pub max_tool_calls: usize,
    /// Send each tool that has a strict form with `strict: true` and that form (OpenAI's
    /// structured outputs for function calling); `strict_tools` in the config.
    pub strict_tools: bool,
}

/// Default of [`ProviderSettings::max_response_bytes`] (4 MiB).
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 4 * 1024 * 1024;
/// Default of [`ProviderSettings::max_tool_calls`].
pub const DEFAULT_MAX_TOOL_CALLS: usize = 64;
/// Default of [`ProviderSettings::read_timeout_secs`].
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 120;

impl ProviderSettings {
    /// Settings for `base_url` and `model` with defaults elsewhere.
    pub fn new(base_url: &str, model: &str) -> ProviderSettings {
        ProviderSettings {
            base_url: base_url.to_string(),
            api_key: None,
            model: model.to_string(),
            temperature: None,
            max_tokens: None,
            headers: Vec::new(),
            context_window: None,
            read_timeout_secs: DEFAULT_IDLE_TIMEOUT_SECS,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_tool_calls: DEFAULT_MAX_TOOL_CALLS,
            strict_tools: false,
        }
    }
}
