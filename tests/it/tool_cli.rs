//! `loom tool run` and `loom tool list`, driven as a user or an outside check would.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// `loom ARGS -C DIR` with its home (config and data) in `DIR/.home`.
fn loom(dir: &Path, args: &[&str]) -> Output {
    loom_at_home(dir, &dir.join(".home"), args)
}

/// `loom ARGS -C DIR` with its home (config and data) in `home`.
fn loom_at_home(dir: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loom"))
        .args(args)
        .arg("-C")
        .arg(dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("LOOM_MODEL")
        .output()
        .expect("the loom binary runs")
}

/// The tool names `loom tool list` prints.
fn listed(dir: &Path) -> Vec<String> {
    let out = loom(dir, &["tool", "list"]);
    assert!(out.status.success());
    let schemas: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    schemas
        .iter()
        .map(|s| s["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// A model is configured (a server that is never reached: listing and the tools below
/// need none).
fn with_a_model(dir: &Path) {
    let config = dir.join(".home/.config/loom");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "base_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n",
    )
    .unwrap();
}

fn run_tool(dir: &Path, name: &str, args: &str) -> (i32, Value) {
    let out = loom(dir, &["tool", "run", name, "--args", args]);
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn list_prints_the_offered_openai_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let out = loom(dir.path(), &["tool", "list"]);
    assert!(out.status.success());
    let schemas: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = schemas
        .iter()
        .map(|s| s["function"]["name"].as_str().unwrap())
        .collect();
    let mut expected = vec![
        "read_file",
        "write_file",
        "edit_file",
        "apply_patch",
        "list_files",
        "search_files",
        "bash",
        "web_fetch",
        "http_request",
    ];
    // Offered where a Chromium is installed (always on CI; see tests/it/browser.rs).
    if loom::tools::browser::cdp::find(None).is_some() {
        expected.push("browser");
    }
    expected.extend([
        "memory_store",
        "memory_recall",
        "memory_forget",
        "cron_add",
        "cron_list",
        "cron_remove",
        "update_plan",
    ]);
    assert_eq!(names, expected);
}

/// Issue 24: `loom tool list` left out oracle, delegate, memory_* and cron_*. With a model
/// configured it lists every tool the agent has.
#[test]
fn list_offers_every_tool_the_agent_has() {
    let dir = tempfile::tempdir().unwrap();
    with_a_model(dir.path());
    let names = listed(dir.path());
    for name in [
        "read_file",
        "bash",
        "memory_store",
        "memory_recall",
        "memory_forget",
        "cron_add",
        "cron_list",
        "cron_remove",
        "oracle",
        "delegate",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
    }
}

/// Issue 24: `loom tool run memory_store` said "unknown tool". It stores, and
/// `memory_recall` finds what was stored, by hand as for the model.
#[test]
fn memory_tools_run_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let (code, r) = run_tool(
        dir.path(),
        "memory_store",
        r#"{"key": "build", "content": "run make check before committing"}"#,
    );
    assert_eq!(code, 0, "{r}");
    let (code, r) = run_tool(dir.path(), "memory_recall", r#"{"query": "make check"}"#);
    assert_eq!(code, 0, "{r}");
    assert!(r["output"].as_str().unwrap().contains("make check"), "{r}");
}

/// Issue 24: the tools that need a model say so when none is configured, in the list and
/// when run, instead of "unknown tool".
#[test]
fn tools_needing_a_model_say_so_when_none_is_configured() {
    let dir = tempfile::tempdir().unwrap();
    let out = loom(dir.path(), &["tool", "list"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for name in ["oracle", "delegate"] {
        assert!(
            stderr.contains(&format!(
                "not offered: {name}: it needs a model and none is configured"
            )),
            "{stderr}"
        );
    }
    let out = loom(
        dir.path(),
        &["tool", "run", "oracle", "--args", r#"{"question": "why?"}"#],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("oracle is not offered: it needs a model"),
        "{stderr}"
    );
    assert!(!stderr.contains("unknown tool"), "{stderr}");
}

#[test]
fn apply_patch_runs_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    let patch = serde_json::json!({
        "input": "*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** Add File: b.txt\n+new\n*** End Patch"
    });
    let (code, r) = run_tool(dir.path(), "apply_patch", &patch.to_string());
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "two\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "new\n"
    );
}

#[test]
fn write_edit_read_roundtrip_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let (code, r) = run_tool(
        dir.path(),
        "write_file",
        r#"{"path":"src/lib.rs","content":"pub fn a() -> u8 {\n    1\n}\n"}"#,
    );
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["files_changed"][0], "src/lib.rs");
    let (code, r) = run_tool(
        dir.path(),
        "edit_file",
        r#"{"path":"src/lib.rs","old_str":"    1","new_str":"    2"}"#,
    );
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["data"]["edits_applied"], 1);
    let (code, r) = run_tool(dir.path(), "read_file", r#"{"path":"src/lib.rs"}"#);
    assert_eq!(code, 0);
    assert_eq!(
        r["output"],
        "     1\tpub fn a() -> u8 {\n     2\t    2\n     3\t}\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        "pub fn a() -> u8 {\n    2\n}\n"
    );
}

#[test]
fn list_search_and_bash_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "needle here\n").unwrap();
    // The home elsewhere, so the listing holds only the workspace's own file.
    let home = tempfile::tempdir().unwrap();
    let out = loom_at_home(
        dir.path(),
        home.path(),
        &["tool", "run", "list_files", "--args", "{}"],
    );
    assert_eq!(out.status.code(), Some(0));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["data"]["entries"][0]["path"], "a.txt");
    let (code, r) = run_tool(dir.path(), "search_files", r#"{"pattern":"needle"}"#);
    assert_eq!(code, 0);
    assert_eq!(r["output"], "a.txt:1:needle here\n");
    let (code, r) = run_tool(dir.path(), "bash", r#"{"command":"cat a.txt | wc -l"}"#);
    assert_eq!(code, 0);
    assert_eq!(r["data"]["stdout"].as_str().unwrap().trim(), "1");
}

#[test]
fn tool_errors_exit_1_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (code, r) = run_tool(dir.path(), "read_file", r#"{"path":"../../etc/passwd"}"#);
    assert_eq!(code, 1);
    assert_eq!(r["success"], false);
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("workspace-confinement")
    );
    let (code, r) = run_tool(dir.path(), "read_file", r#"{"file":"x"}"#);
    assert_eq!(code, 1);
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("expected {path, line_range?, max_bytes?}")
    );
    let (code, _) = run_tool(dir.path(), "no_such_tool", "{}");
    assert_eq!(code, 2);
    let (code, _) = run_tool(dir.path(), "read_file", "{not json");
    assert_eq!(code, 2);
    let (code, r) = run_tool(dir.path(), "bash", r#"{"command":"exit 7"}"#);
    assert_eq!(code, 1);
    assert_eq!(r["data"]["exit_code"], 7);
}

#[test]
fn missing_workspace_is_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("missing");
    let out = loom(
        &gone,
        &["tool", "run", "read_file", "--args", r#"{"path":"x"}"#],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open workspace"));
}

/// The tool tables of the docs (docs/tools.md first, then the pages of the tools it points
/// to) must name every tool and every argument the schemas define, so they cannot go stale
/// when a tool changes.
#[test]
fn the_docs_tool_table_matches_the_registry() {
    let table: String = [
        include_str!("../../docs/tools.md"),
        include_str!("../../docs/memory-oracle-delegate.md"),
        include_str!("../../docs/cron.md"),
        include_str!("../../docs/web.md"),
        include_str!("../../docs/browser.md"),
        include_str!("../../docs/mcp.md"),
    ]
    .join("\n");
    for schema in loom::tools::ToolRegistry::builtin().schemas() {
        let name = schema["function"]["name"].as_str().unwrap();
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}`")))
            .unwrap_or_else(|| panic!("the docs' tool table has no row for {name}"));
        for arg in schema["function"]["parameters"]["properties"]
            .as_object()
            .unwrap()
            .keys()
        {
            assert!(
                row.contains(&format!("`{arg}")),
                "the docs' row for {name} does not mention `{arg}`"
            );
        }
    }
}
