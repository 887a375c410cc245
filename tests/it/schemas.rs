//! Issue 24, "schemas every provider accepts": every schema Loom offers — each built-in
//! tool, with and without Chromium (the `browser` tool is offered only when one is
//! found), and the reference MCP servers' tools after fitting — passes the written rule
//! sets of OpenAI, OpenAI strict mode, Gemini's OpenAI-compatible endpoint, Anthropic's
//! OpenAI SDK compatibility, Ollama and llama.cpp ([`crate::schema_rules`]); and for any
//! schema at all, normalising is idempotent and its result passes them too.
//!
//! The MCP tool lists in tests/fixtures/mcp/ are written by hand from the servers' source
//! (the versions .ci/mcp-deps installs; see tests/fixtures/mcp/README.md), not recorded.

use std::sync::Arc;

use loom::config::{self, FlagConfig};
use loom::llm::schema::{normalise, strict::make_strict, strict::strict};
use loom::tools::{Tool, ToolRegistry};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::schema_rules::{PORTABLE, openai_strict};

/// Every built-in tool Loom can offer: the workspace tools with both editing tools, the
/// web tools (web_search with a provider configured), memory, cron, the oracle and
/// delegate; the browser when `chromium` names a file (`LOOM_BROWSER`), and never otherwise.
fn every_builtin(dir: &std::path::Path, chromium: Option<&str>) -> ToolRegistry {
    let home = dir.join("home-config.toml");
    std::fs::write(
        &home,
        "[web_search]\nprovider = \"searxng\"\nbase_url = \"http://127.0.0.1:9\"\n\n\
         [oracle]\nmodel = \"oracle-model\"\n",
    )
    .unwrap();
    let flags = FlagConfig {
        base_url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("m".into()),
        config_file: Some(home),
        ..FlagConfig::default()
    };
    let config = config::load(dir, &flags, &|_| None).unwrap();
    // Without: LOOM_BROWSER names a file that does not exist, so a Chromium on PATH (CI
    // installs one) is not found either.
    let browser = chromium
        .map(str::to_string)
        .unwrap_or_else(|| dir.join("no-chromium").display().to_string());
    let env = move |k: &str| (k == "LOOM_BROWSER").then(|| browser.clone());
    let (mut registry, _) = loom::setup::tool_registry(&config, None, &env);
    let memory = Arc::new(loom::memory::Memory::open(&dir.join("memory.json"), dir).unwrap());
    for tool in loom::tools::memory::tools(&memory) {
        registry.register(tool).unwrap();
    }
    let jobs = loom::cron::JobStore::for_workspace(&dir.join("data"), dir);
    for tool in loom::tools::cron::tools(&jobs) {
        registry.register(tool).unwrap();
    }
    let client = loom::llm::LlmClient::new(loom::llm::ProviderSettings::new(
        "http://127.0.0.1:9/v1",
        "oracle-model",
    ))
    .unwrap();
    registry
        .register(Arc::new(loom::tools::oracle::Oracle::new(client)))
        .unwrap();
    let provider = loom::setup::Provider::Missing {
        message: "none".into(),
    };
    let ctx = loom::setup::tool_context(dir, &config, "schemas").unwrap();
    let factory = loom::compose::AgentFactory::new(
        &config,
        &provider,
        ctx,
        false,
        &loom::setup::SessionFiles::none(),
    );
    let hub = Arc::new(loom::agent::sub_agents::SubAgents::default());
    registry
        .register(Arc::new(loom::agent::delegate::DelegateTool::new(
            factory, hub, 0,
        )))
        .unwrap();
    registry
}

/// The function-tool entries of the reference MCP servers' tools, fitted as Loom fits
/// them when a server lists them.
fn mcp_functions() -> Vec<Value> {
    let mut out = Vec::new();
    for (server, file) in [
        ("everything", "everything-tools.json"),
        ("time", "time-tools.json"),
    ] {
        let path = format!("{}/tests/fixtures/mcp/{file}", env!("CARGO_MANIFEST_DIR"));
        let listed: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for t in listed["tools"].as_array().unwrap() {
            let name = loom::mcp::schema::tool_name(server, t["name"].as_str().unwrap()).unwrap();
            let fitted = loom::mcp::schema::fit(t["inputSchema"].as_object().unwrap()).unwrap();
            out.push(loom::llm::schema::function(
                &name,
                t["description"].as_str().unwrap(),
                &fitted.schema,
            ));
        }
    }
    out
}

/// The violations of `tool` against every portable rule set, and against OpenAI strict
/// mode when it has a strict form.
fn violations(tool: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for rules in PORTABLE {
        for v in (rules.check)(tool) {
            out.push(format!(
                "{} / {}: {v}",
                tool["function"]["name"], rules.name
            ));
        }
    }
    let mut strict_tool = tool.clone();
    make_strict(&mut strict_tool);
    if strict_tool["function"]["strict"] == true {
        for v in openai_strict(&strict_tool) {
            out.push(format!("{} / OpenAI strict: {v}", tool["function"]["name"]));
        }
    }
    out
}

