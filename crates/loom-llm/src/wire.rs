//! Lenient types for streamed Chat Completions chunks.
//!
//! Real servers deviate from OpenAI's schema: Ollama omits tool-call ids, llama.cpp packs
//! id, name and arguments into the first delta, some send arguments as a JSON object
//! instead of a string, DeepSeek-style servers add `reasoning_content`, and some omit `id`
//! or `index` entirely. Every field here defaults, so a chunk only fails to parse when it is
//! not JSON at all.

use serde::Deserialize;
use serde_json::Value;

use super::message::Usage;

/// One `data:` payload of the stream.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Chunk {
    /// Choices (Loom asks for one).
    pub choices: Vec<ChunkChoice>,
    /// Token usage, usually in the last chunk.
    pub usage: Option<WireUsage>,
    /// An error reported inside the stream.
    pub error: Option<Value>,
}

/// One choice of a chunk.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ChunkChoice {
    /// Which choice.
    pub index: u32,
    /// The increment.
    pub delta: Option<Delta>,
    /// Some servers send a whole message instead of a delta.
    pub message: Option<Delta>,
    /// Set on the last chunk of the choice.
    pub finish_reason: Option<String>,
}

/// What a chunk adds.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Delta {
    /// Visible text.
    pub content: Option<String>,
    /// Reasoning text (DeepSeek, vLLM reasoning parsers).
    pub reasoning_content: Option<String>,
    /// Reasoning text (OpenRouter, Ollama).
    pub reasoning: Option<String>,
    /// Tool-call fragments.
    pub tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A fragment of one tool call.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
pub struct ToolCallDelta {
    /// Position of the call in the response (missing on some servers).
    pub index: Option<u32>,
    /// The call id (missing on Ollama; repeated on others).
    pub id: Option<String>,
    /// The function part.
    pub function: Option<FunctionDelta>,
}

/// A fragment of the function part of a tool call.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
pub struct FunctionDelta {
    /// The tool name (usually whole, in the first fragment).
    pub name: Option<String>,
    /// A piece of the arguments: a string fragment, or a whole JSON object.
    pub arguments: Option<Value>,
}

/// Usage as servers send it.
#[derive(Debug, Default, Deserialize, Clone, Copy)]
#[serde(default)]
pub struct WireUsage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// OpenAI's breakdown of the prompt tokens (`cached_tokens`).
    pub prompt_tokens_details: Option<PromptTokensDetails>,
    /// DeepSeek's count of prompt tokens served from its cache.
    pub prompt_cache_hit_tokens: Option<u64>,
}

/// `usage.prompt_tokens_details` as OpenAI sends it.
#[derive(Debug, Default, Deserialize, Clone, Copy)]
#[serde(default)]
pub struct PromptTokensDetails {
    /// Prompt tokens served from the provider's prompt cache.
    pub cached_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(w: WireUsage) -> Usage {
        let cached = w
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .or(w.prompt_cache_hit_tokens)
            .unwrap_or(0);
        Usage {
            prompt_tokens: w.prompt_tokens,
            completion_tokens: w.completion_tokens,
            estimated: false,
            cached_prompt_tokens: cached,
        }
    }
}

/// The message of an error object (`{"error": {"message": ...}}` or `{"error": "..."}`).
pub fn error_message(error: &Value) -> String {
    error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| error.as_str().map(str::to_string))
        .unwrap_or_else(|| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_openai_ollama_and_llamacpp_shapes() {
        let openai: Chunk = serde_json::from_str(
            r#"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}"#,
        )
        .unwrap();
        assert_eq!(
            openai.choices[0].delta.as_ref().unwrap().content.as_deref(),
            Some("Hi")
        );
        let ollama: Chunk = serde_json::from_str(
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"read_file","arguments":{"path":"a"}}}]}}]}"#,
        )
        .unwrap();
        let call = &ollama.choices[0]
            .delta
            .as_ref()
            .unwrap()
            .tool_calls
            .as_ref()
            .unwrap()[0];
        assert!(call.id.is_none() && call.index.is_none());
        assert!(
            call.function
                .as_ref()
                .unwrap()
                .arguments
                .as_ref()
                .unwrap()
                .is_object()
        );
        let usage: Chunk = serde_json::from_str(
            r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}"#,
        )
        .unwrap();
        assert_eq!(usage.usage.unwrap().prompt_tokens, 10);
    }

    /// The last chunk of an OpenAI stream with `include_usage` (as recorded from
    /// api.openai.com), and DeepSeek's shape: the cached prompt tokens reach [`Usage`].
    #[test]
    fn cached_prompt_tokens_are_read_from_openai_and_deepseek_usage() {
        let openai: Chunk = serde_json::from_str(
            r#"{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8","choices":[],"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}"#,
        )
        .unwrap();
        let usage = Usage::from(openai.usage.unwrap());
        assert_eq!(
            (
                usage.prompt_tokens,
                usage.cached_prompt_tokens,
                usage.completion_tokens
            ),
            (2006, 1920, 300)
        );
        let deepseek: Chunk = serde_json::from_str(
            r#"{"choices":[],"usage":{"prompt_tokens":120,"completion_tokens":7,"total_tokens":127,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":56}}"#,
        )
        .unwrap();
        assert_eq!(
            Usage::from(deepseek.usage.unwrap()).cached_prompt_tokens,
            64
        );
        let plain: Chunk = serde_json::from_str(
            r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":null}}"#,
        )
        .unwrap();
        assert_eq!(Usage::from(plain.usage.unwrap()).cached_prompt_tokens, 0);
    }

    #[test]
    fn error_messages() {
        assert_eq!(error_message(&serde_json::json!({"message": "bad"})), "bad");
        assert_eq!(error_message(&serde_json::json!("plain")), "plain");
    }
}
