//! Assembling streamed tool-call fragments into whole calls, whatever the server's dialect.
//!
//! Handles: arguments split across many chunks; a whole call in one chunk; the first
//! fragment carrying id, name and the start of the arguments together (llama.cpp); missing
//! `index` (calls told apart by id or by a new name); missing, empty or repeated ids
//! (replaced by stable synthetic ids); arguments sent as a JSON object instead of a string;
//! several calls in one response. Arguments that are not valid JSON are reported per call,
//! never a crash.

use std::collections::HashMap;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use super::message::ToolCall;
use super::wire::ToolCallDelta;

#[derive(Debug, Default, Clone)]
struct Partial {
    id: Option<String>,
    name: String,
    args: String,
}

/// Collects fragments; [`CallAssembler::finish`] yields the calls.
#[derive(Debug, Default, Clone)]
pub struct CallAssembler {
    calls: Vec<Partial>,
    by_index: HashMap<u32, usize>,
}

/// A finished call, and what is wrong with its arguments if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledCall {
    /// The call (arguments replaced by `{}` when they were not valid JSON, so the
    /// conversation stays acceptable to strict servers).
    pub call: ToolCall,
    /// Why the arguments could not be used, for the tool result.
    pub args_error: Option<String>,
    /// The arguments as the model wrote them, when they were not valid JSON (what the
    /// front ends show of such a call; the conversation keeps `{}`).
    pub raw_arguments: Option<String>,
}

impl CallAssembler {
    /// An empty assembler.
    pub fn new() -> CallAssembler {
        CallAssembler::default()
    }

    /// Whether any fragment arrived.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Names of the calls seen so far.
    pub fn names(&self) -> Vec<&str> {
        self.calls.iter().map(|c| c.name.as_str()).collect()
    }

    fn slot_for(&mut self, delta: &ToolCallDelta) -> usize {
        let id = delta.id.as_deref().filter(|s| !s.is_empty());
        let name = delta
            .function
            .as_ref()
            .and_then(|f| f.name.as_deref())
            .filter(|s| !s.is_empty());
        if let Some(index) = delta.index {
            if let Some(&slot) = self.by_index.get(&index) {
                return slot;
            }
            self.calls.push(Partial::default());
            let slot = self.calls.len() - 1;
            self.by_index.insert(index, slot);
            return slot;
        }
        if let Some(id) = id
            && let Some(slot) = self.calls.iter().position(|c| c.id.as_deref() == Some(id))
        {
            return slot;
        }
        let new_call = match self.calls.last() {
            None => true,
            Some(last) => {
                let other_id = matches!((id, last.id.as_deref()), (Some(a), Some(b)) if a != b);
                let another_name = name.is_some() && !last.name.is_empty() && !last.args.is_empty();
                other_id || another_name
            }
        };
        if new_call {
            self.calls.push(Partial::default());
        }
        self.calls.len() - 1
    }

    /// Take in one fragment.
    pub fn push(&mut self, delta: &ToolCallDelta) {
        let slot = self.slot_for(delta);
        let partial = &mut self.calls[slot];
        if let Some(id) = delta.id.as_deref().filter(|s| !s.is_empty())
            && partial.id.is_none()
        {
            partial.id = Some(id.to_string());
        }
        let Some(function) = &delta.function else {
            return;
        };
        if let Some(name) = function.name.as_deref().filter(|s| !s.is_empty()) {
            if partial.name.is_empty() {
                partial.name = name.to_string();
            } else if partial.name != name && partial.args.is_empty() {
                partial.name.push_str(name);
            }
        }
        match &function.arguments {
            Some(Value::String(piece)) => partial.args.push_str(piece),
            Some(Value::Null) | None => {}
            Some(whole) => partial.args = whole.to_string(),
        }
    }

    /// The calls, in order, with stable ids and checked arguments.
    pub fn finish(self) -> Vec<AssembledCall> {
        finish_calls(self.into_raw())
    }

    /// How many calls have started so far.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// The raw `(id, name, arguments)` triples, to merge with calls from other sources
    /// before [`finish_calls`] assigns ids.
    pub fn into_raw(self) -> Vec<(Option<String>, String, String)> {
        self.calls
            .into_iter()
            .map(|p| (p.id, p.name, p.args))
            .collect()
    }
}

/// Turn raw `(id, name, arguments)` triples into checked calls with unique, stable ids.
pub fn finish_calls(raw: Vec<(Option<String>, String, String)>) -> Vec<AssembledCall> {
    let mut seen = HashSet::new();
    raw.into_iter()
        .enumerate()
        .map(|(i, (id, name, args))| {
            let name = name.trim().to_string();
            let (arguments, args_error) = check_arguments(&args);
            let raw_arguments = args_error.is_some().then(|| args.clone());
            let id = match id {
                Some(id) if !id.trim().is_empty() && !seen.contains(&id) => id,
                _ => synthetic_id(i, &name, &arguments),
            };
            seen.insert(id.clone());
            let args_error = if name.is_empty() {
                Some("the tool call has no tool name".to_string())
            } else {
                args_error
            };
            AssembledCall {
                call: ToolCall {
                    id,
                    name,
                    arguments,
                },
                args_error,
                raw_arguments,
            }
        })
        .collect()
}

fn synthetic_id(i: usize, name: &str, args: &str) -> String {
    let mut h = DefaultHasher::new();
    (name, args).hash(&mut h);
    format!("call_{i}_{:08x}", h.finish() as u32)
}

