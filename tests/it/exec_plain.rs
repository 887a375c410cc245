//! `loom exec` without `--json`, as a person reads it: the answer on stdout a paragraph per
//! assistant message, one short human line per call and result on stderr, each denial
//! once; and global options accepted on either side of `exec`.

use std::path::Path;

use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

struct Plain {
    code: i32,
    stdout: String,
    stderr: String,
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("greet.py"),
        "def greet():\n    return 'hello'\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    dir
}

/// Run `loom ARGS... exec [--approval A --model scripted-model --base-url URL -C DIR] PROMPT`
/// and capture both streams.
async fn run(dir: &Path, before: &[&str], after: &[&str], prompt: &str) -> Plain {
    let out = loom_command(&dir.join(".home"))
        .args(before)
        .arg("exec")
        .args(after)
        .arg("-C")
        .arg(dir)
        .arg(prompt)
        .output()
        .await
        .expect("loom runs");
    Plain {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

async fn exec_plain(dir: &Path, server: &ScriptedServer, approval: &str, prompt: &str) -> Plain {
    let url = server.base_url();
    let after = [
        "--approval",
        approval,
        "--model",
        "scripted-model",
        "--base-url",
        &url,
    ];
    run(dir, &[], &after, prompt).await
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_output_puts_each_assistant_message_in_its_own_paragraph() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::text_then_calls(
            "Let me read it.",
            &[("r", "read_file", r#"{"path": "greet.py"}"#)],
        ),
        support::text_then_calls("Now the list.", &[("l", "list_files", r#"{"path": "."}"#)]),
        support::text_reply("I changed nothing."),
    ])
    .await;
    let run = exec_plain(dir.path(), &server, "supervised", "look").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Let me read it.\n\nNow the list.\n\nI changed nothing.\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_tool_lines_are_human_not_escaped_json() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("r", "read_file", r#"{"path": "greet.py"}"#),
            ("b", "bash", r#"{"command": "ls -a"}"#),
            (
                "e",
                "edit_file",
                r#"{"path": "greet.py", "edits": [
                    {"old_str": "def greet", "new_str": "def hello"},
                    {"old_str": "'hello'", "new_str": "'hi'"}]}"#,
            ),
        ]),
        support::text_reply("Done."),
    ])
    .await;
    let run = exec_plain(dir.path(), &server, "full-auto", "go").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("greet.py")).unwrap(),
        "def hello():\n    return 'hi'\n"
    );
    let err = &run.stderr;
    for line in [
        "→ read_file greet.py\n",
        "→ bash ls -a\n",
        "→ edit_file greet.py (2 edits)\n",
    ] {
        assert!(err.contains(line), "missing {line:?} in:\n{err}");
    }
    assert!(err.contains("  ✓ edit_file greet.py (2 edits) ("), "{err}");
    assert!(!err.contains('{') && !err.contains("\\\""), "{err}");
    assert_eq!(run.stdout, "Done.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_output_prints_each_denial_once() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            (
                "e",
                "edit_file",
                r#"{"path": "greet.py", "old_str": "hello", "new_str": "bye"}"#,
            ),
            ("b", "bash", r#"{"command": "touch made-by-bash"}"#),
        ]),
        support::text_reply("I could not change it."),
    ])
    .await;
    let run = exec_plain(dir.path(), &server, "supervised", "change it").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!dir.path().join("made-by-bash").exists());
    let denials: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("denied"))
        .collect();
    assert_eq!(denials.len(), 2, "{}", run.stderr);
    assert!(
        denials[0].starts_with("  ✗ edit_file greet.py: denied by policy: "),
        "{}",
        run.stderr
    );
    assert!(
        denials[1].starts_with("  ✗ bash touch made-by-bash: denied by policy: "),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "I could not change it.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn global_options_work_before_and_after_exec() {
    let dir = workspace();
    let server =
        ScriptedServer::start(vec![support::text_reply("one"), support::text_reply("two")]).await;
    let config = dir.path().join("elsewhere.toml");
    std::fs::write(
        &config,
        format!(
            "model = \"model-from-file\"\nbase_url = \"{}\"\n",
            server.base_url()
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap();

    let before = run(dir.path(), &["--config", config], &[], "first").await;
    assert_eq!(before.code, 0, "{}", before.stderr);
    assert_eq!(before.stdout, "one\n");
    let after = run(dir.path(), &[], &["--config", config], "second").await;
    assert_eq!(after.code, 0, "{}", after.stderr);
    assert_eq!(after.stdout, "two\n");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for (request, prompt) in requests.iter().zip(["first", "second"]) {
        assert_eq!(request["model"], "model-from-file");
        assert_eq!(request["messages"][1]["content"], prompt);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_before_a_subcommand_is_bad_usage() {
    let dir = workspace();
    let run = run(dir.path(), &["please"], &[], "do it").await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("cannot be combined with the `exec` subcommand"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}
