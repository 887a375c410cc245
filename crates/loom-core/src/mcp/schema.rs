//! Fitting an MCP tool for a model provider: its name and its input schema.
//!
//! Servers describe tools with any JSON Schema; OpenAI-compatible providers reject a
//! request whose function names are not `[A-Za-z0-9_-]{1,64}` or whose parameters are not
//! an object schema, and each accepts its own subset of JSON Schema. One bad tool would
//! break every request, so each tool is checked here: its schema is brought to the
//! portable form by [`crate::llm::schema`] (local `$ref`s inlined, top-level
//! composition merged, `properties` added), with a notice of what changed; what cannot be
//! offered is left out, with a notice saying why.

use serde_json::{Map, Value};

use crate::llm::schema::normalise;

/// The longest function name providers accept.
pub const MAX_NAME: usize = 64;
/// The largest input schema offered to the model, in bytes of JSON.
pub const MAX_SCHEMA_BYTES: usize = 32 * 1024;

/// The name the model calls a server's tool by: `mcp__SERVER__TOOL`, with characters a
/// provider would refuse replaced by `_`; `None` when it is longer than [`MAX_NAME`].
pub fn tool_name(server: &str, tool: &str) -> Option<String> {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = format!("mcp__{server}__{clean}");
    (name.len() <= MAX_NAME && !clean.is_empty()).then_some(name)
}

/// An input schema a provider accepts, and what was changed to get there.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The schema to offer.
    pub schema: Value,
    /// What was simplified (empty when nothing was).
    pub changes: Vec<String>,
}

/// Fit `schema` for a provider, or say why the tool cannot be offered: its top level must
/// be an object schema; the rest is [`crate::llm::schema::normalise`]'s work.
pub fn fit(schema: &Map<String, Value>) -> Result<Fitted, String> {
    match schema.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        Some(Value::Array(types)) if types.iter().any(|t| t == "object") => {}
        Some(other) => {
            return Err(format!(
                "its input schema has type {other} where providers need an object"
            ));
        }
    }
    let normalised = normalise(&Value::Object(schema.clone()));
    let bytes = normalised.schema.to_string().len();
    if bytes > MAX_SCHEMA_BYTES {
        return Err(format!(
            "its input schema is {bytes} bytes, more than the {MAX_SCHEMA_BYTES} Loom offers a \
             model"
        ));
    }
    Ok(Fitted {
        schema: normalised.schema,
        changes: normalised.changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn names_are_prefixed_cleaned_and_bounded() {
        assert_eq!(tool_name("git", "status").unwrap(), "mcp__git__status");
        assert_eq!(
            tool_name("ev", "get-sum.v2/x").unwrap(),
            "mcp__ev__get-sum_v2_x"
        );
        assert_eq!(tool_name("s", &"x".repeat(60)), None);
        assert_eq!(tool_name("s", ""), None);
    }

    #[test]
    fn a_plain_object_schema_passes_untouched_but_for_meta_keys() {
        let s = obj(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": {"type": "number"}},
            "required": ["a"]
        }));
        let f = fit(&s).unwrap();
        assert!(f.changes.is_empty(), "{:?}", f.changes);
        assert_eq!(
            f.schema,
            json!({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]})
        );
    }

    #[test]
    fn missing_type_and_properties_are_filled_in() {
        let f = fit(&obj(json!({}))).unwrap();
        assert_eq!(f.schema, json!({"type": "object", "properties": {}}));
    }

    #[test]
    fn top_level_composition_is_dropped_with_a_notice() {
        let f = fit(&obj(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}]
        })))
        .unwrap();
        assert!(f.schema.get("anyOf").is_none());
        assert_eq!(f.changes.len(), 1);
        assert!(f.changes[0].contains("anyOf"));
    }

    #[test]
    fn local_refs_are_inlined_and_recursive_ones_left_open() {
        let f = fit(&obj(json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/Point"}},
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}}
        })))
        .unwrap();
        assert_eq!(
            f.schema["properties"]["p"]["properties"]["x"]["type"],
            "number"
        );
        assert!(!f.schema.to_string().contains("$ref"));
        assert!(f.changes[0].contains("inlined"), "{:?}", f.changes);
        let f = fit(&obj(json!({
            "type": "object",
            "properties": {"n": {"$ref": "#/definitions/Node"}},
            "definitions": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/Node"}}}}
        })))
        .unwrap();
        assert!(!f.schema.to_string().contains("$ref"));
        assert!(
            f.changes
                .iter()
                .any(|c| c.contains("left #/definitions/Node open")),
            "{:?}",
            f.changes
        );
    }

    #[test]
    fn schemas_providers_refuse_are_left_out_with_the_reason() {
        let err = fit(&obj(json!({"type": "string"}))).unwrap_err();
        assert!(err.contains("need an object"), "{err}");
        let mut props = Map::new();
        for i in 0..2000 {
            props.insert(
                format!("field_{i}"),
                json!({"type": "string", "description": "x".repeat(20)}),
            );
        }
        let err = fit(&obj(json!({"type": "object", "properties": props}))).unwrap_err();
        assert!(err.contains("bytes, more than"), "{err}");
    }
}
