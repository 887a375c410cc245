//! A resumed session of thousands of messages costs what is on screen (issue 26): the first
//! frame renders only the entries in view (plus a margin), typing renders nothing, and
//! scrolling to the top and back reads the right messages back from the session file.

use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

use super::app::App;
use super::snapshot_tests::{app, text};
use super::transcript::MARGIN_LINES;
use crate::protocol::message::{Message, ToolCall};
use loom_core::session::{self, Record, SessionLog};

const W: u16 = 100;
const H: u16 = 30;

/// Write a session of `exchanges` × 4 messages (a question, an answer with a code block
/// and a `bash` call, its result, a closing answer) and load it as `--resume` does.
fn resumed(dir: &Path, exchanges: usize) -> (App, session::LoadedSession) {
    let mut log = SessionLog::create(dir, "big", Path::new("/w"), "m").unwrap();
    let mut put = |m: Message| log.append(&Record::Message { message: m }).unwrap();
    for i in 0..exchanges {
        let first = if i == 0 { "FIRST " } else { "" };
        put(Message::user(format!("{first}question {i}")));
        let id = format!("call-{i}");
        put(Message::Assistant {
            content: format!("answer {i}\n\n```rust\nfn f_{i}() -> usize {{ {i} }}\n```"),
            tool_calls: vec![ToolCall {
                id: id.clone(),
                name: "bash".into(),
                arguments: json!({"command": format!("echo {i}")}).to_string(),
            }],
        });
        let stdout = format!("{i}\n");
        put(Message::Tool {
            tool_call_id: id,
            name: "bash".into(),
            content: json!({"success": true, "output": stdout,
                "data": {"stdout": stdout, "stderr": "", "exit_code": 0}})
            .to_string(),
        });
        let last = if i + 1 == exchanges { " LAST" } else { "" };
        put(Message::Assistant {
            content: format!("done with **{i}**{last}"),
            tool_calls: Vec::new(),
        });
    }
    let loaded = session::load(log.path()).unwrap();
    let (mut app, rx) = app("dark");
    std::mem::forget(rx);
    app.load_conversation(&loaded);
    (app, loaded)
}

fn ctrl(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::CONTROL));
}

/// Every entry takes at least two lines (itself and the blank after it), so filling the
/// view and the margin renders at most this many.
fn bound() -> u64 {
    (H as usize + MARGIN_LINES) as u64 / 2 + 1
}

#[test]
fn a_resumed_session_renders_only_the_entries_on_the_first_screen() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, loaded) = resumed(dir.path(), 2_500);
    assert_eq!(loaded.conversation.len(), 10_000);
    assert_eq!(app.transcript.renders(), 0, "loading renders nothing");
    let screen = text(&mut app, W, H);
    assert!(screen.contains("done with 2499 LAST"), "{screen}");
    let rendered = app.transcript.renders();
    assert!(
        rendered > 0 && rendered <= bound(),
        "{rendered} entries rendered for a {H}-line screen"
    );
}

#[test]
fn typing_renders_no_entry_again() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _) = resumed(dir.path(), 1_000);
    text(&mut app, W, H);
    let before = app.transcript.renders();
    for c in "typing along".chars() {
        app.on_key(KeyEvent::from(KeyCode::Char(c)));
        text(&mut app, W, H);
    }
    assert!(text(&mut app, W, H).contains("typing along"));
    assert_eq!(
        app.transcript.renders(),
        before,
        "keys re-render no entry, on screen or off"
    );
}

#[test]
fn scrolling_to_the_top_and_back_reads_the_right_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _) = resumed(dir.path(), 1_000);
    text(&mut app, W, H);
    ctrl(&mut app, KeyCode::Home);
    let top = text(&mut app, W, H);
    assert!(top.contains("FIRST question 0"), "{top}");
    let after_top = app.transcript.renders();
    assert!(after_top <= 2 * bound(), "{after_top} rendered");
    ctrl(&mut app, KeyCode::End);
    let bottom = text(&mut app, W, H);
    assert!(bottom.contains("done with 999 LAST"), "{bottom}");
    assert!(
        app.transcript.renders() - after_top <= bound(),
        "the bottom again costs at most one screen"
    );
    insta::assert_snapshot!("resumed_top", top);
    insta::assert_snapshot!("resumed_bottom_again", bottom);
}

