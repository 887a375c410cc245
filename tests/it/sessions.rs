//! Nothing lost: transcripts that survive SIGKILL and resume, undo from the command line
//! (edits and shell-made changes), auto-commit and user hooks — with the real binary.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::exec::{exec, loom_command, loom_in};
use crate::support::{self, Frame, Reply, ScriptedServer};

/// Run git in `dir` as a test's author, asserting it succeeded; its standard output.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `loom exec --json --resume <id>` against `server`.
async fn resume(
    dir: &Path,
    id: &str,
    server: &ScriptedServer,
    prompt: &str,
) -> std::process::Output {
    loom_command(&dir.join(".home"))
        .args([
            "exec",
            "--json",
            "--model",
            "m",
            "--resume",
            id,
            "--base-url",
        ])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .arg(prompt)
        .output()
        .await
        .unwrap()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    std::fs::create_dir_all(dir.path().join(".home")).unwrap();
    dir
}

fn sessions_dir(dir: &Path) -> std::path::PathBuf {
    dir.join(".home/.local/share/loom/sessions")
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_after_sigkill_mid_run() {
    let dir = workspace();
    std::fs::write(dir.path().join("notes.txt"), "remember the milk\n").unwrap();
    let stalled = Reply::Stream(vec![Frame::Delay(Duration::from_secs(60))]);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("r1", "read_file", r#"{"path": "notes.txt"}"#)]),
        stalled,
    ])
    .await;
    let mut child = loom_command(&dir.path().join(".home"))
        .args(["exec", "--json", "--model", "m", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("what is in notes.txt?")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    let id = first["session_id"].as_str().unwrap().to_string();
    let file = sessions_dir(dir.path()).join(format!("{id}.jsonl"));
    let mut waited = 0;
    while !std::fs::read_to_string(&file)
        .unwrap_or_default()
        .contains("remember the milk")
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += 1;
        assert!(waited < 200, "the tool result never reached the transcript");
    }
    let pid = child.id().unwrap() as i32;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = child.wait().await;

    let (code, listing, _) = loom_in(dir.path(), &["sessions"]).await;
    assert_eq!(code, 0);
    assert!(
        listing.contains(&id) && listing.contains("what is in notes.txt?"),
        "{listing}"
    );

    let server2 =
        ScriptedServer::start(vec![support::text_reply("It says to remember the milk.")]).await;
    let out = resume(dir.path(), &id, &server2, "so?").await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let started: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(started["session_id"], id.as_str());
    let messages = server2.requests()[0]["messages"]
        .as_array()
        .unwrap()
        .clone();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
    assert_eq!(messages[1]["content"], "what is in notes.txt?");
    assert_eq!(messages[2]["tool_calls"][0]["id"], "r1");
    assert!(
        messages[3]["content"]
            .as_str()
            .unwrap()
            .contains("remember the milk")
    );
    assert_eq!(messages[4]["content"], "so?");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_truncated_transcript_still_resumes() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply("first answer")]).await;
    let run = exec(dir.path(), &server, "supervised", "first question").await;
    let id = run.events[0]["session_id"].as_str().unwrap().to_string();
    let file = sessions_dir(dir.path()).join(format!("{id}.jsonl"));
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{\"t\":\"message\",\"message\":{\"role\":\"user\",\"cont");
    std::fs::write(&file, text).unwrap();
    let server2 = ScriptedServer::start(vec![support::text_reply("second")]).await;
    let out = resume(dir.path(), &id, &server2, "again").await;
    assert_eq!(out.status.code(), Some(0));
    let started: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert!(
        started["notice"]
            .as_str()
            .unwrap()
            .contains("unreadable line"),
        "{started}"
    );
    let contents: Vec<String> = server2.requests()[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(contents.contains(&"first question".to_string()));
    assert!(contents.contains(&"first answer".to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_from_the_command_line_restores_an_edit() {
    let dir = workspace();
    std::fs::write(dir.path().join("a.txt"), "original\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e",
            "edit_file",
            r#"{"path": "a.txt", "old_str": "original", "new_str": "changed"}"#,
        )]),
        support::calls_openai(&[(
            "w",
            "write_file",
            r#"{"path": "new.txt", "content": "fresh\n"}"#,
        )]),
        support::text_reply("done"),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "change it").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "changed\n"
    );

    let (code, diff, _) = loom_in(dir.path(), &["undo"]).await;
    assert_eq!(
        code, 1,
        "without --yes and without a terminal nothing is applied"
    );
    assert!(
        diff.contains("+++ /dev/null"),
        "the last change (the new file) is shown: {diff}"
    );
    assert!(dir.path().join("new.txt").exists());

    let (code, _, err) = loom_in(dir.path(), &["undo", "--turn", "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "original\n"
    );
    assert!(!dir.path().join("new.txt").exists());

    let (code, _, _) = loom_in(dir.path(), &["undo", "--redo", "--yes"]).await;
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "changed\n"
    );

    std::fs::write(dir.path().join("a.txt"), "my own work\n").unwrap();
    let (code, _, err) = loom_in(dir.path(), &["undo", "--all", "--yes"]).await;
    assert_eq!(code, 1);
    assert!(err.contains("changed since Loom wrote it"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "my own work\n"
    );
}

