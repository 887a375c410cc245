//! What each provider refuses in a function tool, written as code: one rule set per
//! provider, each rule citing where the provider says so. A rule set returns the
//! violations it finds in one OpenAI function-tool entry (`{"type": "function",
//! "function": {name, description, parameters, strict?}}`); empty means accepted.
//!
//! These are the providers' documented limits, kept apart from Loom's normaliser
//! (`loom::llm::schema`) so the test checks the normaliser against the rules rather than
//! against itself.

use serde_json::{Map, Value};

/// One provider's rules.
pub struct RuleSet {
    /// The provider, as the test names it.
    pub name: &'static str,
    /// The violations in one function-tool entry.
    pub check: fn(&Value) -> Vec<String>,
}

/// Every rule set for a tool sent without `strict` (OpenAI strict mode is [`openai_strict`],
/// applied to the entries sent with `strict: true`).
pub const PORTABLE: &[RuleSet] = &[
    RuleSet {
        name: "OpenAI",
        check: openai,
    },
    RuleSet {
        name: "Gemini (OpenAI-compatible endpoint)",
        check: gemini,
    },
    RuleSet {
        name: "Anthropic (OpenAI SDK compatibility)",
        check: anthropic,
    },
    RuleSet {
        name: "Ollama",
        check: ollama,
    },
    RuleSet {
        name: "llama.cpp",
        check: llama_cpp,
    },
];

/// What [`walk`] calls for each subschema: the node, its path, its nesting depth.
type Visit<'a> = dyn FnMut(&Map<String, Value>, &str, usize) + 'a;

fn function(tool: &Value) -> &Value {
    &tool["function"]
}

fn parameters(tool: &Value) -> &Value {
    &tool["function"]["parameters"]
}

/// Visit every subschema of `schema` (itself, property schemas, `items`, `anyOf`/`oneOf`/
/// `allOf` variants, `$defs`) with its path and nesting depth.
fn walk(schema: &Value, path: &str, depth: usize, f: &mut Visit<'_>) {
    let Some(node) = schema.as_object() else {
        return;
    };
    f(node, path, depth);
    if let Some(Value::Object(props)) = node.get("properties") {
        for (k, v) in props {
            walk(v, &format!("{path}.properties.{k}"), depth + 1, f);
        }
    }
    if let Some(items) = node.get("items") {
        walk(items, &format!("{path}.items"), depth + 1, f);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(vs)) = node.get(key) {
            for (i, v) in vs.iter().enumerate() {
                walk(v, &format!("{path}.{key}[{i}]"), depth + 1, f);
            }
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = node.get(key) {
            for (k, v) in defs {
                walk(v, &format!("{path}.{key}.{k}"), depth, f);
            }
        }
    }
}

fn name_matches(name: &str, extra: &[char]) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(&c))
}

/// Rules every provider shares for the top of `parameters`.
fn top_is_plain_object(tool: &Value, out: &mut Vec<String>) {
    let p = parameters(tool);
    if p.get("type") != Some(&Value::from("object")) {
        out.push(format!("parameters type is {}, not \"object\"", p["type"]));
    }
    for key in ["oneOf", "anyOf", "allOf", "enum", "not"] {
        if p.get(key).is_some() {
            out.push(format!("top-level `{key}`"));
        }
    }
}

/// OpenAI Chat Completions, function tools without `strict`.
pub fn openai(tool: &Value) -> Vec<String> {
    let mut out = Vec::new();
    // API reference, chat.completions.create › tools › function.name: "Must be a-z, A-Z,
    // 0-9, or contain underscores and dashes, with a maximum length of 64."
    let name = function(tool)["name"].as_str().unwrap_or_default();
    if !name_matches(name, &[]) {
        out.push(format!("name {name:?} is not [a-zA-Z0-9_-]{{1,64}}"));
    }
    // The API answers 400 "Invalid schema for function 'X': schema must be a JSON Schema
    // of 'type: \"object\"'" for any other top level (issue 24, the `browser` tool's
    // top-level oneOf), and "array schema missing items" for an array without `items`.
    top_is_plain_object(tool, &mut out);
    walk(parameters(tool), "parameters", 0, &mut |node, path, _| {
        if node.get("type") == Some(&Value::from("array")) && node.get("items").is_none() {
            out.push(format!("{path}: array schema missing items"));
        }
    });
    out
}

