//! Custom slash commands and the message box's habits (issue 28) in the real binary in a
//! pseudo-terminal, against the scripted model server: a Claude Code command file with
//! `$ARGUMENTS`, `@file` and `` !`command` ``; a forbidden `` !`command` `` that never runs;
//! one the policy asks about; a person's command narrowing the tools and choosing the
//! model for its turn only; and `Ctrl+G` with `EDITOR` set to a script.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{self, ScriptedServer};
use crate::tui::{Tui, workspace};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The requests once the server has had `n` of them.
async fn requests(server: &ScriptedServer, n: usize) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let all = server.requests();
        if all.len() >= n {
            return all;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the server had {} requests, not {n}",
            all.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The last user message of a request.
fn last_user(request: &Value) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A file of Claude Code's `.claude/commands/` works unchanged: listed in the popup with
/// its description and hint, `$ARGUMENTS` and `$1` replaced, `@file` attached through
/// `read_file`, `` !`command` `` replaced by its output (run in the sandbox).
#[tokio::test(flavor = "multi_thread")]
async fn a_claude_code_command_file_runs_with_its_arguments_files_and_commands() {
    let dir = workspace();
    write(&dir.path().join("notes.txt"), "the notes say hi\n");
    write(
        &dir.path().join(".claude/commands/greet.md"),
        "---\ndescription: Greet someone\nargument-hint: NAME [MOOD]\n---\n\
         Greet $1 ($ARGUMENTS). Context: !`echo from-the-shell` and @notes.txt\n",
    );
    let server = ScriptedServer::start(vec![support::text_reply("Hello, Ada!")]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.send("/gre");
    let popup = tui.wait_for("Greet someone (project)").await;
    assert!(popup.contains("/greet NAME [MOOD]"), "{popup}");
    tui.send("et Ada cheerful\r");
    tui.wait_for("Hello, Ada!").await;
    let user = last_user(&requests(&server, 1).await[0]);
    assert!(
        user.starts_with("Greet Ada (Ada cheerful). Context: from-the-shell and @notes.txt"),
        "{user}"
    );
    assert!(
        user.contains("<attachment name=\"@notes.txt\">") && user.contains("the notes say hi"),
        "{user}"
    );
    tui.quit().await;
}

/// Regression: a forbidden `` !`command` `` in a project's command file is refused by the
/// policy and never runs (nobody typed it); the rest of the prompt is still sent, saying
/// it was not run.
#[tokio::test(flavor = "multi_thread")]
async fn a_forbidden_bang_command_in_a_project_command_never_runs() {
    let dir = workspace();
    write(
        &dir.path().join(".loom/commands/boom.md"),
        "Clean up: !`touch ran.txt; rm -rf /`\n",
    );
    let server = ScriptedServer::start(vec![support::text_reply("Nothing to do.")]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("/boom").await;
    tui.wait_for("Nothing to do.").await;
    let user = last_user(&requests(&server, 1).await[0]);
    assert!(
        user.contains("[!`touch ran.txt; rm -rf /` was not run: denied by policy"),
        "{user}"
    );
    assert!(
        !dir.path().join("ran.txt").exists(),
        "the forbidden command never ran"
    );
    tui.quit().await;
}

/// A `` !`command` `` the policy asks about waits for the person: `y` runs it and its
/// output goes into the prompt.
#[tokio::test(flavor = "multi_thread")]
async fn a_bang_command_the_policy_asks_about_waits_for_the_person() {
    let dir = workspace();
    write(
        &dir.path().join(".loom/commands/make.md"),
        "Made: !`touch asked.txt && echo made-it`\n",
    );
    let server = ScriptedServer::start(vec![support::text_reply("Seen.")]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("/make").await;
    let screen = tui.wait_for("Run this command?").await;
    assert!(!dir.path().join("asked.txt").exists(), "it waits: {screen}");
    if tui.screen().contains("Tab answers it") {
        tui.send("\t");
    }
    tui.send("y");
    tui.wait_for("Seen.").await;
    assert!(dir.path().join("asked.txt").exists());
    let user = last_user(&requests(&server, 1).await[0]);
    assert!(user.starts_with("Made: made-it"), "{user}");
    tui.quit().await;
}

/// The person's own command (in `~/.config/loom/commands/`, so it applies in any
/// workspace) narrows its turn to its `allowed-tools` — only those are offered, a call of
/// another is refused — and uses its `model`; both end with the turn.
#[tokio::test(flavor = "multi_thread")]
async fn allowed_tools_and_model_hold_for_the_commands_turn_only() {
    let dir = workspace();
    write(
        &dir.path().join(".home/.config/loom/commands/look.md"),
        "---\nmodel: other-model\nallowed-tools: Read, Grep\n---\nLook at $1\n",
    );
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("w1", "write_file", r#"{"path": "x.txt", "content": "x"}"#)]),
        support::text_reply("Looked."),
        support::text_reply("Plain answer."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("/look src").await;
    tui.wait_for("Looked.").await;
    tui.type_line("and now?").await;
    tui.wait_for("Plain answer.").await;
    let all = requests(&server, 3).await;
    assert_eq!(all[0]["model"], "other-model");
    let mut offered = tool_names(&all[0]);
    offered.sort();
    assert_eq!(offered, ["read_file", "search_files"]);
    let refused = support::tool_messages(&all[1]);
    assert!(
        refused[0]
            .1
            .to_string()
            .contains("allowed-tools do not include write_file"),
        "{refused:?}"
    );
    assert!(!dir.path().join("x.txt").exists());
    assert_eq!(all[2]["model"], "scripted-model", "the model comes back");
    assert!(
        tool_names(&all[2]).len() > 2,
        "the tools come back: {:?}",
        tool_names(&all[2])
    );
    tui.quit().await;
}

fn editor_script(dir: &Path, body: &str) -> String {
    let path = dir.join(format!("editor-{}.sh", body.len()));
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&path)
        .status()
        .unwrap();
    path.display().to_string()
}

/// `Ctrl+G` leaves the screen, runs `$EDITOR` on the message and takes back what it
/// wrote; Enter sends it.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_g_edits_the_message_in_the_editor() {
    let dir = workspace();
    let tools = tempfile::tempdir().unwrap();
    let editor = editor_script(
        tools.path(),
        "sed 's/draft/rewritten by the editor/' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"",
    );
    let server = ScriptedServer::start(vec![support::text_reply("Got it.")]).await;
    let mut tui = Tui::start_with(
        dir.path(),
        &server,
        120,
        30,
        &[],
        &[("EDITOR", editor.as_str()), ("VISUAL", "")],
    );
    tui.wait_for("Ask Loom").await;
    tui.send("my draft");
    tui.wait_for("my draft").await;
    tui.send("\x07");
    tui.wait_for("my rewritten by the editor").await;
    tui.send("\r");
    tui.wait_for("Got it.").await;
    let user = last_user(&requests(&server, 1).await[0]);
    assert_eq!(user, "my rewritten by the editor");
    tui.quit().await;
}

/// An editor that fails, or none at all, leaves the message as it was and says why.
#[tokio::test(flavor = "multi_thread")]
async fn a_failing_or_missing_editor_loses_nothing() {
    let dir = workspace();
    let tools = tempfile::tempdir().unwrap();
    let failing = editor_script(tools.path(), "echo x > \"$1\"; exit 4");
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start_with(
        dir.path(),
        &server,
        200,
        40,
        &[],
        &[("EDITOR", failing.as_str()), ("VISUAL", "")],
    );
    tui.wait_for("Ask Loom").await;
    tui.send("keep this");
    tui.wait_for("keep this").await;
    tui.send("\x07");
    let screen = tui.wait_for("unchanged").await;
    assert!(screen.contains("failed"), "{screen}");
    tui.wait_for("keep this").await;
    tui.quit().await;

    let mut tui = Tui::start_with(
        dir.path(),
        &server,
        200,
        40,
        &[],
        &[("EDITOR", ""), ("VISUAL", "")],
    );
    tui.wait_for("Ask Loom").await;
    tui.send("still here");
    tui.wait_for("still here").await;
    tui.send("\x07");
    tui.wait_for("set $VISUAL or $EDITOR").await;
    tui.wait_for("still here").await;
    tui.quit().await;
}

/// `Ctrl+R` finds a prompt sent in another workspace's session (read from the session
/// files), marked as such, and `Enter` sends it.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_r_finds_prompts_of_other_workspaces() {
    let first = workspace();
    let data = tempfile::tempdir().unwrap();
    let data_home = data.path().display().to_string();
    let env = [("XDG_DATA_HOME", data_home.as_str())];
    let server = ScriptedServer::start(vec![
        support::text_reply("First answer."),
        support::text_reply("Second answer."),
    ])
    .await;
    let mut tui = Tui::start_with(first.path(), &server, 140, 40, &[], &env);
    tui.wait_for("Ask Loom").await;
    tui.type_line("explain the zebra module").await;
    tui.wait_for("First answer.").await;
    tui.quit().await;

    let second = workspace();
    let mut tui = Tui::start_with(second.path(), &server, 140, 40, &[], &env);
    tui.wait_for("Ask Loom").await;
    tui.send("\x12");
    tui.wait_for("reverse search").await;
    tui.send("zebra");
    let screen = tui.wait_for("another workspace").await;
    assert!(screen.contains("explain the zebra module"), "{screen}");
    tui.send("\r");
    tui.wait_for("Second answer.").await;
    let user = last_user(&requests(&server, 2).await[1]);
    assert_eq!(user, "explain the zebra module");
    tui.quit().await;
}

/// A project's command may choose its model and narrow its tools only once the person
/// trusted the workspace's config: refused at the trust prompt, its prompt still runs, with
/// the model and tools as they were and a warning; trusted, both apply.
#[tokio::test(flavor = "multi_thread")]
async fn a_projects_model_and_tools_apply_only_once_trusted() {
    for (answer, model, narrowed) in [("n", "scripted-model", false), ("t", "other-model", true)] {
        let dir = workspace();
        write(
            &dir.path().join(".loom/config.toml"),
            "[approval]\nmode = \"full-auto\"\n",
        );
        write(
            &dir.path().join(".loom/commands/look.md"),
            "---\nmodel: other-model\nallowed-tools: Read\n---\nLook around\n",
        );
        let server = ScriptedServer::start(vec![support::text_reply("Looked.")]).await;
        let mut tui = Tui::start(dir.path(), &server, 160, 40);
        tui.wait_for("t trust and apply").await;
        tui.send(answer);
        // A person reads the answer taken before typing on (a letter right after `t`
        // would make it the start of a message).
        tui.wait_gone("t trust and apply").await;
        tui.type_line("/look").await;
        let screen = tui.wait_for("Looked.").await;
        let request = &requests(&server, 1).await[0];
        assert_eq!(request["model"], model, "answer {answer}");
        assert_eq!(last_user(request), "Look around");
        let tools = tool_names(request);
        assert_eq!(
            tools == ["read_file"],
            narrowed,
            "answer {answer}: {tools:?}"
        );
        assert_eq!(
            screen.contains("applies only in a trusted workspace"),
            !narrowed,
            "answer {answer}:\n{screen}"
        );
        tui.quit().await;
    }
}
