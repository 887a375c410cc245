//! `/review` and `loom review` end to end (issue 28), through the real binary and the
//! scripted model server: the review turn is read-only (only read-only tools offered, a
//! writing command refused), the request carries the review prompt with the diff, the
//! findings in the answer come out as `review_findings` (and as `path:line severity text`
//! lines without `--json`), and `--commit` reviews one commit of a temp repository.

use std::path::Path;

use serde_json::{Value, json};

use crate::exec::{Run, loom_command};
use crate::sessions::git;
use crate::support::{self, ScriptedServer};

/// A repository with one commit of `src/lib.rs`, and `.home/` ignored.
pub fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn one() -> u32 {\n    1\n}\n",
    )
    .unwrap();
    // The test homes and config, made inside the workspace, are not work to review.
    std::fs::write(dir.path().join(".gitignore"), ".home/\n.home-config.toml\n").unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "one"]);
    dir
}

/// `loom review ARGS` against `server` in `dir`: exit code, stdout, stderr.
async fn review(dir: &Path, server: &ScriptedServer, args: &[&str]) -> (i32, String, String) {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .args([
            "review",
            "--model",
            "scripted-model",
            "--approval",
            "full-auto",
        ])
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .await
        .expect("loom runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(String::from))
        .collect()
}

/// The last user message of a request.
fn asked(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    last["content"].as_str().unwrap_or_default().to_string()
}

const ANSWER: &str = "I looked at the change.\n\n\
    - `src/lib.rs:2`: **high**: two() panics on overflow\n\
    - src/lib.rs:5: low: name the constant\n\
    Nothing else.";

/// Regression (issue 28): even in full-auto mode, the review turn offers read-only tools
/// only and refuses a command that writes (the file stays unmade), the request carries the
/// review prompt with the uncommitted diff, and the findings come out parsed.
#[tokio::test(flavor = "multi_thread")]
async fn a_review_is_read_only_and_its_findings_come_out_parsed() {
    let dir = repository();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn one() -> u32 {\n    u32::MAX + 1\n}\n",
    )
    .unwrap();
    let touch = json!({"command": "touch made.txt"}).to_string();
    let read = json!({"path": "src/lib.rs"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("t", "bash", &touch), ("r", "read_file", &read)]),
        support::text_reply(ANSWER),
    ])
    .await;
    let (code, stdout, stderr) = review(dir.path(), &server, &["--json", "overflow"]).await;
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let run = Run {
        code,
        events: stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        stderr,
    };
    let first = &server.requests()[0];
    let sent = offered(first);
    for name in ["read_file", "bash"] {
        assert!(sent.contains(&name.to_string()), "{name} offered: {sent:?}");
    }
    for name in ["write_file", "edit_file", "apply_patch", "web_fetch"] {
        assert!(
            !sent.contains(&name.to_string()),
            "{name} offered: {sent:?}"
        );
    }
    let prompt = asked(first);
    assert!(prompt.contains("path:line: severity:"), "{prompt}");
    assert!(prompt.contains("+    u32::MAX + 1"), "the diff: {prompt}");
    assert!(
        prompt.contains("Pay particular attention to: overflow"),
        "{prompt}"
    );
    let results = run.of_type("tool_result");
    let touch = results.iter().find(|r| r["id"] == "t").unwrap();
    assert_eq!(touch["success"], false, "{touch}");
    assert!(!dir.path().join("made.txt").exists(), "the command ran");
    let read = results.iter().find(|r| r["id"] == "r").unwrap();
    assert_eq!(read["success"], true, "{read}");
    let findings = run.of_type("review_findings");
    assert_eq!(findings.len(), 1, "{:?}", run.events);
    let list = findings[0]["findings"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0]["path"], "src/lib.rs");
    assert_eq!(list[0]["line"], 2);
    assert_eq!(list[0]["severity"], "high");
    assert_eq!(list[0]["text"], "two() panics on overflow");
    let kinds: Vec<&str> = run
        .events
        .iter()
        .filter_map(|e| e["type"].as_str())
        .filter(|t| *t == "review_findings" || *t == "turn_completed")
        .collect();
    assert_eq!(kinds, ["review_findings", "turn_completed"]);
}

/// `loom review --commit` reviews that commit's own change (not the working tree) and
/// prints the answer, then the findings as `path:line severity text`.
#[tokio::test(flavor = "multi_thread")]
async fn review_commit_prints_the_answer_then_the_findings() {
    let dir = repository();
    std::fs::write(dir.path().join("src/two.rs"), "pub fn two() -> u32 { 2 }\n").unwrap();
    git(dir.path(), &["add", "src/two.rs"]);
    git(dir.path(), &["commit", "-q", "-m", "two"]);
    std::fs::write(dir.path().join("src/lib.rs"), "uncommitted\n").unwrap();
    let server = ScriptedServer::start(vec![support::text_reply(ANSWER)]).await;
    let (code, stdout, stderr) = review(dir.path(), &server, &["--commit", "HEAD"]).await;
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let prompt = asked(&server.requests()[0]);
    assert!(prompt.contains("+pub fn two() -> u32 { 2 }"), "{prompt}");
    assert!(!prompt.contains("uncommitted"), "only the commit: {prompt}");
    assert!(stdout.starts_with("I looked at the change."), "{stdout}");
    assert!(
        stdout.ends_with(
            "\nsrc/lib.rs:2 high two() panics on overflow\nsrc/lib.rs:5 low name the constant\n"
        ),
        "{stdout}"
    );
    assert!(stderr.contains("review: 2 finding(s)"), "{stderr}");
}

