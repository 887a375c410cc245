//! How a few fields of [`super::AgentEvent`] are written where the event's `Serialize` (the
//! JSONL of `loom exec --json`, docs/exec.md) keeps a shape of its own: an approval's
//! decision as a word, and every key of a tool result and of a turn's usage, present even
//! when empty (their own `Serialize`, which session files use, leaves empty keys out).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::tool_result::ToolResult;
use crate::usage::Usage;

/// An approval's `approved` flag as `decision`: `approved` or `denied`.
pub mod decision {
    use super::{Deserialize, Deserializer, Serializer};

    /// `true` as `approved`, `false` as `denied`.
    pub fn serialize<S: Serializer>(approved: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if *approved { "approved" } else { "denied" })
    }

    /// `approved` as `true`, `denied` as `false`; any other word is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        match String::deserialize(d)?.as_str() {
            "approved" => Ok(true),
            "denied" => Ok(false),
            other => Err(serde::de::Error::unknown_variant(
                other,
                &["approved", "denied"],
            )),
        }
    }
}

/// Every key of a tool result the model reads, `null` or empty when it has none.
#[derive(Serialize)]
struct ResultKeys<'a> {
    success: bool,
    output: &'a str,
    error: &'a Option<String>,
    data: &'a Option<Value>,
    files_changed: &'a [String],
}

/// A tool result with all its keys (flattened into its event).
pub fn result_keys<S: Serializer>(result: &ToolResult, s: S) -> Result<S::Ok, S::Error> {
    ResultKeys {
        success: result.success,
        output: &result.output,
        error: &result.error,
        data: &result.data,
        files_changed: &result.files_changed,
    }
    .serialize(s)
}

/// Every key of a turn's usage, `estimated` also when false.
#[derive(Serialize)]
struct UsageKeys {
    prompt_tokens: u64,
    completion_tokens: u64,
    estimated: bool,
}

/// A turn's usage with all its keys.
pub fn usage_keys<S: Serializer>(usage: &Usage, s: S) -> Result<S::Ok, S::Error> {
    UsageKeys {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        estimated: usage.estimated,
    }
    .serialize(s)
}