#[test]
fn every_builtin_schema_passes_every_provider_with_and_without_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for chromium in [None, Some("/bin/sh")] {
        let registry = every_builtin(&root, chromium);
        let names = registry.names();
        assert_eq!(
            names.contains(&"browser".to_string()),
            chromium.is_some(),
            "{names:?}"
        );
        for expected in [
            "read_file",
            "edit_file",
            "apply_patch",
            "web_search",
            "memory_store",
            "cron_list",
            "oracle",
            "delegate",
        ] {
            assert!(
                names.iter().any(|n| n == expected),
                "{expected} missing: {names:?}"
            );
        }
        let schemas = registry.schemas();
        assert_eq!(schemas.len(), names.len());
        let found: Vec<String> = schemas.iter().flat_map(violations).collect();
        assert!(found.is_empty(), "{}", found.join("\n"));
        // Every tool but a free-form map (http_request's headers) has a strict form.
        let not_strict: Vec<&str> = schemas
            .iter()
            .filter(|t| strict(&t["function"]["parameters"]).is_none())
            .filter_map(|t| t["function"]["name"].as_str())
            .collect();
        assert_eq!(not_strict, vec!["http_request"]);
    }
}

#[test]
fn the_reference_mcp_servers_tools_pass_every_provider_after_fitting() {
    let functions = mcp_functions();
    assert_eq!(functions.len(), 15);
    let found: Vec<String> = functions.iter().flat_map(violations).collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The rule sets are live: the schemas issue 24 found refused, sent as they were before
/// normalising, fail the rules that describe the refusals.
#[test]
fn the_rule_sets_catch_what_providers_refused() {
    let raw = |name: &str, params: Value| json!({"type": "function", "function": {"name": name, "description": "d", "parameters": params}});
    let browser = raw("browser", loom_browser().parameters());
    let openai = (PORTABLE[0].check)(&browser);
    assert!(
        openai.iter().any(|v| v.contains("top-level `oneOf`")),
        "{openai:?}"
    );
    let read = ToolRegistry::builtin()
        .get("read_file")
        .unwrap()
        .parameters();
    let read = raw("read_file", read);
    let gemini = (PORTABLE[1].check)(&read);
    assert!(
        gemini.iter().any(|v| v.contains("format \"uint")),
        "{gemini:?}"
    );
    let gzip = mcp_raw("gzip-file-as-resource");
    assert!(
        (PORTABLE[4].check)(&raw("g", gzip))
            .iter()
            .any(|v| v.contains("\"uri\""))
    );
    let loose = raw(
        "t",
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
    );
    let strict_rules = openai_strict(&loose);
    assert!(
        strict_rules
            .iter()
            .any(|v| v.contains("additionalProperties")),
        "{strict_rules:?}"
    );
    assert!(
        strict_rules.iter().any(|v| v.contains("not required")),
        "{strict_rules:?}"
    );
}

fn loom_browser() -> Arc<dyn Tool> {
    loom::tools::browser::offered(
        &|k| (k == "LOOM_BROWSER").then(|| "/bin/sh".into()),
        Default::default(),
    )
    .unwrap()
}

fn mcp_raw(tool: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/mcp/everything-tools.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let listed: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap()["inputSchema"]
        .clone()
}

/// Arbitrary JSON Schema-ish values: the keywords real schemas carry (and some they
/// should not), nested, with references to definitions that may or may not exist.
fn any_schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({})),
        Just(json!(true)),
        Just(json!({"type": "string", "format": "uri"})),
        Just(json!({"type": "integer", "format": "uint64", "minimum": 0})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["integer", "string"]})),
        Just(json!({"type": "number", "enum": [1, 2.5]})),
        Just(json!({"enum": ["a", "b", "a"]})),
        Just(json!({"const": "x"})),
        Just(json!({"type": "string", "pattern": "[0-9]+"})),
        Just(json!({"type": "string", "pattern": "^[0-9]+$", "minLength": 1})),
        Just(json!({"type": "array"})),
        Just(json!({"$ref": "#/$defs/A"})),
        Just(json!({"$ref": "#/definitions/Missing"})),
        Just(json!({"$ref": "https://example.com/remote.json"})),
        Just(json!({"type": "boolean", "default": true, "title": "T"})),
        Just(json!({"not": {"type": "string"}})),
        Just(json!({"type": "bogus"})),
        Just(json!(42)),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            prop::collection::btree_map("[a-c]{1,2}", inner.clone(), 0..4).prop_map(|props| {
                let names: Vec<String> = props.keys().cloned().chain(["zz".to_string()]).collect();
                json!({"type": "object", "properties": props, "required": names, "additionalProperties": false})
            }),
            prop::collection::btree_map("[a-c]{1,2}", inner.clone(), 0..3)
                .prop_map(|props| json!({"properties": props, "patternProperties": {"x": {}}})),
            inner.clone().prop_map(|items| json!({"type": "array", "items": items, "uniqueItems": true})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"oneOf": v})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"anyOf": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({
                "type": "object",
                "properties": {"p": a, "action": {"const": "go"}},
                "oneOf": [
                    {"properties": {"action": {"const": "x"}, "q": b}, "description": "X."},
                    {"properties": {"action": {"const": "y"}}}
                ]
            })),
            (inner.clone(), inner).prop_map(|(a, d)| json!({
                "properties": {"a": a, "r": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"type": "object", "properties": {"self": {"$ref": "#/$defs/A"}, "d": d}}}
            })),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Invariant: normalising is idempotent (the portable form is a fixed point), and the
    /// portable form of any input — and its strict form, when it has one — passes every
    /// provider's rule set.
    #[test]
    fn normalising_any_schema_is_idempotent_and_accepted_everywhere(schema in any_schema()) {
        let once = normalise(&schema).schema;
        let twice = normalise(&once).schema;
        prop_assert_eq!(&twice, &once);
        let tool = json!({"type": "function", "function": {"name": "t", "description": "d", "parameters": once}});
        let found = violations(&tool);
        prop_assert!(found.is_empty(), "{}\n{}", tool, found.join("\n"));
    }
}
