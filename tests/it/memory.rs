//! Long-term memory through the real binary: what one `loom exec` process stores, another
//! recalls (ranked), forgets, and lists in its system prompt; two processes storing at once
//! lose nothing; a damaged database is moved aside, not a crash.

use serde_json::Value;

use crate::exec::{exec, loom_in};
use crate::support::{self, ScriptedServer};

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    dir
}

/// `loom memory ARGS` in the workspace, with the same home as `exec` uses.
fn system_prompt(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn store_then_recall_ranked_then_forget_across_processes() {
    let dir = workspace();
    let first = ScriptedServer::start(vec![
        support::calls_openai(&[
            (
                "s1",
                "memory_store",
                r#"{"key": "build", "content": "build with cargo build --release"}"#,
            ),
            (
                "s2",
                "memory_store",
                r#"{"key": "tests", "content": "run the tests with cargo test --all-features; tests need postgres"}"#,
            ),
            (
                "s3",
                "memory_store",
                r#"{"key": "editor", "content": "the team uses tabs", "category": "daily", "scope": "global"}"#,
            ),
        ]),
        support::text_reply("Noted."),
    ])
    .await;
    // Full-auto: a global note asks in supervised mode (see below).
    let run = exec(dir.path(), &first, "full-auto", "remember how to build").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let results = run.of_type("tool_result");
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["success"] == true), "{results:#?}");
    assert!(
        !system_prompt(&first.requests()[0]).contains("Core memories"),
        "nothing to list yet"
    );

    let second = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "r1",
            "memory_recall",
            r#"{"query": "how to run tests postgres"}"#,
        )]),
        support::calls_openai(&[("f1", "memory_forget", r#"{"key": "tests"}"#)]),
        support::text_reply("Forgot it."),
    ])
    .await;
    let run = exec(dir.path(), &second, "supervised", "what do you remember?").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let requests = second.requests();
    let prompt = system_prompt(&requests[0]);
    assert!(
        prompt.contains("Core memories") && prompt.contains("- tests (workspace): run the tests"),
        "core memories are listed at session start: {prompt}"
    );
    assert!(
        !prompt.contains("the team uses tabs"),
        "only core memories are listed"
    );
    let recalled = &support::tool_messages(&requests[1])[0].1;
    let entries = recalled["data"]["entries"].as_array().unwrap();
    assert_eq!(
        entries[0]["key"], "tests",
        "the entry matching most words ranks first: {recalled}"
    );
    let forgot = &support::tool_messages(&requests[2])[1].1;
    assert_eq!(forgot["success"], true, "{forgot}");

    let (code, out, err) = loom_in(dir.path(), &["memory", "list", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let listed: Vec<Value> = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = listed.iter().map(|e| e["key"].as_str().unwrap()).collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.contains(&"build") && keys.contains(&"editor") && !keys.contains(&"tests"));
    let (code, out, _) = loom_in(dir.path(), &["memory", "search", "release"]).await;
    assert_eq!(code, 0);
    assert!(out.starts_with("build [workspace, core"), "{out}");
    let (code, _, err) = loom_in(dir.path(), &["memory", "rm", "editor"]).await;
    assert_eq!(code, 1);
    assert!(err.contains("exists in the global scope"), "{err}");
    let (code, out, _) = loom_in(dir.path(), &["memory", "rm", "--global", "editor"]).await;
    assert_eq!(code, 0);
    assert!(out.contains("forgot \"editor\" (global)"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_processes_storing_at_once_lose_nothing() {
    let dir = workspace();
    let script = |prefix: &str| {
        let calls: Vec<(String, String)> = (0..20)
            .map(|i| {
                (
                    format!("{prefix}{i}"),
                    format!(r#"{{"key": "{prefix}-{i}", "content": "note {i} from {prefix}"}}"#),
                )
            })
            .collect();
        let borrowed: Vec<(&str, &str, &str)> = calls
            .iter()
            .map(|(id, args)| (id.as_str(), "memory_store", args.as_str()))
            .collect();
        vec![
            support::calls_openai(&borrowed),
            support::text_reply("Stored."),
        ]
    };
    let a = ScriptedServer::start(script("a")).await;
    let b = ScriptedServer::start(script("b")).await;
    let (ra, rb) = tokio::join!(
        exec(dir.path(), &a, "supervised", "store a"),
        exec(dir.path(), &b, "supervised", "store b"),
    );
    for run in [&ra, &rb] {
        assert_eq!(run.code, 0, "{}", run.stderr);
        let results = run.of_type("tool_result");
        assert_eq!(results.len(), 20);
        assert!(results.iter().all(|r| r["success"] == true), "{results:#?}");
    }
    let (code, out, err) = loom_in(dir.path(), &["memory", "list", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let listed: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(listed.len(), 40, "every store of both processes is kept");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_database_is_moved_aside_and_the_session_goes_on() {
    let dir = workspace();
    let data = dir.path().join(".home/.local/share/loom");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("memory.sqlite"),
        b"garbage, not SQLite ".repeat(100),
    )
    .unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "s1",
            "memory_store",
            r#"{"key": "k", "content": "kept in the new database"}"#,
        )]),
        support::text_reply("ok"),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "remember").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let notice = run.events[0]["notice"].as_str().unwrap_or_default();
    assert!(
        notice.contains("memory database")
            && notice.contains("was damaged")
            && notice.contains("moved to"),
        "{:#?}",
        run.events[0]
    );
    assert_eq!(run.of_type("tool_result")[0]["success"], true);
    let aside: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("memory.sqlite.corrupt-")
        })
        .collect();
    assert_eq!(aside.len(), 1, "the damaged file is kept for the person");
    let (code, out, _) = loom_in(dir.path(), &["memory", "list"]).await;
    assert_eq!(code, 0);
    assert!(out.contains("kept in the new database"), "{out}");
}

/// Issue 23: a global memory reaches every workspace's prompt, so storing one asks in
/// supervised mode: `loom exec`, where no one can answer, refuses it (and tells the model
/// how to keep the note to this workspace), while a note for this workspace is stored.
#[tokio::test(flavor = "multi_thread")]
async fn a_global_memory_asks_in_supervised_mode_and_exec_refuses_it() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            (
                "g",
                "memory_store",
                r#"{"key": "everywhere", "content": "always pipe install scripts to sh", "scope": "global"}"#,
            ),
            (
                "w",
                "memory_store",
                r#"{"key": "here", "content": "this repo uses tabs"}"#,
            ),
        ]),
        support::text_reply("Noted."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "remember").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let results = run.of_type("tool_result");
    let global = results.iter().find(|r| r["id"] == "g").unwrap();
    assert_eq!(global["success"], false, "{global}");
    let error = global["error"].as_str().unwrap();
    assert!(
        error.contains("every workspace") && error.contains("scope workspace"),
        "{error}"
    );
    let here = results.iter().find(|r| r["id"] == "w").unwrap();
    assert_eq!(here["success"], true, "{here}");
    let (code, out, err) = loom_in(dir.path(), &["memory", "list", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let entries: Vec<Value> = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = entries.iter().filter_map(|e| e["key"].as_str()).collect();
    assert_eq!(keys, ["here"], "the global note was not stored");
}
