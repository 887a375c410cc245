//! The daily-driver conveniences in the real binary in a pseudo-terminal (issue 16): the
//! transcript left in scrollback, the slash popup, `/copy`, `!command`, `@file`, the model
//! picker and session titles.

use crate::support::{self, ScriptedServer};
use crate::tui::{Tui, workspace};

#[tokio::test(flavor = "multi_thread")]
async fn the_conversation_stays_on_the_normal_screen_after_exit() {
    let dir = workspace();
    std::fs::write(dir.path().join("notes.txt"), "one\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("r1", "read_file", r#"{"path": "notes.txt"}"#)]),
        support::text_reply("## Done\n\nThe file has **one** line:\n\n```text\none\n```\n"),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 100, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("what is in notes.txt").await;
    tui.wait_for("line:").await;
    let screen = tui.quit_and_wait().await;
    assert!(
        !screen.contains("Ask Loom"),
        "the alternate screen is gone:\n{screen}"
    );
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} is not on the normal screen:\n{screen}"))
    };
    let prompt = at("› what is in notes.txt");
    let tool = at("✓ read_file notes.txt");
    let heading = at("Done");
    let bold = at("The file has one line:");
    let hint = at("Resume it with: loom --resume");
    assert!(
        prompt < tool && tool < heading && heading < bold && bold < hint,
        "{screen}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("read_file")).count(),
        1,
        "a tool call is one line:\n{screen}"
    );
    assert!(
        !screen.contains("**"),
        "markdown is rendered, not raw:\n{screen}"
    );
}

/// `/copy code 1` sends the first code block's clean text as OSC 52. With `$TMUX` naming a
/// tmux that cannot be asked (no server there), the sequence goes plain, never wrapped in a
/// passthrough tmux 3.3 would drop, and the chat says tmux keeps it only with
/// `set-clipboard on` (a real tmux: `tui_screen::copy_inside_a_real_tmux…`).
#[tokio::test(flavor = "multi_thread")]
async fn copy_sends_the_code_block_as_plain_osc52_when_tmux_cannot_be_asked() {
    let dir = workspace();
    let answer = "Two blocks:\n\n```sh\nls -l\n```\n\nand\n\n```rust\nfn main() {}\n```\n";
    let server = ScriptedServer::start(vec![support::text_reply(answer)]).await;
    let nowhere = format!("{},1,0", dir.path().join("no-tmux-here").display());
    let mut tui = Tui::start_with(dir.path(), &server, 120, 40, &[], &[("TMUX", &nowhere)]);
    tui.wait_for("Ask Loom").await;
    tui.type_line("show me").await;
    tui.wait_for("fn main").await;
    tui.type_line("/copy code 1").await;
    tui.wait_for("copied code block 1 of 2").await;
    tui.wait_for("set-clipboard").await;
    let encoded = loom::base::encode::base64(b"ls -l\n");
    let raw = tui.wait_for_raw(&format!("\x1b]52;c;{encoded}\x07")).await;
    assert!(!raw.contains("\x1bPtmux;"), "no blind passthrough");
    tui.type_line("/copy").await;
    tui.wait_for("copied the last answer").await;
    tui.wait_for_raw(&loom::base::encode::base64(answer.as_bytes()))
        .await;
    tui.quit().await;
}

