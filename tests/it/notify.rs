//! Notifications and the terminal title (issue 28) with the real binary in a pty: OSC 9
//! is written when a turn ends only after the terminal reported it lost focus, the title
//! shows the workspace (its states: notify's unit tests), and the terminal's own title is
//! saved first.

use crate::support::{self, ScriptedServer};
use crate::tui::Tui;

const DONE: &str = "\x1b]9;Loom is done\x07";

#[tokio::test(flavor = "multi_thread")]
async fn osc9_only_when_unfocused_and_the_title_names_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        support::text_reply("first answer"),
        support::text_reply("second answer"),
    ])
    .await;
    // WezTerm shows OSC 9, so `notify = "auto"` (the default) uses it; not inside tmux.
    let env = [("TERM_PROGRAM", "WezTerm"), ("TMUX", "")];
    let mut tui = Tui::start_with(dir.path(), &server, 100, 30, &[], &env);
    let name = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    tui.wait_for_raw(&format!("\x1b]2;loom · ready · {name}\x07"))
        .await;

    tui.type_line("hello").await;
    tui.wait_for("first answer").await;
    assert!(
        !tui.raw().contains("\x1b]9;"),
        "focused (it never reported otherwise): no notification"
    );

    // The terminal reports it lost focus (ESC [ O), then a turn ends.
    tui.send("\x1b[O");
    tui.type_line("again").await;
    tui.wait_for("second answer").await;
    let raw = tui.wait_for_raw(DONE).await;
    assert_eq!(raw.matches(DONE).count(), 1, "one notification per turn");
    assert!(
        raw.contains("\x1b[22;0t"),
        "the terminal's own title is saved first (given back on exit: notify's unit test)"
    );
    tui.quit_and_wait().await;
}
