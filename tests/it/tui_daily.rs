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
    assert!(!screen.contains("Ask Loom"), "the alternate screen is gone:\n{screen}");
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
    assert!(prompt < tool && tool < heading && heading < bold && bold < hint, "{screen}");
    assert_eq!(
        lines.iter().filter(|l| l.contains("read_file")).count(),
        1,
        "a tool call is one line:\n{screen}"
    );
    assert!(!screen.contains("**"), "markdown is rendered, not raw:\n{screen}");
}