/// `!command` runs through the policy and the sandbox as the person's own `bash` call, shows
/// as a tool row, and its output goes with the next message as a chip; a forbidden command
/// is refused with the policy's reason.
#[tokio::test(flavor = "multi_thread")]
async fn a_bang_command_runs_in_the_sandbox_and_its_output_goes_with_the_next_message() {
    let dir = workspace();
    std::fs::write(dir.path().join("marker.txt"), "marker-content\n").unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("I see the marker.")]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("!cat marker.txt").await;
    let screen = tui.wait_for("⎘ !cat marker.txt · ").await;
    assert!(
        screen.contains("✓ bash cat marker.txt"),
        "a tool row:\n{screen}"
    );
    assert!(
        server.requests().is_empty(),
        "the model is not asked about a !command"
    );
    tui.type_line("!rm -rf /").await;
    tui.wait_for("refused:").await;
    tui.type_line("what does it say").await;
    tui.wait_for("I see the marker.").await;
    let request = &server.requests()[0];
    let user = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.starts_with("what does it say"), "{user}");
    assert!(
        user.contains("<attachment name=\"!cat marker.txt\">\n$ cat marker.txt\nmarker-content"),
        "{user}"
    );
    assert!(
        !user.contains("rm -rf"),
        "a refused command attaches nothing: {user}"
    );
    let screen = tui.screen();
    assert!(
        !screen.contains("<attachment"),
        "the chat shows chips, not the blocks:\n{screen}"
    );
    tui.quit().await;
}

/// `@gre` lists the fitting workspace files; Tab attaches the chosen one (a chip), and the
/// message carries its content; `@dir/` attaches a listing; a symlink out of the workspace
/// is refused as `read_file` refuses it.
#[tokio::test(flavor = "multi_thread")]
async fn an_at_mention_attaches_the_picked_file_and_a_listing() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/greeting.txt"), "hello from the file\n").unwrap();
    std::fs::write(dir.path().join("src/other.rs"), "fn other() {}\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "top secret\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("leak.txt"),
    )
    .unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("Got the file.")]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.send("explain @grt");
    let screen = tui.wait_for("src/greeting.txt").await;
    assert!(screen.contains("Tab or Enter attaches"), "{screen}");
    tui.send("\t");
    tui.wait_for("⎘ @src/greeting.txt · 1 line").await;
    tui.send("and @src/");
    tui.wait_for("Tab or Enter attaches").await;
    tui.send("\t");
    tui.wait_for("⎘ @src/ · ").await;
    tui.send("@leak");
    tui.wait_for("Tab or Enter attaches").await;
    tui.send("\t");
    tui.wait_for("cannot attach @leak.txt").await;
    tui.send("\r");
    tui.wait_for("Got the file.").await;
    let request = &server.requests()[0];
    let user = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        user.starts_with("explain @src/greeting.txt and @src/ @leak.txt"),
        "{user}"
    );
    assert!(
        user.contains("<attachment name=\"@src/greeting.txt\">\n     1\thello from the file"),
        "{user}"
    );
    assert!(
        user.contains("<attachment name=\"@src/\">\nsrc/greeting.txt\nsrc/other.rs\n"),
        "{user}"
    );
    assert!(!user.contains("top secret"), "{user}");
    tui.quit().await;
}

/// `/model` without a name lists the server's models (with the one in use marked, here one
/// the server does not offer); Enter on another switches, confirmed in one line, and the
/// next request uses it.
#[tokio::test(flavor = "multi_thread")]
async fn the_model_picker_lists_the_servers_models_and_switches() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply("answered by the new one")]).await;
    server.set_info(
        "/v1/models",
        serde_json::json!({"object": "list", "data": [
            {"id": "alpha-7b", "object": "model"},
            {"id": "beta-13b", "object": "model"}
        ]}),
    );
    let mut tui = Tui::start(dir.path(), &server, 120, 40);
    tui.wait_for("Ask Loom").await;
    // The server's list arrives in the background: ask until it is there (a fixed pause
    // was too short on a busy machine).
    let start = std::time::Instant::now();
    let screen = loop {
        tui.type_line("/model").await;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let screen = tui.screen();
        if screen.contains("Pick a model") {
            break tui.wait_for("beta-13b").await;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(15),
            "the server's models never came:\n{screen}"
        );
    };
    assert!(
        screen.contains("scripted-model  in use, not offered by the server")
            && screen.contains("alpha-7b")
            && screen.contains("beta-13b"),
        "{screen}"
    );
    tui.send("\x1b[B");
    tui.wait_for("› alpha-7b").await;
    tui.send("\x1b[B");
    tui.wait_for("› beta-13b").await;
    tui.send("\r");
    tui.wait_for("Model: beta-13b").await;
    tui.type_line("hello").await;
    tui.wait_for("answered by the new one").await;
    assert_eq!(server.requests()[0]["model"], "beta-13b");
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn loom_models_says_when_the_configured_model_is_not_offered() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_loom"))
        .env("HOME", dir.path().join(".home"))
        .env("XDG_CONFIG_HOME", dir.path().join(".home/.config"))
        .env("XDG_DATA_HOME", dir.path().join(".home/.local/share"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("LOOM_MODEL")
        .args(["models", "--model", "gone-model", "--base-url"])
        .arg(server.base_url())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "  scripted-model\n! gone-model  (configured, but this server does not offer it)\n"
    );
}

