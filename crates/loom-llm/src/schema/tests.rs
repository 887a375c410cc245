use super::strict::strict;
use super::*;
use serde_json::json;

fn norm(v: Value) -> Value {
    normalise(&v).schema
}

/// Issue 24: the `browser` tool's parameters were a top-level `oneOf` with no
/// `"type": "object"`, which OpenAI refuses ("Invalid schema for function").
#[test]
fn a_tagged_top_level_one_of_becomes_one_object_with_an_enum_choice() {
    let s = norm(json!({
        "description": "What to do.",
        "oneOf": [
            {"description": "Load a URL.", "type": "object",
             "properties": {"action": {"type": "string", "const": "open"}, "url": {"type": "string"}},
             "required": ["action", "url"], "additionalProperties": false},
            {"description": "Console messages.", "type": "object",
             "properties": {"action": {"type": "string", "const": "console"}},
             "required": ["action"], "additionalProperties": false}
        ]
    }));
    assert_eq!(s["type"], "object");
    assert!(s.get("oneOf").is_none());
    assert_eq!(
        s["properties"]["action"]["enum"],
        json!(["open", "console"])
    );
    assert_eq!(
        s["properties"]["action"]["description"],
        "open: Load a URL; console: Console messages"
    );
    assert_eq!(s["properties"]["url"], json!({"type": "string"}));
    assert_eq!(
        s["required"],
        json!(["action"]),
        "only what every variant needs"
    );
    assert!(!s.to_string().contains("additionalProperties"));
}

/// Issue 24: `cron_list`'s schema had no `properties`.
#[test]
fn an_object_without_properties_gets_an_empty_map() {
    assert_eq!(
        norm(json!({"type": "object", "additionalProperties": false})),
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        norm(json!(true)),
        json!({"type": "object", "properties": {}})
    );
}

/// Issue 24: schemas carried `format` values (`uint`, `uint32`, `uint64`) that are not
/// JSON Schema formats; Gemini's endpoint refuses them.
#[test]
fn formats_off_the_allow_list_are_dropped() {
    let s = norm(json!({"type": "object", "properties": {
        "n": {"type": "integer", "format": "uint64", "minimum": 0},
        "w": {"type": "integer", "format": "int64"},
        "u": {"type": "string", "format": "uri"},
        "t": {"type": "string", "format": "date-time"}
    }}));
    assert_eq!(
        s["properties"]["n"],
        json!({"type": "integer", "minimum": 0})
    );
    assert_eq!(s["properties"]["w"], json!({"type": "integer"}));
    assert_eq!(s["properties"]["u"], json!({"type": "string"}));
    assert_eq!(s["properties"]["t"]["format"], "date-time");
}

#[test]
fn nullable_unions_lose_null_and_wider_unions_become_any_of() {
    let s = norm(json!({"type": "object", "properties": {
        "a": {"type": ["string", "null"]},
        "b": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "B"},
        "c": {"type": ["string", "number"]}
    }}));
    assert_eq!(s["properties"]["a"], json!({"type": "string"}));
    assert_eq!(
        s["properties"]["b"],
        json!({"type": "integer", "description": "B"})
    );
    assert_eq!(
        s["properties"]["c"],
        json!({"anyOf": [{"type": "string"}, {"type": "number"}]})
    );
}

#[test]
fn refs_are_inlined_and_cycles_left_shallow() {
    let s = normalise(&json!({
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "description": "A node.",
                           "properties": {"next": {"$ref": "#/$defs/Node"}}}}
    }));
    let text = s.schema.to_string();
    assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
    assert_eq!(
        s.schema["properties"]["n"]["properties"]["next"]["type"],
        "object"
    );
    assert_eq!(
        s.schema["properties"]["n"]["properties"]["next"]["description"],
        "A node."
    );
    assert!(
        s.changes
            .iter()
            .any(|c| c.contains("left #/$defs/Node open")),
        "{:?}",
        s.changes
    );
}

/// Definitions that each use the next ten times would inline into 10^8 copies; the budget
/// leaves the rest shallow and the schema small.
#[test]
fn references_that_multiply_stop_at_the_inlining_budget() {
    let mut defs = serde_json::Map::new();
    for i in 0..MAX_REF_DEPTH {
        let props: serde_json::Map<String, Value> = (0..10)
            .map(|k| {
                (
                    format!("p{k}"),
                    json!({"$ref": format!("#/$defs/D{}", i + 1)}),
                )
            })
            .collect();
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": props}),
        );
    }
    defs.insert(format!("D{MAX_REF_DEPTH}"), json!({"type": "string"}));
    let s = normalise(
        &json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/D0"}}, "$defs": defs}),
    );
    assert!(
        s.schema.to_string().len() < 1_000_000,
        "{}",
        s.schema.to_string().len()
    );
    assert!(!s.schema.to_string().contains("$ref"));
    assert!(
        s.changes.iter().any(|c| c.contains("open")),
        "{:?}",
        s.changes
    );
}

