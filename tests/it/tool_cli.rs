//! `loom tool run` and `loom tool list`, driven as a user or an outside check would.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn loom(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loom"))
        .args(args)
        .arg("-C")
        .arg(dir)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("the loom binary runs")
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
    assert_eq!(names, expected);
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
    let (code, r) = run_tool(dir.path(), "list_files", "{}");
    assert_eq!(code, 0);
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

/// The README's tool table must name every tool and every argument the schemas define, so
/// it cannot go stale when a tool changes.
#[test]
fn readme_tool_table_matches_the_registry() {
    let readme = include_str!("../../README.md");
    let table: String = readme
        .lines()
        .skip_while(|l| !l.starts_with("## Tools"))
        .take_while(|l| !l.starts_with("## Connecting"))
        .collect::<Vec<_>>()
        .join("\n");
    for schema in loom::tools::ToolRegistry::builtin().schemas() {
        let name = schema["function"]["name"].as_str().unwrap();
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}`")))
            .unwrap_or_else(|| panic!("README's tool table has no row for {name}"));
        for arg in schema["function"]["parameters"]["properties"]
            .as_object()
            .unwrap()
            .keys()
        {
            assert!(
                row.contains(&format!("`{arg}")),
                "README's row for {name} does not mention `{arg}`"
            );
        }
    }
}