/// OpenAI strict mode (`strict: true`): platform.openai.com/docs/guides/structured-outputs,
/// "Supported schemas".
pub fn openai_strict(tool: &Value) -> Vec<String> {
    // "Root objects must not be anyOf and must be an object": [`openai`]'s top rules.
    let mut out = openai(tool);
    if function(tool)["strict"] != Value::Bool(true) {
        out.push("not marked strict".into());
    }
    // "Supported properties": these keywords (plus composition by anyOf and $defs/$ref).
    const SUPPORTED: &[&str] = &[
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$defs",
        "$ref",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    ];
    // "Supported string formats".
    const FORMATS: &[&str] = &[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    let mut properties = 0;
    let mut enum_values = 0;
    walk(
        parameters(tool),
        "parameters",
        0,
        &mut |node, path, depth| {
            for key in node.keys() {
                if !SUPPORTED.contains(&key.as_str()) {
                    out.push(format!("{path}: `{key}` is not supported in strict mode"));
                }
            }
            // "Objects have limitations on nesting depth and size": up to 10 levels of nesting.
            if depth > 10 {
                out.push(format!("{path}: nested {depth} levels deep (at most 10)"));
            }
            if let Some(f) = node.get("format").and_then(Value::as_str)
                && !FORMATS.contains(&f)
            {
                out.push(format!("{path}: format {f:?} is not supported"));
            }
            if let Some(Value::Array(values)) = node.get("enum") {
                enum_values += values.len();
            }
            let is_object = match node.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => false,
            };
            if is_object {
                let props: Vec<&String> = node
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().collect())
                    .unwrap_or_default();
                properties += props.len();
                // "additionalProperties: false must always be set in objects".
                if node.get("additionalProperties") != Some(&Value::Bool(false)) {
                    out.push(format!("{path}: additionalProperties is not false"));
                }
                // "All fields must be required" (optional ones are unions with null).
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for p in &props {
                    if !required.contains(&p.as_str()) {
                        out.push(format!("{path}: property {p} is not required"));
                    }
                }
            }
        },
    );
    // "A schema may have up to 5000 object properties total" and "up to 1000 enum values
    // across all enum properties".
    if properties > 5000 {
        out.push(format!("{properties} properties (at most 5000)"));
    }
    if enum_values > 1000 {
        out.push(format!("{enum_values} enum values (at most 1000)"));
    }
    out
}

