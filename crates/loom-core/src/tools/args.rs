//! Typed tool arguments: the JSON Schema the model sees and the parser that reads its
//! calls come from the same Rust type, so they cannot drift apart.
//!
//! Parsing is the schema validation: serde rejects wrong types, missing required fields and
//! (with `deny_unknown_fields`) unknown ones. Errors are rewritten into sentences a model
//! can act on: "missing field `path`; expected {path, line_range?, max_bytes?}".

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ToolError;

/// The JSON Schema for `T`, shaped for OpenAI function parameters: no `$schema`, no
/// `title`, subschemas inlined, and optional fields typed plainly (not `["x", "null"]`)
/// because several local servers choke on type unions.
pub fn schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if let Some(obj) = value.as_object_mut() {
        obj.remove("title");
        obj.remove("$schema");
    }
    simplify(&mut value);
    value
}

/// Drop `null` from type unions and `"default": null`, recursively.
fn simplify(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            if let Some(Value::Array(types)) = obj.get("type").cloned() {
                let kept: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
                if kept.len() == 1 {
                    obj.insert("type".into(), kept[0].clone());
                } else {
                    obj.insert("type".into(), Value::Array(kept));
                }
            }
            if obj.get("default") == Some(&Value::Null) {
                obj.remove("default");
            }
            if let Some(Value::Array(any_of)) = obj.get("anyOf").cloned() {
                let kept: Vec<Value> = any_of
                    .into_iter()
                    .filter(|s| s.get("type") != Some(&Value::String("null".into())))
                    .collect();
                if kept.len() == 1 {
                    obj.remove("anyOf");
                    if let Value::Object(inner) = &kept[0] {
                        for (k, v) in inner {
                            obj.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                } else {
                    obj.insert("anyOf".into(), Value::Array(kept));
                }
            }
            for v in obj.values_mut() {
                simplify(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(simplify),
        _ => {}
    }
}

/// A short signature of the schema's fields: `{path, line_range?, max_bytes?}`.
pub fn field_summary(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .keys()
                .map(|k| {
                    if required.contains(&k.as_str()) {
                        k.clone()
                    } else {
                        format!("{k}?")
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    format!("{{{}}}", fields.join(", "))
}

/// Normalise what models send as arguments: a JSON object, a string holding a JSON object
/// (some servers double-encode), or nothing at all (treated as `{}`).
pub fn normalise(args: Value) -> Result<Value, ToolError> {
    match args {
        Value::Object(_) => Ok(args),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(s) if s.trim().is_empty() => Ok(Value::Object(Map::new())),
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(ToolError::InvalidArguments(format!(
                "arguments must be a JSON object, got the string {}",
                crate::base::text::preview_str(&s, 80)
            ))),
        },
        other => Err(ToolError::InvalidArguments(format!(
            "arguments must be a JSON object, got {}",
            json_kind(&other)
        ))),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The one canonical form of a call to `tool`: [`normalise`]d, the names other harnesses
/// use mapped to Loom's ([`super::aliases`]), and top-level `null`s dropped (a strict-mode
/// model sends `null` for an optional argument it leaves out; no tool reads a top-level
/// `null` as anything but absent). Nested `null`s are kept: inside a free-form object one
/// may be meant. Returns the arguments and the names that were mapped.
pub fn canonical(
    tool: &str,
    args: Value,
) -> Result<(Value, Vec<super::aliases::Mapped>), ToolError> {
    let mut map = match normalise(args)? {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mapped = super::aliases::apply(tool, &mut map)?;
    map.retain(|_, v| !v.is_null());
    Ok((Value::Object(map), mapped))
}

/// Parse `args` into `T`, with errors that name what was expected.
pub fn parse<T: DeserializeOwned + JsonSchema>(args: Value) -> Result<T, ToolError> {
    let args = normalise(args)?;
    serde_json::from_value::<T>(args).map_err(|e| {
        let summary = field_summary(&schema_for::<T>());
        ToolError::InvalidArguments(format!("{e}; expected {summary}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// Test arguments.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Demo {
        /// A path.
        path: String,
        /// Optional range.
        line_range: Option<[u64; 2]>,
    }

    #[test]
    fn schema_is_plain_object_schema() {
        let s = schema_for::<Demo>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["path"]));
        assert!(s.get("title").is_none() && s.get("$schema").is_none());
        assert_eq!(s["properties"]["line_range"]["type"], "array");
        assert_eq!(s["properties"]["path"]["description"], "A path.");
    }

    #[test]
    fn missing_field_names_expected_fields() {
        let err = parse::<Demo>(json!({})).unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid arguments: missing field `path`; expected {path, line_range?}"
        );
    }

    #[test]
    fn unknown_field_is_an_error() {
        let err = parse::<Demo>(json!({"path": "a", "pth": 1}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `pth`"), "{err}");
        assert!(err.contains("expected {path, line_range?}"), "{err}");
    }

    #[test]
    fn wrong_type_is_an_error() {
        let err = parse::<Demo>(json!({"path": 3})).unwrap_err().to_string();
        assert!(err.contains("invalid type"), "{err}");
    }

    /// What a strict-mode model sends for an argument it leaves out reaches no tool; a
    /// `null` inside a value is the value's own.
    #[test]
    fn top_level_nulls_are_dropped_and_nested_ones_kept() {
        let (args, mapped) = canonical("x", json!({"a": null, "o": {"b": null, "c": 1}})).unwrap();
        assert_eq!(args, json!({"o": {"b": null, "c": 1}}));
        assert!(mapped.is_empty());
    }

    #[test]
    fn double_encoded_and_null_arguments() {
        let d: Demo = parse(json!("{\"path\":\"x\"}")).unwrap();
        assert_eq!(d.path, "x");
        assert!(parse::<Demo>(Value::Null).is_err());
        let err = parse::<Demo>(json!([1])).unwrap_err().to_string();
        assert!(err.contains("must be a JSON object, got an array"), "{err}");
    }
}