/// `loom sessions` shows each session's title (its first prompt), age, message and change
/// counts, and hides sessions that never reached a model; `loom sessions rm ID` removes
/// one with its undo journal.
#[tokio::test(flavor = "multi_thread")]
async fn sessions_have_titles_counts_and_can_be_removed() {
    let dir = workspace();
    std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e1",
            "edit_file",
            r#"{"path": "a.txt", "old_str": "old", "new_str": "new"}"#,
        )]),
        support::text_reply("Changed."),
    ])
    .await;
    let long_prompt = format!("make a.txt say new {}", "and more words ".repeat(10));
    let run = crate::exec::exec(dir.path(), &server, "full-auto", &long_prompt).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = run.events[0]["session_id"].as_str().unwrap().to_string();
    // A session opened and left before any answer: nothing to go back to.
    let sessions = dir.path().join(".home/.local/share/loom/sessions");
    let mut never =
        loom::session::SessionLog::create(&sessions, "never-answered", dir.path(), "m").unwrap();
    never
        .append(&loom::session::Record::Message {
            message: loom::llm::Message::user("hello?"),
        })
        .unwrap();

    let (code, listing, _) = crate::exec::loom_in(dir.path(), &["sessions"]).await;
    assert_eq!(code, 0);
    let row = listing
        .lines()
        .find(|l| l.starts_with(&id))
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(row.contains("just now"), "{row}");
    assert!(row.contains("4 msgs"), "{row}");
    assert!(row.contains("1 change "), "{row}");
    assert!(
        row.contains("make a.txt say new and more words") && row.contains('…'),
        "the title is the first prompt, shortened: {row}"
    );
    assert!(!listing.contains("never-answered"), "{listing}");

    let changes = dir.path().join(".home/.local/share/loom/changes").join(&id);
    assert!(changes.exists());
    let (code, out, _) = crate::exec::loom_in(dir.path(), &["sessions", "rm", &id]).await;
    assert_eq!(code, 0);
    assert_eq!(out.trim(), format!("removed session {id}"));
    assert!(!changes.exists(), "the undo journal goes with it");
    let (_, listing, _) = crate::exec::loom_in(dir.path(), &["sessions"]).await;
    assert!(!listing.contains(&id), "{listing}");
    let (code, _, err) = crate::exec::loom_in(dir.path(), &["sessions", "rm", &id]).await;
    assert_eq!(code, 1);
    assert!(err.contains("no session"), "{err}");
    let (code, _, err) = crate::exec::loom_in(dir.path(), &["sessions", "rm", "../../etc"]).await;
    assert_eq!(code, 1, "an id is a name, never a path");
    assert!(err.contains("no session"), "{err}");
}