/// Gemini's OpenAI-compatible endpoint (ai.google.dev/gemini-api/docs/openai, "Function
/// calling"): the parameters become a `FunctionDeclaration`'s `Schema`, which "represents
/// a select subset of an OpenAPI 3.0 schema object" (ai.google.dev/api/caching#Schema).
pub fn gemini(tool: &Value) -> Vec<String> {
    let mut out = Vec::new();
    // FunctionDeclaration.name: "a-z, A-Z, 0-9, or contain underscores, colons, dots, and
    // dashes, with a maximum length of 64."
    let name = function(tool)["name"].as_str().unwrap_or_default();
    if !name_matches(name, &[':', '.']) {
        out.push(format!("name {name:?} is not a Gemini function name"));
    }
    top_is_plain_object(tool, &mut out);
    // The Schema object's fields; any other key is "Invalid JSON payload received.
    // Unknown name".
    const FIELDS: &[&str] = &[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    ];
    // Schema.type is one `Type` enum value.
    const TYPES: &[&str] = &["string", "number", "integer", "boolean", "array", "object"];
    walk(parameters(tool), "parameters", 0, &mut |node, path, _| {
        for key in node.keys() {
            if !FIELDS.contains(&key.as_str()) {
                out.push(format!("{path}: unknown field `{key}`"));
            }
        }
        let ty = match node.get("type") {
            Some(Value::String(t)) if TYPES.contains(&t.as_str()) => Some(t.as_str()),
            Some(other) => {
                out.push(format!("{path}: type {other} is not one Schema type"));
                None
            }
            None => {
                if node.get("anyOf").is_none() {
                    out.push(format!("{path}: neither a type nor anyOf"));
                }
                None
            }
        };
        // Schema.format: "NUMBER type: float, double; INTEGER type: int32, int64; STRING
        // type: enum, date-time".
        if let Some(f) = node.get("format").and_then(Value::as_str) {
            let allowed: &[&str] = match ty {
                Some("number") => &["float", "double"],
                Some("integer") => &["int32", "int64"],
                Some("string") => &["enum", "date-time"],
                _ => &[],
            };
            if !allowed.contains(&f) {
                out.push(format!("{path}: format {f:?} is not supported for {ty:?}"));
            }
        }
        // Schema.enum is `string[]`, for STRING.
        if let Some(values) = node.get("enum") {
            let strings = values
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string));
            if !strings || ty != Some("string") {
                out.push(format!(
                    "{path}: enum {values} is not a list of strings on a string"
                ));
            }
        }
        if let Some(required) = node.get("required") {
            let props = node.get("properties").and_then(Value::as_object);
            for r in required.as_array().into_iter().flatten() {
                if !r
                    .as_str()
                    .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)))
                {
                    out.push(format!("{path}: required {r} is not a property"));
                }
            }
        }
    });
    out
}

/// Anthropic's OpenAI SDK compatibility (docs.claude.com/en/api/openai-sdk, "tools /
/// functions fields": name, description and parameters supported, `strict` ignored); the
/// parameters become a tool's `input_schema` (docs.claude.com/en/docs/agents-and-tools/
/// tool-use/implement-tool-use, "Specifying client tools").
pub fn anthropic(tool: &Value) -> Vec<String> {
    let mut out = Vec::new();
    // "name: … Must match the regex ^[a-zA-Z0-9_-]{1,64}$."
    let name = function(tool)["name"].as_str().unwrap_or_default();
    if !name_matches(name, &[]) {
        out.push(format!("name {name:?} is not ^[a-zA-Z0-9_-]{{1,64}}$"));
    }
    // input_schema: "A JSON Schema object"; the top level must be `type: object`, and
    // `oneOf`, `allOf` and `anyOf` are not supported at the top level.
    top_is_plain_object(tool, &mut out);
    // The schema must itself be valid JSON Schema (draft 2020-12): types from the spec's
    // list, `required` a list of unique strings, `enum` a non-empty list, `properties` an
    // object of schemas.
    const TYPES: &[&str] = &[
        "string", "number", "integer", "boolean", "array", "object", "null",
    ];
    walk(parameters(tool), "parameters", 0, &mut |node, path, _| {
        let types: Vec<&Value> = match node.get("type") {
            Some(Value::Array(ts)) => ts.iter().collect(),
            Some(t) => vec![t],
            None => Vec::new(),
        };
        for t in types {
            if !t.as_str().is_some_and(|t| TYPES.contains(&t)) {
                out.push(format!("{path}: type {t} is not a JSON Schema type"));
            }
        }
        if let Some(r) = node.get("required") {
            let names: Vec<&str> = r
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let unique: std::collections::BTreeSet<&&str> = names.iter().collect();
            if !r.is_array()
                || names.len() != r.as_array().map_or(0, Vec::len)
                || unique.len() != names.len()
            {
                out.push(format!(
                    "{path}: required {r} is not a list of unique strings"
                ));
            }
        }
        if let Some(e) = node.get("enum")
            && e.as_array().is_none_or(|e| e.is_empty())
        {
            out.push(format!("{path}: enum {e} is not a non-empty list"));
        }
        if let Some(p) = node.get("properties")
            && !p
                .as_object()
                .is_some_and(|p| p.values().all(Value::is_object))
        {
            out.push(format!("{path}: properties is not an object of schemas"));
        }
        if node.contains_key("$ref") {
            out.push(format!("{path}: a `$ref` (its target is not sent)"));
        }
    });
    out
}