#[test]
fn keywords_providers_refuse_are_dropped_and_enums_are_strings() {
    let s = norm(
        json!({"type": "object", "title": "T", "$schema": "x", "properties": {
            "p": {"type": "string", "pattern": "[a-z]+", "default": "a", "examples": ["a"]},
            "q": {"type": "string", "pattern": "^[a-z]+$"},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "m": {"type": "object", "patternProperties": {"x": {}}, "additionalProperties": {"type": "string"}},
            "any": {},
            "list": {"type": "array"}
        }}),
    );
    let p = &s["properties"];
    assert_eq!(p["p"], json!({"type": "string"}));
    assert_eq!(p["q"]["pattern"], "^[a-z]+$");
    assert_eq!(
        p["level"],
        json!({"type": "integer", "description": "One of: 1, 2, 3."})
    );
    assert_eq!(p["m"], json!({"type": "object", "properties": {}}));
    assert!(p["any"]["anyOf"].is_array(), "{}", p["any"]);
    assert!(p["list"]["items"]["anyOf"].is_array(), "{}", p["list"]);
    assert!(s.get("title").is_none() && s.get("$schema").is_none());
}

#[test]
fn properties_are_not_mixed_with_any_of() {
    let s = norm(json!({"type": "object", "properties": {"o": {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"properties": {"b": {"type": "number"}}}]
    }}}));
    let o = &s["properties"]["o"];
    assert!(o.get("anyOf").is_none(), "{o}");
    assert_eq!(o["properties"]["b"]["type"], "number");
}

#[test]
fn nesting_stops_at_the_limit() {
    let mut deep = json!({"type": "string"});
    for _ in 0..30 {
        deep = json!({"type": "object", "properties": {"x": deep}});
    }
    let s = norm(deep);
    let mut depth = 0;
    let mut node = &s;
    while let Some(next) = node.get("properties").and_then(|p| p.get("x")) {
        node = next;
        depth += 1;
    }
    assert!(depth <= MAX_NESTING, "{depth}");
}

#[test]
fn strict_form_requires_everything_and_makes_optional_nullable() {
    let s = norm(json!({"type": "object", "properties": {
        "path": {"type": "string"},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "n": {"type": "integer", "minimum": 0},
        "range": {"type": "array", "items": {"type": "integer"}}
    }, "required": ["path"]}));
    let st = strict(&s).unwrap();
    assert_eq!(st["additionalProperties"], false);
    assert_eq!(st["required"], json!(["path", "mode", "n", "range"]));
    assert_eq!(st["properties"]["path"]["type"], "string");
    assert_eq!(st["properties"]["mode"]["type"], json!(["string", "null"]));
    assert_eq!(st["properties"]["mode"]["enum"], json!(["a", "b", null]));
    assert_eq!(st["properties"]["range"]["type"], json!(["array", "null"]));
    assert_eq!(
        strict(&norm(json!({"type": "object"}))).unwrap(),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn free_form_maps_have_no_strict_form() {
    let s = norm(json!({"type": "object", "properties": {"headers": {"type": "object"}}}));
    assert_eq!(strict(&s), None);
}

#[test]
fn normalising_twice_changes_nothing() {
    for s in [
        json!({"oneOf": [{"properties": {"a": {"const": "x"}}}, {"properties": {"a": {"const": "y"}}}]}),
        json!({"type": "object", "properties": {"x": {}, "y": {"type": ["integer", "string", "null"]}}}),
        json!({"type": "object", "properties": {"e": {"enum": [true, false]}}}),
    ] {
        let once = norm(s);
        assert_eq!(norm(once.clone()), once);
    }
}

/// `strict_tools = true`: each tool with a strict form goes out with `strict: true` and
/// that form; one without (a free-form map) goes out as it was.
#[test]
fn a_strict_provider_gets_strict_functions_where_they_exist() {
    let mut settings = crate::ProviderSettings::new("http://127.0.0.1:1/v1", "m");
    settings.strict_tools = true;
    let client = crate::LlmClient::new(settings).unwrap();
    let tools = [
        function(
            "read_file",
            "reads",
            &json!({"type": "object", "properties": {"path": {"type": "string"}, "max": {"type": "integer"}}, "required": ["path"]}),
        ),
        function(
            "http_request",
            "sends",
            &json!({"type": "object", "properties": {"headers": {"type": "object"}}}),
        ),
    ];
    let body = client.body(crate::client::ChatRequest {
        messages: &[],
        tools: &tools,
    });
    let read = &body["tools"][0]["function"];
    assert_eq!(read["strict"], true);
    assert_eq!(read["parameters"]["required"], json!(["path", "max"]));
    assert_eq!(
        read["parameters"]["properties"]["max"]["type"],
        json!(["integer", "null"])
    );
    let http = &body["tools"][1]["function"];
    assert!(http.get("strict").is_none());
    assert_eq!(http["parameters"], tools[1]["function"]["parameters"]);
    settings_off_sends_tools_unchanged(&tools);
}

fn settings_off_sends_tools_unchanged(tools: &[Value]) {
    let client =
        crate::LlmClient::new(crate::ProviderSettings::new("http://127.0.0.1:1/v1", "m")).unwrap();
    let body = client.body(crate::client::ChatRequest {
        messages: &[],
        tools,
    });
    assert_eq!(body["tools"], Value::Array(tools.to_vec()));
}
