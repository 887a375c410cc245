//! OpenAI's strict mode for function calling ("Structured Outputs", `strict: true`): the
//! model's arguments are constrained to the schema, which must then follow stricter rules
//! (platform.openai.com/docs/guides/structured-outputs, "Supported schemas"): every object
//! lists all its properties in `required` and sets `"additionalProperties": false`, and an
//! optional property is expressed as one that may be `null`.
//!
//! [`strict`] turns a portable schema ([`super::normalise`]'s output) into that form, or
//! says it cannot: an object whose properties are not listed (a free-form map, such as
//! `http_request`'s headers) has no strict form, so that one function is sent without
//! `strict`. A strict model sends `null` for an optional argument it leaves out; Loom's
//! typed parsers read `null` as absent, and MCP calls drop such `null`s before they go.

use serde_json::{Map, Value};

/// Keywords strict mode does not support on a node of the portable form (its string
/// keywords are `pattern` and `format` only).
const UNSUPPORTED: &[&str] = &["minLength", "maxLength"];

/// The strict form of the portable schema `schema`, or `None` when it has none.
pub fn strict(schema: &Value) -> Option<Value> {
    let mut value = schema.clone();
    node(&mut value, false, true)?;
    Some(value)
}

/// Make `value` strict; `nullable` for an optional property. `top`: the parameters
/// object itself, whose properties may be empty (a tool without arguments).
fn node(value: &mut Value, nullable: bool, top: bool) -> Option<()> {
    let map = value.as_object_mut()?;
    for key in UNSUPPORTED {
        map.remove(*key);
    }
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        for v in variants.iter_mut() {
            node(v, false, false)?;
        }
        if nullable {
            let mut null = Map::new();
            null.insert("type".into(), Value::from("null"));
            variants.push(Value::Object(null));
        }
        return Some(());
    }
    let ty = map.get("type")?.as_str()?.to_string();
    match ty.as_str() {
        "object" => {
            let props = map.get_mut("properties")?.as_object_mut()?;
            if props.is_empty() && !top {
                return None;
            }
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let props = map.get_mut("properties")?.as_object_mut()?;
            for (name, prop) in props.iter_mut() {
                node(prop, !required.contains(name), false)?;
            }
            let all: Vec<Value> = props.keys().cloned().map(Value::from).collect();
            map.insert("required".into(), Value::Array(all));
            map.insert("additionalProperties".into(), Value::Bool(false));
        }
        "array" => {
            node(map.get_mut("items")?, false, false)?;
        }
        _ => {}
    }
    if nullable {
        map.insert(
            "type".into(),
            Value::Array(vec![Value::from(ty), Value::from("null")]),
        );
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
    }
    Some(())
}

/// Switch one OpenAI function-tool entry to strict mode when its parameters have a strict
/// form; leave it as it is (and so non-strict) when they do not.
pub fn make_strict(tool: &mut Value) {
    let Some(function) = tool.get_mut("function").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(form) = function.get("parameters").and_then(strict) else {
        return;
    };
    function.insert("parameters".into(), form);
    function.insert("strict".into(), Value::Bool(true));
}