/// Normalise argument text; on failure return `{}` and the reason.
fn check_arguments(raw: &str) -> (String, Option<String>) {
    let trimmed = raw.trim();
    let unfenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|s| s.strip_suffix("```"))
        .map(str::trim)
        .unwrap_or(trimmed);
    if unfenced.is_empty() {
        return ("{}".to_string(), None);
    }
    match serde_json::from_str::<Value>(unfenced) {
        Ok(_) => (unfenced.to_string(), None),
        Err(e) => {
            let shown = loom_base::text::preview_str(unfenced, 200);
            (
                "{}".to_string(),
                Some(format!(
                    "the arguments are not valid JSON ({e}): {shown}; call the tool again with a \
                     JSON object as arguments"
                )),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::FunctionDelta;
    use serde_json::json;

    fn d(
        index: Option<u32>,
        id: Option<&str>,
        name: Option<&str>,
        args: Option<Value>,
    ) -> ToolCallDelta {
        ToolCallDelta {
            index,
            id: id.map(str::to_string),
            function: Some(FunctionDelta {
                name: name.map(str::to_string),
                arguments: args,
            }),
        }
    }

    fn assemble(deltas: &[ToolCallDelta]) -> Vec<AssembledCall> {
        let mut a = CallAssembler::new();
        for x in deltas {
            a.push(x);
        }
        a.finish()
    }

    #[test]
    fn openai_split_arguments() {
        let calls = assemble(&[
            d(Some(0), Some("call_a"), Some("read_file"), Some(json!(""))),
            d(Some(0), None, None, Some(json!("{\"pa"))),
            d(Some(0), None, None, Some(json!("th\": \"x\"}"))),
        ]);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].call.id, "call_a");
        assert_eq!(calls[0].call.arguments, "{\"path\": \"x\"}");
        assert!(calls[0].args_error.is_none());
    }

    #[test]
    fn llamacpp_first_delta_packs_everything() {
        let calls = assemble(&[
            d(Some(0), Some("abc"), Some("bash"), Some(json!("{"))),
            d(Some(0), None, None, Some(json!("\"command\":\"ls\"}"))),
        ]);
        assert_eq!(calls[0].call.arguments, "{\"command\":\"ls\"}");
    }

    #[test]
    fn ollama_whole_calls_without_ids_or_index() {
        let calls = assemble(&[
            d(None, None, Some("read_file"), Some(json!({"path": "a"}))),
            d(None, None, Some("read_file"), Some(json!({"path": "b"}))),
        ]);
        assert_eq!(calls.len(), 2);
        assert_ne!(calls[0].call.id, calls[1].call.id);
        assert!(calls[0].call.id.starts_with("call_0_"));
        assert_eq!(calls[1].call.arguments, "{\"path\":\"b\"}");
        let again = assemble(&[
            d(None, None, Some("read_file"), Some(json!({"path": "a"}))),
            d(None, None, Some("read_file"), Some(json!({"path": "b"}))),
        ]);
        assert_eq!(calls, again, "synthetic ids are stable");
    }

    #[test]
    fn parallel_calls_interleaved_by_index() {
        let calls = assemble(&[
            d(
                Some(0),
                Some("a"),
                Some("read_file"),
                Some(json!("{\"path\":")),
            ),
            d(Some(1), Some("b"), Some("list_files"), Some(json!("{"))),
            d(Some(0), None, None, Some(json!("\"x\"}"))),
            d(Some(1), None, None, Some(json!("}"))),
        ]);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].call.arguments, "{\"path\":\"x\"}");
        assert_eq!(calls[1].call.name, "list_files");
        assert_eq!(calls[1].call.arguments, "{}");
    }

    #[test]
    fn repeated_and_duplicate_ids() {
        let calls = assemble(&[
            d(Some(0), Some("same"), Some("read_file"), Some(json!("{}"))),
            d(Some(0), Some("same"), None, None),
            d(Some(1), Some("same"), Some("list_files"), Some(json!("{}"))),
        ]);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].call.id, "same");
        assert_ne!(calls[1].call.id, "same");
    }

    #[test]
    fn ids_without_index_separate_calls() {
        let calls = assemble(&[
            d(
                None,
                Some("x1"),
                Some("read_file"),
                Some(json!("{\"path\":\"a\"}")),
            ),
            d(
                None,
                Some("x2"),
                Some("read_file"),
                Some(json!("{\"path\":\"b\"}")),
            ),
        ]);
        assert_eq!(calls.len(), 2);
    }

    #[test]
    fn invalid_json_is_reported_and_replaced() {
        let calls = assemble(&[d(
            Some(0),
            Some("a"),
            Some("bash"),
            Some(json!("{\"command\": ls}")),
        )]);
        assert_eq!(calls[0].call.arguments, "{}");
        let err = calls[0].args_error.as_ref().unwrap();
        assert!(err.contains("not valid JSON"), "{err}");
        assert!(err.contains("ls}"), "{err}");
    }

    #[test]
    fn empty_arguments_and_fences() {
        let calls = assemble(&[d(Some(0), None, Some("list_files"), None)]);
        assert_eq!(calls[0].call.arguments, "{}");
        assert!(calls[0].args_error.is_none());
        let calls = assemble(&[d(
            Some(0),
            None,
            Some("list_files"),
            Some(json!("```json\n{\"path\":\"a\"}\n```")),
        )]);
        assert_eq!(calls[0].call.arguments, "{\"path\":\"a\"}");
    }

    #[test]
    fn missing_name_is_an_error() {
        let calls = assemble(&[d(Some(0), Some("a"), None, Some(json!("{}")))]);
        assert!(
            calls[0]
                .args_error
                .as_ref()
                .unwrap()
                .contains("no tool name")
        );
    }
}
