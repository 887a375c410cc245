//! Each tool's data as the tools wrote it before it was typed (issue 27) reads into its
//! type and writes back byte for byte: the model's view, the session files on disk and
//! `loom exec --json` stay the same.

use super::*;
use crate::tool_result::ToolResult;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The invariant: `old` (today's JSON, keys in today's order) read as `T` and written
/// back is the same text.
fn round_trips<T: DeserializeOwned + Serialize>(old: Value) -> T {
    let result = ToolResult::ok("").with_data(old.clone());
    let typed: T = result
        .data_as()
        .unwrap_or_else(|| panic!("{old} does not read as {}", std::any::type_name::<T>()));
    let again = ToolResult::ok("").with(&typed);
    assert_eq!(
        serde_json::to_string(&again.data).unwrap(),
        serde_json::to_string(&Some(&old)).unwrap()
    );
    typed
}

#[test]
fn bash_data_round_trips_with_and_without_a_sandbox_denial() {
    let d: BashData = round_trips(json!({
        "exit_code": 0, "stdout": "hi\n", "stderr": "", "timed_out": false,
        "truncated": false, "duration_ms": 12, "cwd": ".", "sandboxed": true,
    }));
    assert_eq!((d.exit_code, d.stdout.as_str()), (Some(0), "hi\n"));
    let d: BashData = round_trips(json!({
        "exit_code": null, "stdout": "", "stderr": "denied", "timed_out": true,
        "truncated": true, "duration_ms": 5000, "cwd": "src", "sandboxed": true,
        "sandbox_denied": true,
    }));
    assert!(d.sandbox_denied && d.timed_out && d.exit_code.is_none());
}

#[test]
fn a_bash_result_missing_keys_still_reads() {
    // A `!command` result of an older session carried only the streams and the code.
    let r = ToolResult::ok("").with_data(json!({"stdout": "a", "exit_code": 2}));
    let d: BashData = r.data_as().unwrap();
    assert_eq!((d.stdout.as_str(), d.stderr.as_str()), ("a", ""));
    assert_eq!((d.exit_code, d.duration_ms), (Some(2), None));
    assert_eq!(ToolResult::ok("").data_as::<BashData>(), None);
    let nulls = ToolResult::ok("").with_data(json!({"stdout": null, "timed_out": null}));
    assert_eq!(nulls.data_as::<BashData>(), Some(BashData::default()));
    let wrong = ToolResult::ok("").with_data(json!({"stdout": 5}));
    assert_eq!(
        wrong.data_as::<BashData>(),
        None,
        "a mistyped key is not silently read"
    );
}

#[test]
fn file_change_data_round_trips_for_write_edit_patch_move_and_delete() {
    round_trips::<FileChangeData>(json!({
        "path": "a.txt", "bytes_written": 7, "created": true, "lines_added": 1,
        "lines_removed": 0, "diff": "+hello\n",
    }));
    let d: FileChangeData = round_trips(json!({
        "edits_applied": 2, "replacements": 2, "original_bytes": 22, "new_bytes": 24,
        "path": "src/a.rs", "bytes_written": 24, "created": false, "lines_added": 2,
        "lines_removed": 2, "diff": "-a\n+b\n", "diff_cut": true,
    }));
    assert_eq!((d.edits_applied, d.diff_cut), (Some(2), true));
    round_trips::<FileChangeData>(json!({
        "files_in_patch": 2, "path": "b", "bytes_written": 1, "created": false,
        "lines_added": 1, "lines_removed": 1, "diff": "", "hunks_applied": [1, 3],
        "hunks_rejected": [2], "moved_from": "a",
    }));
    let d: FileChangeData = round_trips(json!({
        "path": "gone.txt", "deleted": true, "lines_removed": 3,
    }));
    assert_eq!((d.deleted, d.created, d.diff), (Some(true), None, None));
    round_trips::<ApplyPatchData>(json!({
        "files": [{"path": "x", "deleted": true, "lines_removed": 1}],
        "files_rejected": ["y"], "lines_added": 0, "lines_removed": 1,
    }));
}