#[test]
fn a_session_file_cut_after_resuming_shows_what_cannot_be_read_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, loaded) = resumed(dir.path(), 50);
    let path = loaded.path.clone().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let screen = text(&mut app, W, H);
    assert!(
        screen.contains("cannot read this message back from the session file"),
        "{screen}"
    );
    ctrl(&mut app, KeyCode::Home);
    let top = text(&mut app, W, H);
    assert!(
        top.contains("FIRST question 0"),
        "the start is still there: {top}"
    );
}

#[test]
fn a_theme_switch_restyles_the_screen_on_ticks_without_keys() {
    // Highlighting loads on demand; loaded first, so that only the theme switch restyles.
    super::highlight::load_now();
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _) = resumed(dir.path(), 1_000);
    text(&mut app, W, H);
    let before = app.transcript.renders();
    let light = super::theme::Theme::load("light", super::theme::ColorDepth::TrueColor).unwrap();
    app.set_theme(light);
    assert!(
        app.animating(),
        "frames keep coming while the screen waits to be restyled"
    );
    let mut ticks = 0;
    while app.animating() {
        // What the event loop does on an animation tick: tick, then draw.
        text(&mut app, W, H);
        ticks += 1;
        assert!(ticks < 20, "the restyling ends");
    }
    let restyled = app.transcript.renders() - before;
    assert!(
        restyled > 0 && restyled <= bound(),
        "{restyled} entries restyled: those on screen only"
    );
}

/// A resumed session of one `bash` call whose output is `stdout`, loaded as `--resume`
/// does; returns the session file's path too.
fn one_call(dir: &Path, stdout: &str) -> (App, std::path::PathBuf) {
    let mut log = SessionLog::create(dir, "calls", Path::new("/w"), "m").unwrap();
    let mut put = |m: Message| log.append(&Record::Message { message: m }).unwrap();
    put(Message::user("run it"));
    put(Message::Assistant {
        content: String::new(),
        tool_calls: vec![ToolCall {
            id: "old-call".into(),
            name: "bash".into(),
            arguments: json!({"command": "echo ARGUMENT-OF-THE-CALL"}).to_string(),
        }],
    });
    put(Message::Tool {
        tool_call_id: "old-call".into(),
        name: "bash".into(),
        content: json!({"success": true, "output": stdout,
            "data": {"stdout": stdout, "stderr": "", "exit_code": 0}})
        .to_string(),
    });
    put(Message::Assistant {
        content: "done".into(),
        tool_calls: Vec::new(),
    });
    let path = log.path().to_path_buf();
    let loaded = session::load(&path).unwrap();
    let (mut app, rx) = app("dark");
    std::mem::forget(rx);
    app.load_conversation(&loaded);
    (app, path)
}

fn details(app: &mut App) -> String {
    app.tools.selected = 0;
    let theme = app.theme.clone();
    app.tools
        .detail_lines(W, &theme)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                + "\n"
        })
        .collect()
}

#[test]
fn a_resumed_call_keeps_only_its_row_and_reads_its_details_back_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _) = one_call(dir.path(), "OUTPUT-OF-THE-CALL\n");
    let row = &app.tools.rows[0];
    assert_eq!(row.summary, "echo ARGUMENT-OF-THE-CALL");
    assert!(row.args.is_null() && row.result.is_none(), "{row:?}");
    assert!(matches!(
        row.status,
        super::tools_pane::ToolStatus::Done { ok: true, .. }
    ));
    let shown = details(&mut app);
    assert!(shown.contains("ARGUMENT-OF-THE-CALL"), "{shown}");
    assert!(shown.contains("result: success"), "{shown}");
    assert!(shown.contains("OUTPUT-OF-THE-CALL"), "{shown}");
    let screen = text(&mut app, W, H);
    assert!(
        screen.contains("OUTPUT-OF-THE-CALL"),
        "the chat still shows the output under the call: {screen}"
    );
}

#[test]
fn a_resumed_call_whose_file_was_cut_says_its_details_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, path) = one_call(dir.path(), "OUTPUT-OF-THE-CALL\n");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(10)
        .unwrap();
    let shown = details(&mut app);
    assert!(shown.contains("could not be read back"), "{shown}");
    assert!(!shown.contains("OUTPUT-OF-THE-CALL"), "{shown}");
}
