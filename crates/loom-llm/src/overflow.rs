//! Recognising "the prompt does not fit" in a server's error, and what it says about the
//! window.
//!
//! A prompt over the context makes llama-server answer `400 exceed_context_size_error` with
//! `n_ctx`; OpenAI answers `context_length_exceeded`; vLLM says "maximum context length is
//! N tokens". Loom used to fail the turn (a 20 KB file read at `-c 4096` ended the task).
//! Recognised, the agent compacts the conversation and tries once more, and learns the
//! window from the server when it says it.

use serde_json::Value;

/// A request that did not fit the model's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Overflow {
    /// The context window in tokens, when the server said it.
    pub window: Option<u64>,
    /// How many tokens the prompt had, when the server said it.
    pub prompt: Option<u64>,
}

/// Whether an error response (`status`, raw `body`) says the prompt was too long.
pub fn detect(status: u16, body: &str) -> Option<Overflow> {
    if !matches!(status, 400 | 413 | 422 | 500) {
        return None;
    }
    let json: Option<Value> = serde_json::from_str(body).ok();
    let error = json.as_ref().and_then(|v| v.get("error"));
    let field = |name: &str| error.and_then(|e| e.get(name));
    let text = |name: &str| field(name).and_then(Value::as_str).unwrap_or("");
    let message = match error {
        Some(Value::String(s)) => s.clone(),
        Some(_) => text("message").to_string(),
        None => body.to_string(),
    };
    let known_kind = text("type") == "exceed_context_size_error"
        || text("code") == "context_length_exceeded"
        || field("code").and_then(Value::as_str) == Some("context_length_exceeded");
    let lower = message.to_lowercase();
    let said = known_kind
        || (lower.contains("context") && (lower.contains("exceed") || lower.contains("too long")))
        || lower.contains("maximum context length")
        || lower.contains("prompt is too long");
    if !said {
        return None;
    }
    let number = |name: &str| field(name).and_then(Value::as_u64);
    Some(Overflow {
        window: number("n_ctx")
            .or_else(|| after(&lower, "maximum context length is "))
            .or_else(|| after(&lower, "context size ("))
            .or_else(|| after(&lower, "context length of "))
            .filter(|w| *w > 0),
        prompt: number("n_prompt_tokens")
            .or_else(|| after(&lower, "resulted in "))
            .or_else(|| after(&lower, "request ("))
            .or_else(|| after(&lower, "you requested ")),
    })
}

/// The number right after `marker` in `text`.
fn after(text: &str, marker: &str) -> Option<u64> {
    let start = text.find(marker)? + marker.len();
    let digits: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_llama_server_overflow_gives_the_window() {
        let body = include_str!("../../../tests/fixtures/llama-server/context-exceeded-400.json");
        assert_eq!(
            detect(400, body),
            Some(Overflow {
                window: Some(2048),
                prompt: Some(5054)
            })
        );
    }

    #[test]
    fn openai_and_vllm_overflows_are_recognised() {
        let openai = r#"{"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}"#;
        assert_eq!(
            detect(400, openai),
            Some(Overflow {
                window: Some(128_000),
                prompt: Some(130_512)
            })
        );
        let vllm = r#"{"object": "error", "message": "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages.", "type": "BadRequestError", "code": 400}"#;
        let found = detect(400, vllm).unwrap();
        assert_eq!(found.window, Some(32_768));
        let plain = "the prompt is too long for this model";
        assert_eq!(detect(400, plain), Some(Overflow::default()));
    }

    #[test]
    fn other_errors_are_not_overflows() {
        assert_eq!(
            detect(400, r#"{"error": {"message": "model not found: nope"}}"#),
            None
        );
        assert_eq!(detect(429, "context length exceeded"), None);
        assert_eq!(detect(401, r#"{"error": "bad key"}"#), None);
    }
}
