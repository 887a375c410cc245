//! Tests of the one output budget.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn parsed(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"))
}

#[test]
fn a_result_within_the_budget_is_untouched() {
    let r = ToolResult::ok("hi").with_data(json!({"a": 1}));
    assert_eq!(
        model_json(&r, 8192),
        r#"{"success":true,"output":"hi","data":{"a":1}}"#
    );
    let mut same = r.clone();
    fit(&mut same, 8192);
    assert_eq!(same.output, r.output);
    assert_eq!(same.data, r.data);
}

#[test]
fn structured_data_counts_against_the_budget_and_keeps_its_shape() {
    // The shape of an MCP file read: the text and its structured twin, 300 KB each.
    let file: String = (0..6000)
        .map(|i| format!("line {i:05} of the file\n"))
        .collect();
    let r = ToolResult::ok(file.clone()).with_data(json!({"content": file, "path": "/big.txt"}));
    let json = model_json(&r, 8192);
    assert!(json.len() <= 8192, "{}", json.len());
    let v = parsed(&json);
    assert!(v["output"].as_str().unwrap().starts_with("line 00000"));
    assert!(v["output"].as_str().unwrap().contains("omitted"));
    let content = v["data"]["content"].as_str().unwrap();
    assert!(content.contains("omitted"), "{content}");
    assert_eq!(v["data"]["path"], "/big.txt", "short fields stay whole");
}

#[test]
fn a_short_summary_is_kept_whole_and_the_streams_share_the_rest() {
    let stdout = "o".repeat(40_000);
    let stderr = "e".repeat(40_000);
    let r = ToolResult::ok("exit code 0 in 0.10s").with_data(json!({
        "exit_code": 0, "stdout": stdout, "stderr": stderr,
    }));
    let json = model_json(&r, 4096);
    assert!(json.len() <= 4096, "{}", json.len());
    let v = parsed(&json);
    assert_eq!(v["output"], "exit code 0 in 0.10s");
    let (o, e) = (
        v["data"]["stdout"].as_str().unwrap(),
        v["data"]["stderr"].as_str().unwrap(),
    );
    assert!(o.len() > 1000 && e.len() > 1000, "{} {}", o.len(), e.len());
    assert_eq!(v["data"]["exit_code"], 0);
}

#[test]
fn errors_are_bounded_too() {
    let r = ToolResult::err("x".repeat(100_000));
    let json = model_json(&r, 2048);
    assert!(json.len() <= 2048, "{}", json.len());
    assert!(parsed(&json)["error"].as_str().unwrap().contains("omitted"));
}

#[test]
fn long_lists_are_shortened_with_a_count() {
    let entries: Vec<Value> = (0..5000)
        .map(|i| json!({"path": format!("f{i}")}))
        .collect();
    let r = ToolResult::ok("5000 entries").with_data(json!({ "entries": entries }));
    let json = model_json(&r, 4096);
    assert!(json.len() <= 4096, "{}", json.len());
    let v = parsed(&json);
    let list = v["data"]["entries"].as_array().unwrap();
    assert_eq!(list[0]["path"], "f0");
    assert_eq!(list.last().unwrap()["path"], "f4999");
    assert!(
        list.iter()
            .any(|e| e.as_str().is_some_and(|s| s.contains("items omitted")))
    );
}

#[test]
fn many_changed_files_are_named_then_counted_for_the_model_only() {
    let files: Vec<String> = (0..10_000).map(|i| format!("dir/file{i}.txt")).collect();
    let r = ToolResult::ok("done").with_files(files.clone());
    let json = model_json(&r, 8192);
    assert!(json.len() <= 8192, "{}", json.len());
    let v = parsed(&json);
    let named = v["files_changed"].as_array().unwrap();
    assert!(named.len() <= 51);
    assert!(
        named
            .last()
            .unwrap()
            .as_str()
            .unwrap()
            .contains("more files")
    );
    let mut kept = r.clone();
    fit(&mut kept, 8192);
    assert_eq!(
        kept.files_changed, files,
        "the journal and hooks still see every file"
    );
}

#[test]
fn control_characters_that_escape_long_still_fit() {
    let r = ToolResult::ok("\u{1}".repeat(50_000)).with_data(json!({"s": "\u{2}".repeat(50_000)}));
    let json = model_json(&r, 1024);
    assert!(json.len() <= 1024, "{}", json.len());
    parsed(&json);
}

proptest! {
    // Invariant: whatever a tool returns, the model's JSON is valid, within the budget, and
    // keeps the result's success.
    #[test]
    fn the_model_json_never_exceeds_the_budget(
        output in "[a-z\n\"\u{1}é]{0,3000}",
        error in proptest::option::of("[a-z\n\\\\]{0,3000}"),
        strings in proptest::collection::vec("[a-z\n\u{7}]{0,2000}", 0..20),
        files in proptest::collection::vec("[a-z/]{1,40}", 0..200),
        budget in 0usize..6000,
        success in any::<bool>(),
    ) {
        let mut r = ToolResult::ok(output).with_files(files);
        r.success = success;
        r.error = error;
        r.data = Some(json!({"strings": strings, "n": 1}));
        let json = model_json(&r, budget);
        prop_assert!(json.len() <= budget.max(MIN_BUDGET), "{} > {}", json.len(), budget);
        let v = parsed(&json);
        prop_assert_eq!(v["success"].as_bool(), Some(success));
    }

    // Invariant: fitting twice changes nothing (the registry and the message both fit).
    #[test]
    fn fitting_is_idempotent(output in "[a-z\n]{0,4000}", data in "[a-z]{0,4000}", budget in 512usize..3000) {
        let mut once = ToolResult::ok(output).with_data(json!({"d": data}));
        fit(&mut once, budget);
        let mut twice = once.clone();
        fit(&mut twice, budget);
        prop_assert_eq!(&once.output, &twice.output);
        prop_assert_eq!(&once.data, &twice.data);
    }
}
