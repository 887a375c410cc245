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
}

impl From<WireUsage> for Usage {
    fn from(w: WireUsage) -> Usage {
        Usage {
            prompt_tokens: w.prompt_tokens,
            completion_tokens: w.completion_tokens,
            estimated: false,
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

    #[test]
    fn error_messages() {
        assert_eq!(error_message(&serde_json::json!({"message": "bad"})), "bad");
        assert_eq!(error_message(&serde_json::json!("plain")), "plain");
    }
}