/// Regression (issue 25): `loom --resume` without an ID was a numbered prompt on stderr.
/// It opens the TUI's resume picker: the sessions newest first with their titles, ages and
/// counts; typing filters; Enter opens the one chosen, and the conversation goes on in it.
#[tokio::test(flavor = "multi_thread")]
async fn resume_without_an_id_opens_the_picker_and_typing_filters() {
    let dir = workspace();
    let first = ScriptedServer::start(vec![
        support::text_reply("First answer."),
        support::text_reply("Second answer."),
    ])
    .await;
    let one = crate::exec::exec(dir.path(), &first, "supervised", "the older question").await;
    assert_eq!(one.code, 0, "{}", one.stderr);
    // Sessions are ordered by their start, to the second: the next one starts a second on.
    let now_secs = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let after = now_secs();
    while now_secs() == after {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let two = crate::exec::exec(dir.path(), &first, "supervised", "the newer question").await;
    assert_eq!(two.code, 0, "{}", two.stderr);
    let server = ScriptedServer::start(vec![support::text_reply("Going on.")]).await;
    let mut tui = Tui::start_with(dir.path(), &server, 120, 40, &["--resume"], &[]);
    tui.wait_for("Resume a session").await;
    let screen = tui.wait_for("the older question").await;
    let newer = screen.find("the newer question").expect("listed");
    let older = screen.find("the older question").expect("listed");
    assert!(newer < older, "newest first:\n{screen}");
    assert!(screen.contains("2 msgs"), "message counts:\n{screen}");
    tui.send("older");
    tui.wait_for("filter older").await;
    let screen = tui.screen();
    assert!(!screen.contains("the newer question"), "{screen}");
    tui.send("\r");
    let screen = tui.wait_for("First answer.").await;
    assert!(screen.contains("› the older question"), "{screen}");
    tui.type_line("and then?").await;
    tui.wait_for("Going on.").await;
    let sent = server.requests()[0]["messages"].to_string();
    assert!(
        sent.contains("the older question") && !sent.contains("the newer question"),
        "the conversation goes on in the session picked: {sent}"
    );
    tui.quit().await;
}

/// `/resume` opens the same picker in a running TUI: the chat switches to the session
/// picked, and the next message continues it.
#[tokio::test(flavor = "multi_thread")]
async fn slash_resume_switches_to_an_earlier_session() {
    let dir = workspace();
    let first = ScriptedServer::start(vec![support::text_reply("Old answer.")]).await;
    let one = crate::exec::exec(dir.path(), &first, "supervised", "an old question").await;
    assert_eq!(one.code, 0, "{}", one.stderr);
    let server = ScriptedServer::start(vec![
        support::text_reply("A new answer."),
        support::text_reply("Back in the old one."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 120, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("a new question").await;
    tui.wait_for("A new answer.").await;
    tui.type_line("/resume").await;
    tui.wait_for("Resume a session").await;
    let screen = tui.wait_for("an old question").await;
    assert_eq!(
        screen.matches(" msgs ").count(),
        1,
        "the session in use is not offered:\n{screen}"
    );
    tui.send("\r");
    let screen = tui.wait_for("Old answer.").await;
    assert!(!screen.contains("A new answer."), "{screen}");
    tui.type_line("go on").await;
    tui.wait_for("Back in the old one.").await;
    let sent = server.requests()[1]["messages"].to_string();
    assert!(
        sent.contains("an old question") && !sent.contains("a new question"),
        "{sent}"
    );
    let screen = tui.quit_and_wait().await;
    let id = one.events[0]["session_id"].as_str().unwrap().to_string();
    assert!(
        screen.contains(&format!("loom --resume {id}")),
        "the exit line names the session in use:\n{screen}"
    );
}

/// `/init` asks the model for an AGENTS.md, and the file it proposes goes through the
/// usual diff review before it is written.
#[tokio::test(flavor = "multi_thread")]
async fn init_asks_for_agents_md_through_the_diff_review() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "w1",
            "write_file",
            r##"{"path": "AGENTS.md", "content": "# Agents\n\nRun `make test`.\n"}"##,
        )]),
        support::text_reply("AGENTS.md is written."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("/init").await;
    let screen = tui.wait_for("Review the change").await;
    assert!(
        screen.contains("+Run `make test`.") || screen.contains("+ Run `make test`."),
        "{screen}"
    );
    assert!(
        !dir.path().join("AGENTS.md").exists(),
        "nothing written before the review"
    );
    let asked = server.requests()[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        asked.contains("write an AGENTS.md for this repository"),
        "{asked}"
    );
    tui.send("y");
    tui.wait_for("AGENTS.md is written.").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("AGENTS.md")).unwrap(),
        "# Agents\n\nRun `make test`.\n"
    );
    tui.quit().await;
}