/// Nothing to review, no repository, an unknown commit: a clear error, exit code 1, and
/// no model request.
#[tokio::test(flavor = "multi_thread")]
async fn nothing_to_review_is_a_clear_error_before_any_request() {
    let server = ScriptedServer::start(vec![]).await;
    let clean = repository();
    let (code, _, stderr) = review(clean.path(), &server, &[]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("nothing to review"), "{stderr}");
    let (code, _, stderr) = review(clean.path(), &server, &["--commit", "nope"]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("no commit or branch named \"nope\""),
        "{stderr}"
    );
    let outside = tempfile::tempdir().unwrap();
    let (code, _, stderr) = review(outside.path(), &server, &["--base", "main"]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("cannot review"), "{stderr}");
    assert!(server.requests().is_empty());
}

/// `/review` in the real terminal, in read-only mode (a writing command refused without a
/// question, in a supervised session): the answer streams, the chat says how many findings,
/// the list opens over the screen, `Enter` shows the finding's file around its line, and
/// `Esc` goes back to the list and then closes it.
#[tokio::test(flavor = "multi_thread")]
async fn slash_review_lists_the_findings_and_opens_one() {
    let dir = repository();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn one() -> u32 {\n    u32::MAX + 1\n}\n",
    )
    .unwrap();
    let touch = json!({"command": "touch made.txt"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("t", "bash", &touch)]),
        support::text_reply(ANSWER),
    ])
    .await;
    // Supervised: outside the review, `touch` would ask; in it, it is refused unasked.
    let mut tui = crate::tui::Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("/review").await;
    let screen = tui.wait_for("Review findings (2)").await;
    assert!(
        screen.contains("› high     src/lib.rs:2  two() panics on overflow"),
        "{screen}"
    );
    let requests = server.requests();
    let prompt = asked(&requests[0]);
    assert!(prompt.contains("+    u32::MAX + 1"), "{prompt}");
    assert!(!offered(&requests[0]).contains(&"write_file".to_string()));
    let refused = &support::tool_messages(&requests[1])[0].1;
    assert!(refused.to_string().contains("read-only"), "{refused}");
    assert!(!dir.path().join("made.txt").exists());
    tui.send("\r");
    let opened = tui.wait_for("u32::MAX + 1").await;
    assert!(opened.contains("›    2     u32::MAX + 1"), "{opened}");
    tui.send("\x1b");
    tui.wait_for("↑↓ choose · Enter opens").await;
    tui.send("\x1b");
    tui.wait_gone("Review findings").await;
    let chat = tui.wait_for("Review: 2 findings").await;
    // The chat shows one line for the review; the instructions and the diff go only to
    // the model.
    assert!(chat.contains("Review the uncommitted changes"), "{chat}");
    assert!(!chat.contains("path:line: severity:"), "{chat}");
    tui.quit().await;
}

/// Regression (issue 28): the review turn's read-only mode lasts one turn. An agent in
/// full-auto reviews (its writing command refused, write tools not offered), and the next
/// turn is full-auto again: write tools offered, the write done without a question.
#[tokio::test(flavor = "multi_thread")]
async fn the_mode_comes_back_after_the_review_turn() {
    use loom::agent::{AgentEvent, UserOp};
    use loom::protocol::review::ReviewTarget;
    let dir = repository();
    std::fs::write(dir.path().join("src/lib.rs"), "changed\n").unwrap();
    let touch = json!({"command": "touch made.txt"}).to_string();
    let write = json!({"path": "new.txt", "content": "x\n"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("t", "bash", &touch)]),
        support::text_reply(ANSWER),
        support::calls_openai(&[("w", "write_file", &write)]),
        support::text_reply("Wrote it."),
    ])
    .await;
    let mut agent = crate::agent::start_agent(dir.path(), &server, "full-auto");
    let op = UserOp::Review {
        target: ReviewTarget::Uncommitted,
        focus: String::new(),
    };
    agent.ops.send(op).unwrap();
    let mut findings = None;
    loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(20), agent.events.recv())
            .await
            .expect("the agent answers within 20 s")
            .expect("the agent is alive");
        match event {
            AgentEvent::ReviewFindings { findings: f } => findings = Some(f),
            AgentEvent::TurnComplete { .. } => break,
            _ => {}
        }
    }
    assert_eq!(findings.map(|f| f.len()), Some(2));
    assert!(!dir.path().join("made.txt").exists(), "the review wrote");
    let after = crate::agent::run_turn(&mut agent, "add new.txt", |name, _| {
        panic!("full-auto asked about {name}")
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.txt")).unwrap_or_default(),
        "x\n",
        "{after:?}"
    );
    let requests = server.requests();
    assert!(!offered(&requests[0]).contains(&"write_file".to_string()));
    assert!(offered(&requests[2]).contains(&"write_file".to_string()));
}

/// A review the agent refuses starts no turn: exec's loop ends with the error and exit
/// code 1 instead of waiting for a turn that never comes (the diff can vanish between
/// `loom review`'s own check and the agent's).
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_review_ends_the_headless_run_with_its_error() {
    use loom::agent::UserOp;
    use loom::protocol::review::ReviewTarget;
    let dir = repository();
    let server = ScriptedServer::start(vec![]).await;
    let agent = crate::agent::start_agent(dir.path(), &server, "supervised");
    let op = UserOp::Review {
        target: ReviewTarget::Uncommitted,
        focus: String::new(),
    };
    let stop = tokio_util::sync::CancellationToken::new();
    let outcome = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        loom::exec::drive_op(agent, op, |_| {}, &stop),
    )
    .await
    .expect("the run ends");
    assert_eq!(outcome.code, 1);
    assert_eq!(outcome.end, None);
    assert!(
        outcome
            .errors
            .iter()
            .any(|e| e.contains("nothing to review")),
        "{:?}",
        outcome.errors
    );
    assert!(server.requests().is_empty());
}