#[test]
fn read_search_and_list_data_round_trip() {
    round_trips::<ReadFileData>(json!({
        "path": "a", "start_line": 1, "end_line": 2, "truncated": false, "total_lines": 2,
    }));
    let d: ReadFileData = round_trips(json!({
        "path": "a", "start_line": 1, "end_line": 40, "truncated": true,
        "total_lines_at_least": 100_000, "line_endings": "crlf", "next_line": 41,
    }));
    assert_eq!((d.total_lines, d.next_line), (None, Some(41)));
    round_trips::<SearchData>(json!({
        "matches": 3, "files_with_matches": 2, "files_searched": 9, "truncated": false,
    }));
    let d: ListData = round_trips(json!({
        "path": ".", "entries": [{"path": "src", "size": 0, "is_dir": true},
            {"path": "a.txt", "size": 5, "is_dir": false}], "truncated": true,
    }));
    assert!(d.entries[0].is_dir && d.truncated);
}

#[test]
fn web_data_round_trips_for_search_fetch_and_request() {
    let d: WebSearchData = round_trips(json!({
        "provider": "brave", "query": "serde",
        "results": [{"title": "Serde", "url": "https://serde.rs", "snippet": "x"}],
        "attempts": 1,
    }));
    assert_eq!(d.results.len(), 1);
    round_trips::<WebFetchData>(json!({
        "url": "https://a/", "status": 200, "content_type": "text/html", "bytes": 10,
        "truncated": false, "redirects": ["https://b/"], "charset": "utf-8",
        "title": "A", "content_truncated": false,
    }));
    // A binary page: no charset, no content_truncated, no content type at all.
    round_trips::<WebFetchData>(json!({
        "url": "https://a/x.png", "status": 200, "content_type": null, "bytes": 10,
        "truncated": false,
    }));
    round_trips::<HttpData>(json!({
        "method": "GET", "url": "https://a/", "status": 404,
        "headers": {"server": "x", "content-type": "text/plain"}, "bytes": 3,
        "truncated": false, "content_truncated": false,
    }));
    round_trips::<HttpData>(json!({
        "method": "GET", "url": "https://a/", "status": 200, "headers": {}, "bytes": 3,
        "truncated": false, "binary": true,
    }));
}

#[test]
fn browser_data_round_trips_for_each_action() {
    round_trips::<BrowserData>(json!({"title": "A", "url": "https://a/", "confinement": "c"}));
    let d: BrowserData = round_trips(json!({"title": null, "url": null}));
    assert_eq!(d.title, Some(Value::Null), "a null title stays written");
    round_trips::<BrowserData>(json!({
        "path": "/d/shot-1.png", "width": 800, "height": 600, "bytes": 10, "url": "u",
        "refused": ["https://tracker/"],
    }));
    round_trips::<BrowserData>(json!({"truncated": false, "url": "u"}));
    round_trips::<BrowserData>(json!({"count": 2, "url": "u"}));
}

#[test]
fn the_other_tools_data_round_trips() {
    round_trips::<LoadToolsData>(json!({"loaded": ["web_fetch"]}));
    round_trips::<MemoryStoreData>(json!({"key": "db", "replaced": false, "scope": "global"}));
    round_trips::<MemoryRecallData<Value>>(json!({"entries": [{"key": "db"}]}));
    round_trips::<MemoryRecallData<Value>>(json!({"entries": []}));
    let usage = serde_json::to_value(crate::usage::Usage::default()).unwrap();
    round_trips::<OracleData>(json!({"model": "m", "usage": usage}));
    round_trips::<DelegateData>(json!({
        "files_read": ["a"], "files_changed": [], "tool_calls": 2, "usage": usage,
        "end": "done",
    }));
    let job = json!({
        "id": "j1", "schedule": "0 9 * * 1", "prompt": "p", "approval": "full-auto",
        "next_run": null,
        "last_run": {"at": "2026-01-01T09:00:00+01:00", "outcome": "done", "session_id": null},
        "missed": 0, "added_by": "model",
    });
    round_trips::<CronJobData>(job.clone());
    round_trips::<Vec<CronJobData>>(json!([job, job]));
    round_trips::<DelegateData>(json!({
        "files_read": [], "files_changed": ["b"], "tool_calls": 0, "usage": usage,
        "end": null,
    }));
}
