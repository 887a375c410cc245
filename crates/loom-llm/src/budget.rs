//! What one model response may carry: a byte budget for what the model says (visible text,
//! reasoning, tool-call arguments) and a bound on its number of tool calls.
//!
//! An endless stream reached 7.9 GiB in 75 s, and endless tool arguments likewise. The raw
//! body is capped too ([`super::bounded`]), but only generously, since event framing costs
//! several times the text it carries; this budget counts what the model says, so the limit
//! a person sets is the one that holds, and the error names the setting that raises it.
//! Hitting either bound is not retried: the same request would produce the same response.

use serde_json::Value;

use super::error::LlmError;
use super::wire::Delta;

/// The config key of the byte budget, named in its error.
pub const BYTES_KEY: &str = "max_response_bytes";
/// The config key of the tool-call bound, named in its error.
pub const CALLS_KEY: &str = "max_tool_calls_per_response";

/// The running account of one response.
#[derive(Debug, Clone)]
pub struct ResponseBudget {
    max_bytes: u64,
    max_calls: usize,
    said: u64,
}

impl ResponseBudget {
    /// A fresh account for one response.
    pub fn new(max_bytes: u64, max_calls: usize) -> ResponseBudget {
        ResponseBudget {
            max_bytes,
            max_calls,
            said: 0,
        }
    }

    /// Bytes counted so far.
    pub fn said(&self) -> u64 {
        self.said
    }

    /// Count what `delta` says, before any of it is shown or kept: an error once the
    /// response has said more than the byte budget. Reasoning counts once even when a
    /// server fills both of its fields, as only one of them is used.
    pub fn spend(&mut self, delta: &Delta) -> Result<(), LlmError> {
        let len = |s: &Option<String>| s.as_ref().map_or(0, |t| t.len() as u64);
        let reasoning = delta
            .reasoning_content
            .as_ref()
            .or(delta.reasoning.as_ref())
            .map_or(0, |t| t.len() as u64);
        let arguments: u64 = delta
            .tool_calls
            .iter()
            .flatten()
            .filter_map(|c| c.function.as_ref()?.arguments.as_ref())
            .map(|a| match a {
                Value::String(s) => s.len() as u64,
                other => other.to_string().len() as u64,
            })
            .sum();
        self.said = self
            .said
            .saturating_add(len(&delta.content))
            .saturating_add(reasoning)
            .saturating_add(arguments);
        if self.said > self.max_bytes {
            return Err(LlmError::Limit(format!(
                "the model said more than {} bytes in one response ({BYTES_KEY}); ask for a \
                 shorter answer, or raise {BYTES_KEY} in the config",
                self.max_bytes
            )));
        }
        Ok(())
    }

    /// An error when `calls` tool calls are more than one response may carry.
    pub fn check_calls(&self, calls: usize) -> Result<(), LlmError> {
        if calls > self.max_calls {
            return Err(LlmError::Limit(format!(
                "the model made more than {} tool calls in one response ({CALLS_KEY}); none \
                 of them was run. Ask for fewer steps at a time, or raise {CALLS_KEY} in the \
                 config",
                self.max_calls
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(v: Value) -> Delta {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn text_reasoning_and_arguments_count_and_the_limit_is_inclusive() {
        let mut b = ResponseBudget::new(20, 64);
        b.spend(&delta(serde_json::json!({"content": "hello"})))
            .unwrap();
        b.spend(&delta(serde_json::json!({"reasoning_content": "think"})))
            .unwrap();
        b.spend(&delta(serde_json::json!({"tool_calls": [
            {"index": 0, "function": {"name": "read_file", "arguments": "{\"pa"}},
            {"index": 1, "function": {"arguments": "th\""}}
        ]})))
        .unwrap();
        assert_eq!(b.said(), 5 + 5 + 4 + 3);
        b.spend(&delta(serde_json::json!({"content": "abc"})))
            .unwrap();
        assert_eq!(b.said(), 20, "exactly at the limit is still allowed");
        let err = b
            .spend(&delta(serde_json::json!({"content": "x"})))
            .unwrap_err();
        assert!(!err.retryable(), "a response that repeats is not retried");
        let msg = err.to_string();
        assert!(msg.contains("more than 20 bytes"), "{msg}");
        assert!(msg.contains("max_response_bytes"), "{msg}");
    }

    #[test]
    fn reasoning_in_both_fields_counts_once_and_object_arguments_by_their_text() {
        let mut b = ResponseBudget::new(1000, 64);
        b.spend(&delta(serde_json::json!({
            "reasoning_content": "abcd",
            "reasoning": "abcd",
        })))
        .unwrap();
        assert_eq!(b.said(), 4);
        b.spend(&delta(serde_json::json!({"tool_calls": [
            {"function": {"name": "x", "arguments": {"a": 1}}}
        ]})))
        .unwrap();
        assert_eq!(b.said(), 4 + r#"{"a":1}"#.len() as u64);
    }

    #[test]
    fn names_ids_and_empty_deltas_cost_nothing() {
        let mut b = ResponseBudget::new(0, 64);
        b.spend(&delta(serde_json::json!({}))).unwrap();
        b.spend(&delta(serde_json::json!({"tool_calls": [
            {"index": 0, "id": "call_1", "function": {"name": "read_file"}}
        ]})))
        .unwrap();
        assert_eq!(b.said(), 0);
    }

    #[test]
    fn more_calls_than_the_bound_are_refused_naming_the_setting() {
        let b = ResponseBudget::new(1000, 64);
        assert!(b.check_calls(0).is_ok());
        assert!(b.check_calls(64).is_ok());
        let err = b.check_calls(65).unwrap_err();
        assert!(!err.retryable());
        let msg = err.to_string();
        assert!(msg.contains("more than 64 tool calls"), "{msg}");
        assert!(msg.contains("max_tool_calls_per_response"), "{msg}");
        assert!(msg.contains("none of them was run"), "{msg}");
    }
}