/// Ollama (`/v1/chat/completions` and `/api/chat`): tools decode into the Go types of
/// github.com/ollama/ollama api/types.go — `ToolFunction.Parameters {Type string,
/// Required []string, Properties map[string]ToolProperty}` and `ToolProperty {Type
/// PropertyType (a string or a list of strings), Items, Description string, Enum []any}`.
/// A value that does not decode is a 400; every other keyword is dropped silently, so a
/// property must say its `type` (or offer typed `anyOf` variants) for the model to see it.
pub fn ollama(tool: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let p = parameters(tool);
    if !p["type"].is_string() {
        out.push("parameters.type is not a string".into());
    }
    if p.get("type") != Some(&Value::from("object")) {
        out.push("parameters are not an object".into());
    }
    if let Some(r) = p.get("required")
        && !r.as_array().is_some_and(|r| r.iter().all(Value::is_string))
    {
        out.push("required is not a list of strings".into());
    }
    match p.get("properties") {
        Some(Value::Object(props)) => {
            for (name, prop) in props {
                let Some(prop) = prop.as_object() else {
                    out.push(format!("property {name} is not an object"));
                    continue;
                };
                match prop.get("type") {
                    Some(Value::String(_)) => {}
                    Some(Value::Array(ts)) if ts.iter().all(Value::is_string) => {}
                    Some(other) => {
                        out.push(format!("property {name}: type {other} does not decode"))
                    }
                    None if prop.get("anyOf").is_some() => {}
                    None => out.push(format!("property {name} has no type")),
                }
                if let Some(d) = prop.get("description")
                    && !d.is_string()
                {
                    out.push(format!("property {name}: description is not a string"));
                }
                if let Some(e) = prop.get("enum")
                    && !e.is_array()
                {
                    out.push(format!("property {name}: enum is not a list"));
                }
            }
        }
        Some(_) => out.push("properties is not an object".into()),
        None => out.push("no properties".into()),
    }
    out
}

/// llama.cpp's `llama-server`: tool schemas become a grammar through
/// json-schema-to-grammar, whose unsupported features are listed in
/// github.com/ggml-org/llama.cpp grammars/README.md ("JSON Schemas → GBNF": "a
/// non-exhaustive list of limitations & unsupported features").
pub fn llama_cpp(tool: &Value) -> Vec<String> {
    let mut out = Vec::new();
    const UNSUPPORTED: &[&str] = &[
        "prefixItems",
        "contains",
        "minContains",
        "maxContains",
        "uniqueItems",
        "$anchor",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "patternProperties",
    ];
    walk(parameters(tool), "parameters", 0, &mut |node, path, _| {
        for key in UNSUPPORTED {
            if node.contains_key(*key) {
                out.push(format!("{path}: `{key}` is not supported"));
            }
        }
        // "Mixing `properties` w/ `anyOf` / `oneOf` in the same type".
        if node.contains_key("properties")
            && (node.contains_key("anyOf") || node.contains_key("oneOf"))
        {
            out.push(format!("{path}: properties mixed with anyOf/oneOf"));
        }
        // "patterns must start with `^` and end with `$`".
        if let Some(p) = node.get("pattern").and_then(Value::as_str)
            && !(p.starts_with('^') && p.ends_with('$'))
        {
            out.push(format!("{path}: pattern {p:?} is not anchored"));
        }
        // "`string` formats `uri`, `email`".
        if let Some(f) = node.get("format").and_then(Value::as_str)
            && matches!(f, "uri" | "email")
        {
            out.push(format!("{path}: format {f:?} is not supported"));
        }
        // "Remote `$ref`s" (and local ones are "a bit buggy").
        if node.contains_key("$ref") {
            out.push(format!("{path}: a `$ref`"));
        }
    });
    out
}
