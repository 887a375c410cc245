//! Text the model wrote never drives the terminal (issue 23): escape sequences (`ESC [ 2 J`,
//! OSC 52 to the clipboard), BEL and carriage returns in an answer, a memory, a scheduled
//! job's prompt and a session's title reach `loom exec`, `loom memory list`/`search`,
//! `loom cron list` and `loom sessions` shown escaped, never raw.

use std::path::Path;

use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

/// Clears the screen, writes `rm -rf ~` to the clipboard, rings, and hides what follows a
/// carriage return.
const HOSTILE: &str = "remember \u{1b}[2J\u{1b}]52;c;cm0gLXJmIH4=\u{7} this\rOVERWRITTEN \u{9b}1m";

/// `loom ARGS -C DIR`: exit code and both streams together.
async fn loom(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = loom_command(&dir.join(".home"))
        .args(args)
        .arg("-C")
        .arg(dir)
        .output()
        .await
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn assert_nothing_raw(what: &str, text: &str) {
    for c in ['\u{1b}', '\u{7}', '\r', '\u{9b}'] {
        assert!(!text.contains(c), "{what}: raw {c:?} in {text:?}");
    }
    assert!(
        text.contains("\\u{1b}[2J") && text.contains("\\u{7}"),
        "{what}: the text is shown, escaped: {text:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn model_written_escapes_reach_every_plain_output_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join(".gitignore"), ".home/\n").unwrap();
    let store = serde_json::json!({"key": "note", "content": HOSTILE}).to_string();
    let job = serde_json::json!({"schedule": "@daily", "prompt": HOSTILE}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("m", "memory_store", &store), ("c", "cron_add", &job)]),
        support::text_reply(HOSTILE),
    ])
    .await;
    let url = server.base_url();
    let exec = [
        "exec",
        "--approval",
        "full-auto",
        "--model",
        "scripted-model",
        "--base-url",
        &url,
        HOSTILE,
    ];
    let (code, text) = loom(ws, &exec).await;
    assert_eq!(code, 0, "{text}");
    assert_nothing_raw("loom exec", &text);

    for (what, args) in [
        ("loom memory list", vec!["memory", "list"]),
        ("loom memory search", vec!["memory", "search", "remember"]),
        ("loom cron list", vec!["cron", "list"]),
        ("loom sessions", vec!["sessions"]),
    ] {
        let (code, text) = loom(ws, &args).await;
        assert_eq!(code, 0, "{what}: {text}");
        assert_nothing_raw(what, &text);
    }
}
