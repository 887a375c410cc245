//! Fitting an MCP tool for a model provider: its name and its input schema.
//!
//! Servers describe tools with any JSON Schema; OpenAI-compatible providers reject a
//! request whose function names are not `[A-Za-z0-9_-]{1,64}`, whose parameters are not
//! an object schema, or which use composition (`anyOf`, `oneOf`, `allOf`, `not`, `enum`) at
//! the top level, and many local servers fail on `$ref`. One bad tool would break every
//! request, so each tool is checked here: what can be simplified is (local `$ref`s inlined,
//! top-level composition dropped, `properties` added), with a notice; what cannot is left
//! out, with a notice saying why.

use serde_json::{Map, Value};

/// The longest function name providers accept.
pub const MAX_NAME: usize = 64;
/// The largest input schema offered to the model, in bytes of JSON.
pub const MAX_SCHEMA_BYTES: usize = 32 * 1024;
/// How deep `$ref`s are inlined before the rest is left open.
const MAX_REF_DEPTH: usize = 8;

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

/// Fit `schema` for a provider, or say why the tool cannot be offered.
pub fn fit(schema: &Map<String, Value>) -> Result<Fitted, String> {
    let mut changes = Vec::new();
    let defs: Map<String, Value> = ["$defs", "definitions"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_object))
        .flat_map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())))
        .collect();
    let mut top = schema.clone();
    top.remove("$defs");
    top.remove("definitions");
    top.remove("$schema");
    top.remove("$id");
    match top.get("type") {
        None => {
            top.insert("type".into(), Value::from("object"));
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(format!(
                "its input schema has type {other} where providers need an object"
            ));
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "not", "enum"] {
        if top.remove(key).is_some() {
            changes.push(format!("dropped the top-level `{key}` providers refuse"));
        }
    }
    if !top.get("properties").is_some_and(Value::is_object) {
        top.insert("properties".into(), Value::Object(Map::new()));
    }
    let mut value = Value::Object(top);
    let mut refs = Refs::default();
    inline_refs(&mut value, &defs, 0, &mut refs);
    if refs.inlined > 0 {
        changes.push("inlined its `$ref` definitions".into());
    }
    if !refs.unresolved.is_empty() {
        refs.unresolved.sort();
        refs.unresolved.dedup();
        changes.push(format!(
            "left {} open (a reference Loom could not inline)",
            refs.unresolved.join(", ")
        ));
    }
    let bytes = value.to_string().len();
    if bytes > MAX_SCHEMA_BYTES {
        return Err(format!(
            "its input schema is {bytes} bytes, more than the {MAX_SCHEMA_BYTES} Loom offers a \
             model"
        ));
    }
    Ok(Fitted {
        schema: value,
        changes,
    })
}

/// What inlining did.
#[derive(Default)]
struct Refs {
    inlined: usize,
    unresolved: Vec<String>,
}

/// Replace local `$ref`s (`#/$defs/X`, `#/definitions/X`) by their definitions, up to
/// [`MAX_REF_DEPTH`] deep; a reference that cannot be inlined (remote, missing, or too
/// deep: a recursive type) becomes an open schema `{}` and is named in `refs`.
fn inline_refs(value: &mut Value, defs: &Map<String, Value>, depth: usize, refs: &mut Refs) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref").cloned() {
                let name = target
                    .strip_prefix("#/$defs/")
                    .or_else(|| target.strip_prefix("#/definitions/"));
                let found = name.and_then(|n| defs.get(n)).cloned();
                map.remove("$ref");
                match found {
                    Some(mut def) if depth < MAX_REF_DEPTH => {
                        refs.inlined += 1;
                        inline_refs(&mut def, defs, depth + 1, refs);
                        if let Value::Object(d) = def {
                            for (k, v) in d {
                                map.entry(k).or_insert(v);
                            }
                        }
                    }
                    _ => refs.unresolved.push(target),
                }
            }
            for v in map.values_mut() {
                inline_refs(v, defs, depth, refs);
            }
        }
        Value::Array(items) => {
            for v in items {
                inline_refs(v, defs, depth, refs);
            }
        }
        _ => {}
    }
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
