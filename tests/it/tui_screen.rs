//! The screen a daily user meets every hour (issue 25), in the real binary in a
//! pseudo-terminal: command output where people read it, approvals answered only on
//! purpose, paging by the pane that scrolls, the light theme on a light terminal, copying
//! inside a real tmux, and the resume picker.

use crate::support::ScriptedServer;
use crate::tui::{Tui, workspace};

/// Regression (issue 25): the Details pane dropped the first line of every command's
/// output (`!echo a; echo b` showed only `b`, a one-line output nothing), and the chat had
/// only a row per call, so the output could be read nowhere. Now the chat shows the last
/// lines under the row, and the Details pane every line.
#[tokio::test(flavor = "multi_thread")]
async fn the_first_line_of_a_commands_output_shows_in_the_chat_and_in_details() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("!echo first-line; echo second-line").await;
    let screen = tui.wait_for("└ exit 0").await;
    let lines: Vec<&str> = screen.lines().collect();
    let chat = |needle: &str| lines.iter().any(|l| l.contains(&format!("│ {needle}")));
    assert!(
        chat("first-line") && chat("second-line"),
        "both lines under the command's row:\n{screen}"
    );
    // The wide layout's Details pane shows the newest call: its lines start right after
    // the pane's border.
    let details = |needle: &str| lines.iter().any(|l| l.contains(&format!("││{needle}")));
    assert!(
        details("first-line") && details("second-line"),
        "both lines in the Details pane:\n{screen}"
    );
    tui.type_line("!echo only-line").await;
    let screen = tui.wait_for("│ only-line").await;
    assert!(screen.contains("││only-line"), "{screen}");
    tui.quit().await;
}