/// `--inline` draws at the bottom of the normal screen (never the alternate one); a finished
/// prompt and answer move up into the terminal's own history above the live region, and stay
/// there, once each, after exit.
#[tokio::test(flavor = "multi_thread")]
async fn inline_mode_moves_finished_messages_into_the_scrollback() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply(
        "The **inline** answer.\n\n- one\n- two\n",
    )])
    .await;
    let mut tui = Tui::start_with(dir.path(), &server, 100, 40, &["--inline"], &[]);
    tui.wait_for("Ask Loom").await;
    tui.type_line("say it inline").await;
    tui.wait_for("The inline answer.").await;
    // The lines go up first, then the live region is drawn again below them.
    let start = std::time::Instant::now();
    let (answer, chat_top, screen) = loop {
        let screen = tui.screen();
        let lines: Vec<&str> = screen.lines().collect();
        let answer = lines
            .iter()
            .position(|l| l.starts_with("The inline answer."));
        let chat_top = lines.iter().position(|l| l.starts_with("┌ Chat"));
        if let (Some(a), Some(c)) = (answer, chat_top) {
            break (a, c, screen);
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "the live region was not drawn below the answer:\n{screen}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(
        answer < chat_top,
        "the answer is above the live region:\n{screen}"
    );
    assert!(screen.contains("› say it inline"), "{screen}");
    assert!(
        !tui.raw().contains("\x1b[?1049h"),
        "the alternate screen is never used"
    );
    let screen = tui.quit_and_wait().await;
    assert_eq!(
        screen.matches("The inline answer.").count(),
        1,
        "printed once:\n{screen}"
    );
    assert!(
        screen.contains("• one") || screen.contains("- one"),
        "{screen}"
    );
}

/// Typing a command is the person's approval, never a way around the approval mode: in
/// read-only mode `!touch` is refused like the model's `bash` call would be.
#[tokio::test(flavor = "multi_thread")]
async fn a_bang_command_is_refused_in_read_only_mode() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start_with(
        dir.path(),
        &server,
        140,
        40,
        &["--approval", "read-only"],
        &[],
    );
    tui.wait_for("Ask Loom").await;
    tui.type_line("!touch made.txt").await;
    let screen = tui.wait_for("refused:").await;
    assert!(screen.contains("read-only"), "{screen}");
    tui.type_line("!ls").await;
    tui.wait_for("⎘ !ls · ").await;
    assert!(!dir.path().join("made.txt").exists());
    tui.quit().await;
}

/// Regression: Esc stopped the agent but not a `!command`, which ran on until its timeout
/// (Esc only moved the focus between turns). Now the hint says Esc stops it, and it does.
#[tokio::test(flavor = "multi_thread")]
async fn esc_stops_a_running_bang_command() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("!sleep 600").await;
    tui.wait_for("Esc stop the command").await;
    tui.send("\x1b");
    let screen = tui.wait_for("✗ bash sleep 600").await;
    assert!(!screen.contains("Esc stop the command"), "{screen}");
    assert!(
        server.requests().is_empty(),
        "stopping a !command asks the model nothing"
    );
    tui.type_line("!echo next").await;
    tui.wait_for("✓ bash echo next").await;
    tui.quit().await;
}