/// Regression (issue 9): a command rated read-only got no snapshot, so when it did write,
/// `loom undo` had nothing to restore. Now every command not proven read-only — a
/// low-risk build included — is snapshotted first.
#[tokio::test(flavor = "multi_thread")]
async fn a_low_risk_build_that_writes_is_snapshotted_and_undone() {
    if std::process::Command::new("make")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: make is not installed");
        return;
    }
    let dir = workspace();
    std::fs::write(dir.path().join("data.txt"), "precious\n").unwrap();
    std::fs::write(
        dir.path().join("Makefile"),
        "all:\n\techo clobbered > data.txt\n",
    )
    .unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("m", "bash", r#"{"command": "make"}"#)]),
        support::text_reply("built"),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "build it").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.of_type("approval")[0]["decision"], "approved");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("data.txt")).unwrap(),
        "clobbered\n"
    );
    let (code, _, err) = loom_in(dir.path(), &["undo", "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("data.txt")).unwrap(),
        "precious\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn shell_made_changes_are_undone_from_the_snapshot() {
    let dir = workspace();
    std::fs::write(dir.path().join("config.ini"), "debug = false\n").unwrap();
    std::fs::write(dir.path().join("old.txt"), "keep me\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "s",
            "bash",
            r#"{"command": "sed -i 's/false/true/' config.ini && rm old.txt"}"#,
        )]),
        support::text_reply("done"),
    ])
    .await;
    let run = exec(
        dir.path(),
        &server,
        "full-auto",
        "enable debug, drop old.txt",
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.of_type("tool_result")[0];
    assert_eq!(
        result["files_changed"],
        serde_json::json!(["config.ini", "old.txt"])
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("config.ini")).unwrap(),
        "debug = true\n"
    );
    let (code, diff, err) = loom_in(dir.path(), &["undo", "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        diff.contains("-debug = true") && diff.contains("+debug = false"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("config.ini")).unwrap(),
        "debug = false\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.txt")).unwrap(),
        "keep me\n"
    );
}

/// Trust the workspace's `.loom/config.toml` (hooks and auto-commit need trust), as the
/// person would with `loom trust`.
async fn trust_workspace(ws: &Path) {
    let home = ws.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .arg("trust")
        .arg("-C")
        .arg(ws)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_commit_includes_only_looms_files() {
    let dir = workspace();
    let ws = dir.path();
    git(ws, &["init", "-q", "-b", "main"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    std::fs::write(ws.join("mine.txt"), "mine\n").unwrap();
    std::fs::write(ws.join("staged.txt"), "s\n").unwrap();
    git(ws, &["add", "."]);
    git(ws, &["commit", "-qm", "base"]);
    std::fs::write(ws.join("mine.txt"), "my unrelated edit\n").unwrap();
    std::fs::write(ws.join("staged.txt"), "staged by me\n").unwrap();
    git(ws, &["add", "staged.txt"]);
    std::fs::create_dir_all(ws.join(".loom")).unwrap();
    std::fs::write(ws.join(".loom/config.toml"), "auto_commit = true\n").unwrap();
    std::fs::write(ws.join(".gitignore"), ".home/\n.loom/\n").unwrap();
    trust_workspace(ws).await;
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e",
            "edit_file",
            r#"{"path": "a.txt", "old_str": "a", "new_str": "A"}"#,
        )]),
        support::text_reply("done"),
    ])
    .await;
    let run = exec(ws, &server, "full-auto", "capitalise a").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let hook = run.of_type("hook_result");
    assert_eq!(hook[0]["name"], "auto-commit");
    assert_eq!(hook[0]["success"], true, "{hook:?}");
    assert!(hook[0]["duration_ms"].is_u64(), "{hook:?}");
    let committed = git(ws, &["show", "--name-only", "--format=%s", "HEAD"]);
    assert_eq!(committed.trim(), "chore(loom): update a.txt\n\na.txt");
    let status = git(ws, &["status", "--porcelain"]);
    assert!(status.contains(" M mine.txt"), "{status}");
    assert!(
        status.contains("M  staged.txt"),
        "the user's staged change stays staged: {status}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_user_hook_reaches_the_model() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join(".loom")).unwrap();
    std::fs::write(
        dir.path().join(".loom/config.toml"),
        "[[hooks.post_tools]]\ncommand = \"echo 'lint: trailing space on line 1' >&2; exit 3\"\nglob = \"*.txt\"\n\n[[hooks.post_tools]]\ncommand = \"echo never\"\nglob = \"*.rs\"\n",
    )
    .unwrap();
    trust_workspace(dir.path()).await;
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("w", "write_file", r#"{"path": "a.txt", "content": "x \n"}"#)]),
        support::text_reply("I will fix it."),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "write a.txt").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let hooks = run.of_type("hook_result");
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[0]["success"], false);
    assert!(hooks[1]["output"].as_str().unwrap().starts_with("skipped"));
    let last = server.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    let text = last["content"].as_str().unwrap();
    assert!(
        text.contains("post-tools hook") && text.contains("exit code 3"),
        "{text}"
    );
    assert!(text.contains("lint: trailing space on line 1"), "{text}");
}
